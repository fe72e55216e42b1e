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

/// A HEIF's images beside its primary as pillow-heif (libheif 1.23) reads
/// them, shown as the file says (its transforms applied).
public struct HEIFCompanionImages: Sendable {
    /// One image: its kind (its `auxC` type, "depth", "image-N"), its size, its
    /// bands a pixel and its 8-bit samples; `samples` is empty where
    /// pillow-heif cannot decode it (a 10-bit auxiliary image).
    public struct Image: Sendable {
        public var kind: String
        public var width: Int
        public var height: Int
        public var bands: Int
        public var samples: [UInt8]
    }

    /// The primary's size as shown.
    public var width: Int
    public var height: Int
    /// Every auxiliary image, depth image and further top-level image.
    public var images: [Image]
    /// The entity groups' types, in order ("altr", "ster").
    public var groups: [String]
    /// The `tmap` item's payload, hex, or empty.
    public var toneMap: String
}

extension Pillow {
    /// Each of `paths` read by pillow-heif: its auxiliary images (by their
    /// `auxC` type), depth images and further images, decoded; its entity
    /// groups; its `tmap` item's payload, read from the file's own boxes by
    /// a few lines of Python. An AVIF's auxiliary images, which
    /// pillow-heif cannot decode (it has no AV1 decoder), are decoded by
    /// Pillow's AVIF reader (libavif) with the file's `pitm` naming each;
    /// one with a clean aperture, which libavif ignores, has its size
    /// (libheif's reading) and no samples. `nil` without the environment.
    ///
    /// - Throws: when a file cannot be read.
    public static func heifCompanions(_ paths: [String]) throws -> [HEIFCompanionImages]? {
        guard let python else { return nil }
        let script = """
            import sys, struct, pillow_heif
            out = sys.stdout.buffer
            def boxes(b, s, e):
                while s + 8 <= e:
                    size, kind = struct.unpack('>I4s', b[s:s + 8]); head = 8
                    if size == 1: size = struct.unpack('>Q', b[s + 8:s + 16])[0]; head = 16
                    if size == 0: size = e - s
                    yield kind.decode('latin1'), s + head, s + size
                    s += size
            def tone_map(path):
                d = open(path, 'rb').read()
                top = {k: (a, z) for k, a, z in boxes(d, 0, len(d))}
                a, z = top['meta']
                meta = {k: (s, e) for k, s, e in boxes(d, a + 4, z)}
                s, e = meta['iinf']; v = d[s]; s += 6 if v == 0 else 8
                item = None
                for k, a, z in boxes(d, s, e):
                    v = d[a]; a += 4
                    iid = struct.unpack('>H', d[a:a + 2])[0] if v == 2 else struct.unpack('>I', d[a:a + 4])[0]
                    a += 4 if v == 2 else 6
                    if d[a:a + 4] == b'tmap': item = iid
                if item is None: return ''
                s, e = meta['iloc']; v = d[s]; s += 4
                sizes = struct.unpack('>H', d[s:s + 2])[0]; s += 2
                osz, lsz, bsz, isz = sizes >> 12, sizes >> 8 & 15, sizes >> 4 & 15, sizes & 15 if v else 0
                count = struct.unpack('>H' if v < 2 else '>I', d[s:s + (2 if v < 2 else 4)])[0]; s += 2 if v < 2 else 4
                def num(n):
                    nonlocal s
                    x = int.from_bytes(d[s:s + n], 'big') if n else 0; s += n; return x
                for _ in range(count):
                    iid = num(2 if v < 2 else 4); method = num(2) & 15 if v else 0; num(2); base = num(bsz)
                    parts = []
                    for _ in range(num(2)):
                        num(isz); off = num(osz); length = num(lsz); parts.append((base + off, length))
                    if iid == item:
                        origin = meta['idat'][0] if method == 1 else 0
                        return b''.join(d[origin + o:origin + o + n] for o, n in parts).hex()
                return ''
            def av1_item(path, item):
                # pillow-heif decodes no AV1: an AVIF's auxiliary image is
                # decoded by Pillow's own AVIF reader (libavif), the file's
                # pitm naming that item (a version-0 pitm: two bytes).
                try:
                    from PIL import Image
                    import io
                    d = bytearray(open(path, 'rb').read())
                    p = d.index(b'pitm')
                    if d[p + 4] != 0: return None
                    d[p + 8:p + 10] = item.to_bytes(2, 'big')
                    im = Image.open(io.BytesIO(bytes(d)))
                    im.load()
                    # Pillow gives the item's irot and imir as an EXIF
                    # orientation: shown turned, as libheif shows it.
                    from PIL import ImageOps
                    return ImageOps.exif_transpose(im)
                except Exception:
                    return None
            for path in sys.argv[1:]:
                h = pillow_heif.open_heif(path)
                images = []
                for kind, ids in h.info.get('aux', {}).items():
                    for i in ids:
                        try:
                            im = h.get_aux_image(i).to_pillow()
                            images.append((kind, im))
                        except Exception:
                            # libavif ignores a clean aperture: an image
                            # it shows at another size than libheif's is
                            # given by its size alone.
                            try:
                                size = h.get_aux_image(i).size
                            except Exception:
                                images.append((kind, None))
                                continue
                            im = av1_item(path, i)
                            images.append((kind, im if im is not None and im.size == size else size))
                for depth in h.info.get('depth_images', []):
                    images.append(('depth', depth.to_pillow()))
                for n in range(1, len(h)):
                    images.append(('image-%d' % n, h[n].to_pillow().convert('L')))
                groups = ','.join(g['type'] for g in h.info.get('entity_groups') or [])
                out.write(b'%d %d %d %s %s\\n' % (h.size[0], h.size[1], len(images), (groups or '-').encode(), (tone_map(path) or '-').encode()))
                for kind, im in images:
                    known = im is not None and not isinstance(im, tuple)
                    data = im.tobytes() if known else b''
                    w, hh = im.size if known else im if im is not None else (0, 0)
                    bands = len(im.getbands()) if known else 0
                    out.write(b'%s %d %d %d %d\\n' % (kind.encode(), w, hh, bands, len(data)) + data)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script] + paths
        let pipe = Pipe()
        process.standardOutput = pipe
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let data = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
        let message = String(
            decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: message])
        }
        var files: [HEIFCompanionImages] = []
        var at = 0
        func line() throws -> [Substring] {
            guard let newline = data[at...].firstIndex(of: 10) else {
                throw CocoaError(.fileReadCorruptFile)
            }
            defer { at = newline + 1 }
            return String(decoding: data[at..<newline], as: UTF8.self).split(separator: " ")
        }
        while at < data.count {
            let head = try line()
            guard head.count == 5, let width = Int(head[0]), let height = Int(head[1]),
                let count = Int(head[2])
            else { throw CocoaError(.fileReadCorruptFile) }
            var file = HEIFCompanionImages(
                width: width, height: height, images: [],
                groups: head[3] == "-" ? [] : head[3].split(separator: ",").map(String.init),
                toneMap: head[4] == "-" ? "" : String(head[4]))
            for _ in 0..<count {
                let words = try line()
                guard words.count == 5, let w = Int(words[1]), let h = Int(words[2]),
                    let bands = Int(words[3]), let bytes = Int(words[4]), at + bytes <= data.count
                else { throw CocoaError(.fileReadCorruptFile) }
                file.images.append(
                    .init(
                        kind: String(words[0]), width: w, height: h, bands: bands,
                        samples: Array(data[at..<(at + bytes)])))
                at += bytes
            }
            files.append(file)
        }
        guard files.count == paths.count else { throw CocoaError(.fileReadCorruptFile) }
        return files
    }
}
