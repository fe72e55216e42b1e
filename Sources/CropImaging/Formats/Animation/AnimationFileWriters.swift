import CropGeometry

/// Writes a GIF89a: screen descriptor, the source's global colour table
/// (when a crop keeps frames' indices), the loop count, then each frame's
/// graphic control, descriptor, colour table and LZW data.
struct GIFFileWriter: AnimationFileWriter {
    let out: CountingSink
    var globalColours: [UInt8]?
    var backgroundIndex = 0
    var aspectByte = 0
    /// Application extensions carried as they were (an ICC profile).
    var carried: [[UInt8]] = []

    mutating func begin(size: PixelSize<StoredPixels>, plays: Int) throws(ImagingError) {
        var head = Array("GIF89a".utf8)
        head += le16(size.width) + le16(size.height)
        if let table = globalColours {
            let bits = GIFFileWriter.tableBits(table.count / 3)
            head.append(0x80 | UInt8(bits - 1) << 4 | UInt8(bits - 1))
            head += [UInt8(backgroundIndex), UInt8(aspectByte)]
            head += GIFFileWriter.padded(table, bits: bits)
        } else {
            head += [0, UInt8(backgroundIndex), UInt8(aspectByte)]
        }
        if plays != 1 {
            // NETSCAPE2.0 counts repeats after the first play.
            let repeats = plays == 0 ? 0 : plays - 1
            head += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1] + le16(repeats) + [0]
        }
        for block in carried { head += block }
        try out.write(head)
    }

    mutating func add(_ frame: OutputFrame) throws(ImagingError) {
        guard
            case .gif(let lzw, let local, let transparent, let stored, let interlaced) = frame.coded
        else {
            preconditionFailure("a GIF frame")
        }
        let delay = frame.duration.count(in: 100)
        var bytes: [UInt8] = [0x21, 0xF9, 4]
        bytes.append(UInt8(stored & 7) << 2 | (transparent != nil ? 1 : 0))
        bytes += le16(delay) + [UInt8(transparent ?? 0), 0]
        bytes.append(0x2C)
        bytes +=
            le16(frame.rect.x) + le16(frame.rect.y) + le16(frame.rect.width)
            + le16(frame.rect.height)
        if let local {
            let bits = GIFFileWriter.tableBits(local.count / 3)
            bytes.append(0x80 | (interlaced ? 0x40 : 0) | UInt8(bits - 1))
            bytes += GIFFileWriter.padded(local, bits: bits)
        } else {
            bytes.append(interlaced ? 0x40 : 0)
        }
        bytes += lzw
        try out.write(bytes)
    }

    mutating func finish() throws(ImagingError) -> Int {
        try out.write([0x3B])
        return out.count
    }

    /// The bits of a table of `entries` colours (1–8).
    static func tableBits(_ entries: Int) -> Int {
        var bits = 1
        while 1 << bits < entries { bits += 1 }
        return bits
    }

    /// A table padded with black to 2^bits entries.
    static func padded(_ table: [UInt8], bits: Int) -> [UInt8] {
        table + [UInt8](repeating: 0, count: 3 * (1 << bits) - table.count)
    }

    private func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
}

/// Writes an APNG: IHDR, the colour chunks, acTL, then each frame's fcTL
/// and data (IDAT for the default image, fdAT after it), sequence numbers
/// counted from 0.
struct APNGFileWriter: AnimationFileWriter {
    let out: CountingSink
    var colorType: ColorType
    var bitDepth: Int
    var chunks: [PNGChunk]
    var frameCount: Int
    /// The hidden default image's zlib stream, cut to the crop, when the
    /// source's default image is not a frame.
    var hiddenDefault: [UInt8]?
    /// Each frame's delay denominator as stored (an APNG source's), written
    /// back as read; otherwise the duration's fraction, reduced.
    var storedDenominators: [Int]? = nil
    private var sequence = 0
    private var index = 0

    init(
        out: CountingSink, colorType: ColorType, bitDepth: Int, chunks: [PNGChunk],
        frameCount: Int, hiddenDefault: [UInt8]?
    ) {
        self.out = out
        self.colorType = colorType
        self.bitDepth = bitDepth
        self.chunks = chunks
        self.frameCount = frameCount
        self.hiddenDefault = hiddenDefault
    }

