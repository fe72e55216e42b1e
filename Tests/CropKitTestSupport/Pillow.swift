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
    /// (8 bits, 3 samples a pixel, rows top to bottom; `mode` "RGBA": 4),
    /// turned upright by its EXIF orientation first when `transposed`
    /// (`ImageOps.exif_transpose`), cut to `rect` (x, y, width, height) if
    /// given; `nil` without the environment.
    ///
    /// - Throws: when Pillow cannot read the file.
    public static func rgb(
        _ bytes: [UInt8], rect: (Int, Int, Int, Int)? = nil, mode: String = "RGB",
        transposed: Bool = false
    ) throws -> (
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
            from PIL import ImageOps
            im = Image.open(sys.argv[1])
            im.load()
            \(transposed ? "im = ImageOps.exif_transpose(im)" : "")
            \(crop)
            im = im.convert("\(mode)")
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

extension Pillow {
    /// Each of `files` (a path, the mode "RGB" or "RGBA", and whether to
    /// turn it upright by its EXIF orientation) as Pillow decodes it, in
    /// one Python process; `nil` without the environment.
    ///
    /// - Throws: when Pillow cannot read a file.
    public static func decodeAll(_ files: [(path: String, mode: String, transposed: Bool)]) throws
        -> [(width: Int, height: Int, samples: [UInt8])]?
    {
        guard let python else { return nil }
        let script = """
            import sys
            from PIL import Image, ImageOps
            out = sys.stdout.buffer
            args = sys.argv[1:]
            for i in range(0, len(args), 3):
                im = Image.open(args[i])
                im.load()
                if args[i + 2] == "1":
                    im = ImageOps.exif_transpose(im)
                im = im.convert(args[i + 1])
                data = im.tobytes()
                out.write(b"%d %d %d\\n" % (im.size[0], im.size[1], len(data)) + data)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments =
            ["-c", script] + files.flatMap { [$0.path, $0.mode, $0.transposed ? "1" : "0"] }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadCorruptFile) }
        var images: [(width: Int, height: Int, samples: [UInt8])] = []
        var at = 0
        while at < data.count, let newline = data[at...].firstIndex(of: 10) {
            let words = String(decoding: data[at..<newline], as: UTF8.self).split(separator: " ")
            guard words.count == 3, let width = Int(words[0]), let height = Int(words[1]),
                let count = Int(words[2]), newline + 1 + count <= data.count
            else { throw CocoaError(.fileReadCorruptFile) }
            images.append((width, height, Array(data[(newline + 1)..<(newline + 1 + count)])))
            at = newline + 1 + count
        }
        guard images.count == files.count else { throw CocoaError(.fileReadCorruptFile) }
        return images
    }
}
