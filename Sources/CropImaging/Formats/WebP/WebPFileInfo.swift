import CropGeometry

/// What a WebP file's RIFF chunks say about its image, read by CropKit's
/// own parser before libwebp sees any of it: the bitstream (lossy VP8 or
/// lossless VP8L) and its size, the alpha, the metadata chunks of the
/// extended format (VP8X: ICCP, EXIF, XMP), and what else the file holds.
///
/// A WebP's only orientation is its EXIF Orientation tag, applied as for a
/// JPEG (libwebp never applies it; Pillow's `exif_transpose` and browsers
/// do). An XMP `tiff:Orientation` without EXIF is not applied (libwebp and
/// EXIF readers do not; Pillow does). An animated WebP is refused.
public struct WebPFileInfo: Sendable {
    /// The bitstream's kind.
    public enum Coding: String, Sendable {
        /// VP8: lossy, YCbCr 4:2:0.
        case lossy = "VP8"
        /// VP8L: lossless ARGB.
        case lossless = "VP8L"
    }

    /// The image's width and height, as its bitstream codes them (and the
    /// VP8X canvas, when there is one, declares them).
    public var width: Int
    /// The image's height.
    public var height: Int
    /// VP8 or VP8L.
    public var coding: Coding
    /// Whether the image has alpha: a VP8L bitstream that says it uses
    /// alpha, or an ALPH chunk with a VP8 one.
    public var hasAlpha: Bool
    /// Whether the file has the extended format's VP8X header.
    public var extended: Bool
    /// The EXIF orientation (1 when there is none, or none can be read).
    public var orientation: EXIFOrientation
    /// The ICC profile (ICCP chunk), if any.
    public var iccProfile: [UInt8]?
    /// Why the ICCP chunk is not a profile a crop carries
    /// (``ICCProfile/problem(in:)``), when it is not; ``iccProfile`` is
    /// then `nil`.
    public var profileProblem: String? = nil
    /// The EXIF block (a TIFF structure; a leading `Exif\0\0` removed), if
    /// any.
    public var exif: [UInt8]?
    /// The XMP packet, if any.
    public var xmp: [UInt8]?
    /// The chunks in file order, as `(type, offset of the payload, size)`.
    public var chunks: [WebPChunk]
    /// Where the RIFF form ends; bytes after it are not part of the image.
    public var endOfImage: Int
    /// The quality libwebp would have been given to code this VP8
    /// bitstream (from its quantizer indices), if it is lossy and its
    /// header can be read.
    public var estimatedQuality: Int?
    /// Problems that did not stop the read.
    public var warnings: [String]

    /// The image's bitstream chunk.
    var bitstream: WebPChunk
    /// The ALPH chunk of a VP8 image, if any.
    var alphaChunk: WebPChunk?
    /// Whether that ALPH plane is coded with a prediction filter (libwebp
    /// 1.2 decodes such a plane wrong below a cropped top, so its rows are
    /// decoded from the first).
    var alphaFiltered = false
}

/// One chunk of a WebP's RIFF form: its FourCC and where its payload is.
public struct WebPChunk: Hashable, Sendable {
    /// "VP8 ", "VP8L", "VP8X", "ALPH", "ICCP", "EXIF", "XMP ", …
    public var type: String
    /// The payload's offset in the file.
    public var offset: Int
    /// The payload's size in bytes (without the pad byte).
    public var size: Int
}

extension WebPFileInfo {
    /// The most chunks a WebP may have before it is refused (a still image
    /// has a handful).
    static let maxChunks = 4096