    mutating func begin(size: PixelSize<StoredPixels>, plays: Int) throws(ImagingError) {
        var bytes: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        var ihdr: [UInt8] = []
        ihdr.appendBigEndian(UInt32(size.width))
        ihdr.appendBigEndian(UInt32(size.height))
        ihdr += [UInt8(bitDepth), colorType.rawValue, 0, 0, 0]
        appendChunk("IHDR", ihdr, to: &bytes)
        // PLTE before tRNS, the colour chunks before PLTE as the order rules ask.
        let order = [
            "iCCP", "sRGB", "gAMA", "cHRM", "cICP", "mDCV", "cLLI", "sBIT", "pHYs", "PLTE", "tRNS",
        ]
        for type in order {
            for chunk in chunks where chunk.type == type {
                appendChunk(type, chunk.data, to: &bytes)
            }
        }
        var actl: [UInt8] = []
        actl.appendBigEndian(UInt32(frameCount))
        actl.appendBigEndian(UInt32(plays))
        appendChunk("acTL", actl, to: &bytes)
        if let hiddenDefault { appendChunk("IDAT", hiddenDefault, to: &bytes) }
        try out.write(bytes)
    }

    mutating func add(_ frame: OutputFrame) throws(ImagingError) {
        guard case .png(let zlib) = frame.coded else { preconditionFailure("an APNG frame") }
        var bytes: [UInt8] = []
        var fctl: [UInt8] = []
        fctl.appendBigEndian(UInt32(sequence))
        sequence += 1
        for value in [frame.rect.width, frame.rect.height, frame.rect.x, frame.rect.y] {
            fctl.appendBigEndian(UInt32(value))
        }
        var numerator = frame.duration.numerator
        var denominator = frame.duration.denominator
        if let stored = storedDenominators?[index] {
            denominator = stored
        } else {
            (numerator, denominator) = try Self.fraction(frame.duration, index: index)
        }
        fctl += [UInt8(numerator >> 8), UInt8(numerator & 0xFF)]
        fctl += [UInt8(denominator >> 8), UInt8(denominator & 0xFF)]
        let dispose: UInt8 =
            switch frame.disposal {
            case .none: 0
            case .background: 1
            case .previous: 2
            }
        fctl += [dispose, frame.blend == .source ? 0 : 1]
        appendChunk("fcTL", fctl, to: &bytes)
        if index == 0 && hiddenDefault == nil {
            appendChunk("IDAT", zlib, to: &bytes)
        } else {
            // fdAT chunks of at most 1 MiB each.
            var at = 0
            repeat {
                let piece = min(zlib.count - at, 1 << 20)
                var data: [UInt8] = []
                data.appendBigEndian(UInt32(sequence))
                sequence += 1
                data += zlib[at..<at + piece]
                appendChunk("fdAT", data, to: &bytes)
                at += piece
            } while at < zlib.count
        }
        index += 1
        try out.write(bytes)
    }

    /// A duration as an fcTL's 16-bit numerator and denominator: reduced,
    /// refused when it cannot be held exactly.
    static func fraction(_ duration: FrameDuration, index: Int) throws(ImagingError) -> (Int, Int) {
        var (a, b) = (duration.numerator, duration.denominator)
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        if x > 1 {
            a /= x
            b /= x
        }
        guard a <= 65535, b <= 65535 else {
            throw .unsupported(
                format: .png,
                detail:
                    "frame \(index) is shown for \(duration), more than an APNG frame's 16-bit fraction holds"
            )
        }
        return (a, b)
    }

    mutating func finish() throws(ImagingError) -> Int {
        var bytes: [UInt8] = []
        appendChunk("IEND", [UInt8](), to: &bytes)
        try out.write(bytes)
        return out.count
    }
}

/// Writes an animated WebP: RIFF, VP8X, ANIM, then one ANMF chunk a frame.
/// The RIFF size and VP8X's alpha flag come first but are known at the
/// end: into a sink that can be written again in place (a file, memory)
/// the frames are streamed and the header mended at the end; into any
/// other sink they are held until the end (compressed, never as pixels).
struct AnimatedWebPFileWriter: AnimationFileWriter {
    let out: CountingSink
    var background: [UInt8] = [0, 0, 0, 0]
    var icc: [UInt8]?
    private var size = PixelSize<StoredPixels>(width: 1, height: 1)
    private var plays = 0
    private var frames: [[UInt8]] = []
    private var alpha = false
    private var frameCount = 0
    /// Where the RIFF form starts in the sink (the header is mended there).
    private var start = 0
    private var streaming: Bool { out.rewritable != nil }

    init(out: CountingSink, background: [UInt8], icc: [UInt8]?) {
        self.out = out
        self.background = background
        self.icc = icc
    }

