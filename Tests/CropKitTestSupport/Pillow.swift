import Foundation

/// Pillow, an independent decoder, run from CropKit's own virtual
/// environment (`scripts/python-venv` makes `.build/venv`; `.ci/run` makes
/// it when PyPI can be reached). Tests that read outputs with it skip that
/// check where the environment is absent.
public enum Pillow {
    /// The environment's Python, or `nil` when it has not been made.
    public static let python: String? = {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = package.appendingPathComponent(".build/venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    /// The image in `bytes` as Pillow decodes it (HEIF through pillow-heif,
    /// which carries a current libheif) and converts it to RGB
    /// (8 bits, 3 samples a pixel, rows top to bottom), cut to `rect`
    /// (x, y, width, height) if given; `nil` without the environment.
    ///
    /// - Throws: when Pillow cannot read the file.
    public static func rgb(_ bytes: [UInt8], rect: (Int, Int, Int, Int)? = nil) throws -> (
        width: Int, height: Int, samples: [UInt8]
    )? {
        guard let python else { return nil }
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("image")
        try Data(bytes).write(to: file)
        let crop =
            rect.map { "im = im.crop((\($0.0), \($0.1), \($0.0 + $0.2), \($0.1 + $0.3)))" } ?? ""
        let script = """
            import sys
            from PIL import Image
            try:
                import pillow_heif
                pillow_heif.register_heif_opener()
            except ImportError:
                pass
            im = Image.open(sys.argv[1])
            im.load()
            \(crop)
            im = im.convert("RGB")
            sys.stdout.buffer.write(b"%d %d\\n" % im.size + im.tobytes())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        guard process.terminationStatus == 0, let newline = data.firstIndex(of: 10) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        let size = String(decoding: data[..<newline], as: UTF8.self).split(separator: " ")
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return (width, height, Array(data[(newline + 1)...]))
    }
}