    /// Reads the RIFF form of `input`: every chunk's bounds checked before
    /// anything is read from it, the bitstream's size read from its own
    /// header and checked against `limits`.
    ///
    /// - Throws: ``ImagingError/corrupt(format:detail:)``,
    ///   ``ImagingError/unsupported(format:detail:)`` (an animation),
    ///   ``ImagingError/limitExceeded(_:limit:actual:)``.
    static func read(_ input: ImageInput, limits: DecodeLimits) throws(ImagingError) -> Self {
        try limits.check(fileSize: input.byteCount)
        func corrupt(_ detail: String) -> ImagingError { .corrupt(format: .webp, detail: detail) }
        guard input.byteCount >= 12 else {
            throw corrupt("the file ends inside its RIFF header (\(input.byteCount) bytes)")
        }
        let header = try input.read(at: 0, count: 12, format: .webp)
        guard header.starts(with: Array("RIFF".utf8)), Array(header[8..<12]) == Array("WEBP".utf8)
        else { throw corrupt("not a RIFF WEBP form") }
        let riffSize = Self.le32(header, 4)
        var warnings: [String] = []
        var end = 8 + riffSize
        if end > input.byteCount {
            throw corrupt(
                "the RIFF header says \(end) bytes, the file has \(input.byteCount): it is truncated"
            )
        }
        if riffSize % 2 == 1 {
            warnings.append("the RIFF size \(riffSize) is odd")
            end = min(end + 1, input.byteCount)
        }
        // The chunks, each inside the form.
        var chunks: [WebPChunk] = []
        var offset = 12
        while offset < end {
            guard end - offset >= 8 else {
                throw corrupt("\(end - offset) stray bytes at the end of the RIFF form")
            }
            let head = try input.read(at: offset, count: 8, format: .webp)
            let type = String(decoding: head[0..<4], as: UTF8.self)
            let size = Self.le32(head, 4)
            guard size <= end - offset - 8 else {
                throw corrupt(
                    "chunk \"\(type)\" at byte \(offset) says \(size) bytes, past the end of the form"
                )
            }
            chunks.append(WebPChunk(type: type, offset: offset + 8, size: size))
            if chunks.count > maxChunks {
                throw .structureLimit(
                    format: .webp, detail: "more than \(maxChunks) chunks")
            }
            offset += 8 + size + size % 2
        }
        guard let first = chunks.first else { throw corrupt("the RIFF form holds no chunk") }
        // The extended format's header, then the image's bitstream.
        var canvas: (width: Int, height: Int)?
        var flags: UInt8 = 0
        if first.type == "VP8X" {
            guard first.size >= 10 else { throw corrupt("the VP8X chunk is \(first.size) bytes") }
            let vp8x = try input.read(at: first.offset, count: 10, format: .webp)
            flags = vp8x[0]
            canvas = (
                1 + (Int(vp8x[4]) | Int(vp8x[5]) << 8 | Int(vp8x[6]) << 16),
                1 + (Int(vp8x[7]) | Int(vp8x[8]) << 8 | Int(vp8x[9]) << 16)
            )
        } else if first.type != "VP8 " && first.type != "VP8L" {
            throw corrupt("the first chunk is \"\(first.type)\", not VP8, VP8L or VP8X")
        }
        let frames = chunks.filter { $0.type == "ANMF" }.count
        if flags & 0x02 != 0 || frames > 0 || chunks.contains(where: { $0.type == "ANIM" }) {
            throw .unsupported(
                format: .webp,
                detail:
                    "an animated WebP (\(frames) frame\(frames == 1 ? "" : "s")): read it as an animation: open it with AnimatedImage (a frame as a still: AnimatedImage.frame(_:))"
            )
        }
        guard
            let bitstream = chunks.first(where: { $0.type == "VP8 " || $0.type == "VP8L" })
        else { throw corrupt("no VP8 or VP8L chunk: the file holds no image") }
        if chunks.filter({ $0.type == "VP8 " || $0.type == "VP8L" }).count > 1 {
            warnings.append("more than one image bitstream; the first is the image")
        }
        let coding: Coding = bitstream.type == "VP8L" ? .lossless : .lossy
        var width = 0
        var height = 0
        var hasAlpha = false
        var estimatedQuality: Int?
        switch coding {
        case .lossless:
            guard bitstream.size >= 5 else { throw corrupt("the VP8L header is cut short") }
            let bits = try input.read(at: bitstream.offset, count: 5, format: .webp)
            guard bits[0] == 0x2F else {
                throw corrupt("the VP8L signature is 0x\(String(bits[0], radix: 16)), not 0x2f")
            }
            let value =
                UInt32(bits[1]) | UInt32(bits[2]) << 8 | UInt32(bits[3]) << 16
                | UInt32(bits[4]) << 24
            width = Int(value & 0x3FFF) + 1
            height = Int(value >> 14 & 0x3FFF) + 1
            hasAlpha = value >> 28 & 1 == 1
            guard value >> 29 == 0 else { throw corrupt("VP8L version \(value >> 29), not 0") }
        case .lossy:
            guard bitstream.size >= 10 else { throw corrupt("the VP8 frame header is cut short") }
            let count = min(bitstream.size, 64)
            let bits = try input.read(at: bitstream.offset, count: count, format: .webp)
            guard bits[0] & 1 == 0 else { throw corrupt("the VP8 frame is not a key frame") }
            guard bits[3] == 0x9D, bits[4] == 0x01, bits[5] == 0x2A else {
                throw corrupt("the VP8 start code is missing")
            }
            width = (Int(bits[6]) | Int(bits[7]) << 8) & 0x3FFF
            height = (Int(bits[8]) | Int(bits[9]) << 8) & 0x3FFF
            guard width > 0, height > 0 else {
                throw corrupt("the VP8 frame is \(width)x\(height)")
            }
            estimatedQuality = VP8Header(bits[10...]).map { $0.estimatedQuality }
        }
        try limits.check(width: width, height: height)
        if let canvas, canvas != (width, height) {
            throw corrupt(
                "the VP8X canvas is \(canvas.width)x\(canvas.height), its image \(width)x\(height)")
        }
        // The alpha of a VP8 image.
        var alphaChunk: WebPChunk?
        var alphaFiltered = false
        if coding == .lossy, canvas != nil,
            let alph = chunks.first(where: { $0.type == "ALPH" })
        {
            guard alph.size >= 1 else { throw corrupt("the ALPH chunk is empty") }
            let header = try input.read(at: alph.offset, count: 1, format: .webp)[0]
            let method = header & 3
            alphaFiltered = header >> 2 & 3 != 0
            guard method <= 1 else {
                throw corrupt("ALPH compression method \(method), not 0 (none) or 1 (lossless)")
            }
            alphaChunk = alph
            hasAlpha = true
        }
        // The metadata chunks of the extended format.
        var info = WebPFileInfo(
            width: width, height: height, coding: coding, hasAlpha: hasAlpha,
            extended: canvas != nil, orientation: .up, iccProfile: nil, exif: nil, xmp: nil,
            chunks: chunks, endOfImage: 8 + riffSize, estimatedQuality: estimatedQuality,
            warnings: warnings, bitstream: bitstream, alphaChunk: alphaChunk,
            alphaFiltered: alphaFiltered)
        if canvas != nil {
            try info.readMetadata(input, flags: flags, limits: limits)
        }
        if info.endOfImage < input.byteCount {
            info.warnings.append(
                "\(input.byteCount - info.endOfImage) bytes after the end of the RIFF form (not carried)"
            )
        }
        return info
    }

