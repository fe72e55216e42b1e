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

/// A manifest's path: a relative one resolved against the manifest's folder
/// `base` (none when empty), then cleaned (``cleanPath(_:)``), as batch
/// reads, checks and reports it, and as the merge checks it.
func manifestPath(_ path: String, base: String) -> String {
    cleanPath(path.hasPrefix("/") || base.isEmpty ? path : base + "/" + path)
}

/// `path` cleaned lexically, as Go's `filepath.Clean` and Python's
/// `os.path.normpath` clean it: repeated slashes become one, `.` parts go,
/// and each `name/..` pair goes (`a/./b/../c.png` is `a/c.png`). The file
/// system is not asked, so a symbolic link named before a `..` is not
/// followed (`--root` checks where paths really lead).
func cleanPath(_ path: String) -> String {
    let absolute = path.hasPrefix("/")
    var parts: [Substring] = []
    for part in path.split(separator: "/") {
        switch part {
        case ".":
            continue
        case "..":
            if let last = parts.last, last != ".." {
                parts.removeLast()
            } else if !absolute {
                parts.append(part)
            }
        default:
            parts.append(part)
        }
    }
    let joined = parts.joined(separator: "/")
    return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
}