    mutating func begin(size: PixelSize<StoredPixels>, plays: Int) throws(ImagingError) {
        self.size = size
        self.plays = plays
        if streaming {
            start = out.count
            try out.write(header(flags: 0x02, riffSize: 0))
        }
    }

    /// RIFF, VP8X with `flags`, ICCP and ANIM.
    private func header(flags: UInt8, riffSize: Int) -> [UInt8] {
        var flags = flags
        if icc != nil { flags |= WebPContainer.iccFlag }
        var bytes = Array("RIFF".utf8) + WebPContainer.le32(riffSize) + Array("WEBP".utf8)
        bytes += WebPContainer.vp8x(flags: flags, width: size.width, height: size.height)
        if let icc { bytes += WebPContainer.chunk("ICCP", icc) }
        bytes += WebPContainer.chunk(
            "ANIM", background + [UInt8(plays & 0xFF), UInt8(plays >> 8 & 0xFF)])
        return bytes
    }

    mutating func add(_ frame: OutputFrame) throws(ImagingError) {
        guard case .webp(let alphaData, let bitstream, let type) = frame.coded else {
            preconditionFailure("a WebP frame")
        }
        precondition(frame.rect.x % 2 == 0 && frame.rect.y % 2 == 0, "ANMF offsets are even")
        var payload = le24(frame.rect.x / 2) + le24(frame.rect.y / 2)
        payload += le24(frame.rect.width - 1) + le24(frame.rect.height - 1)
        payload += le24(min(frame.duration.count(in: 1000), 0xFF_FFFF))
        payload.append((frame.blend == .source ? 2 : 0) | (frame.disposal == .background ? 1 : 0))
        if let alphaData {
            payload += WebPContainer.chunk("ALPH", alphaData)
            alpha = true
        }
        if type == "VP8L", WebPContainer.vp8lHasAlpha(bitstream) { alpha = true }
        // The canvas shows transparency where the first frame leaves it
        // uncovered and where a frame is disposed: the alpha flag says so,
        // or readers that trust it (Pillow) show those pixels opaque.
        if frameCount == 0 && frame.rect != PixelRect(size: size) { alpha = true }
        if frame.disposal == .background { alpha = true }
        frameCount += 1
        payload += WebPContainer.chunk(type, bitstream)
        let chunk = WebPContainer.chunk("ANMF", payload)
        if streaming {
            try out.write(chunk)
        } else {
            frames.append(chunk)
        }
    }

    mutating func finish() throws(ImagingError) -> Int {
        let flags: UInt8 = 0x02 | (alpha ? WebPContainer.alphaFlag : 0)
        if let sink = out.rewritable {
            // Mend the header: the RIFF size and the alpha flag.
            let mended = header(flags: flags, riffSize: out.count - start - 8)
            try sink.rewrite(at: start, with: Array(mended.prefix(24)))
            return out.count
        }
        var file = header(flags: flags, riffSize: 0)
        for frame in frames { file += frame }
        let riffSize = WebPContainer.le32(file.count - 8)
        file.replaceSubrange(4..<8, with: riffSize)
        try out.write(file)
        frames = []
        return out.count
    }

    private func le24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }
}

extension WebPContainer {
    /// Whether a VP8L bitstream starting with `header` says its image uses
    /// alpha (bit 28 after the signature byte).
    static func vp8lHasAlpha(_ header: [UInt8]) -> Bool {
        header.count >= 5 && header[4] & 0x10 != 0
    }

    /// The payloads of a WebP file's ALPH chunk (if any) and its bitstream
    /// chunk, with the bitstream's type: what an ANMF frame holds.
    static func frameChunks(of file: [UInt8]) -> (
        alpha: [UInt8]?, bitstream: [UInt8], type: String
    )? {
        var alpha: [UInt8]?
        var at = 12
        while at + 8 <= file.count {
            let type = String(decoding: file[at..<at + 4], as: UTF8.self)
            let size =
                Int(file[at + 4]) | Int(file[at + 5]) << 8 | Int(file[at + 6]) << 16 | Int(
                    file[at + 7]) << 24
            guard at + 8 + size <= file.count else { return nil }
            let payload = Array(file[(at + 8)..<(at + 8 + size)])
            if type == "ALPH" { alpha = payload }
            if type == "VP8 " || type == "VP8L" { return (alpha, payload, type) }
            at += 8 + size + size % 2
        }
        return nil
    }
}
