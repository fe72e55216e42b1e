import Foundation

/// Refuses, as a usage error, an output path that names a folder or whose
/// extension is not one of `extensions` (the format is chosen by the
/// extension, as vips does). `-` (standard output) passes.
///
/// - Parameters:
///   - path: The `-o` value.
///   - extensions: The extensions written, lower case, without the dot,
///     the first one the default (`["png"]`).
///   - format: The formats' name for a person ("PNG").
/// - Returns: The path's extension, lower case (empty for `-`).
@discardableResult
func checkOutputPath(_ path: String, extensions: [String], format: String) throws(UsageError)
    -> String
{
    guard path != "-" else { return "" }
    var isFolder: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
    if path.hasSuffix("/") || (exists && isFolder.boolValue) {
        let folder = path.hasSuffix("/") ? path : path + "/"
        throw UsageError(
            message: "-o \(path) is a folder; name a file, e.g. -o \(folder)crop.\(extensions[0])")
    }
    let pathExtension = URL(fileURLWithPath: path).pathExtension.lowercased()
    guard extensions.contains(pathExtension) else {
        let listed = extensions.map { ".\($0)" }.joined(separator: ", ")
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        throw UsageError(
            message:
                "-o \(path): the format comes from the extension, and this command writes \(format) (\(listed)) only; name it e.g. \(stem.isEmpty ? "crop" : stem).\(extensions[0])"
        )
    }
    return pathExtension
}