    /// The ICCP, EXIF and XMP chunks (the first of each), the orientation.
    private mutating func readMetadata(_ input: ImageInput, flags: UInt8, limits: DecodeLimits)
        throws(ImagingError)
    {
        func payload(_ type: String) throws(ImagingError) -> [UInt8]? {
            let found = chunks.filter { $0.type == type }
            guard let chunk = found.first else { return nil }
            if found.count > 1 {
                warnings.append("\(found.count) \(type) chunks; the first is read")
            }
            guard chunk.size <= limits.maxMetadataBytes else {
                throw .limitExceeded(
                    .metadataBytes, limit: limits.maxMetadataBytes, actual: chunk.size)
            }
            return try input.read(at: chunk.offset, count: chunk.size, format: .webp)
        }
        iccProfile = try payload("ICCP")
        if let profile = iccProfile, let problem = ICCProfile.problem(in: profile) {
            // Not a profile: a crop carries none, and says what it was.
            profileProblem = problem
            iccProfile = nil
        }
        if flags & 0x20 != 0, iccProfile == nil, profileProblem == nil {
            warnings.append("VP8X says there is an ICC profile, and there is no ICCP chunk")
        }
        if var tiff = try payload("EXIF") {
            // Older writers put JPEG's APP1 signature first.
            if tiff.starts(with: Array("Exif\0\0".utf8)) { tiff.removeFirst(6) }
            exif = tiff
            if let rewriter = EXIFRewriter(tiff: tiff) {
                if let value = rewriter.tags().orientation {
                    if let turn = EXIFOrientation(rawValue: value) {
                        orientation = turn
                    } else {
                        warnings.append("EXIF orientation \(value) is not 1-8; shown as 1")
                    }
                }
            } else {
                warnings.append("the EXIF chunk cannot be read; its orientation is taken as 1")
            }
        }
        xmp = try payload("XMP ")
        let known: Set<String> = ["VP8X", "VP8 ", "VP8L", "ALPH", "ICCP", "EXIF", "XMP "]
        let unknown = chunks.map(\.type).filter { !known.contains($0) }
        if !unknown.isEmpty {
            warnings.append(
                "unknown chunks \(unknown.map { "\"\($0)\"" }.joined(separator: ", ")) (not carried)"
            )
        }
    }

    static func le32(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16
            | Int(bytes[at + 3]) << 24
    }
}
