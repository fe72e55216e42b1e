import CropGeometry

/// Reads an animated WebP's chunks (VP8X, ANIM, ANMF) into an
/// ``Animation``.
///
/// Refused, naming what is wrong: a file that ends before its RIFF size
/// says, no ANIM chunk, a frame outside the canvas, a frame without a
/// VP8 or VP8L bitstream (a bitstream whose size differs from its frame's
/// is refused when the frame is decoded).
enum AnimatedWebPContainer {
    /// Whether `head` (at least 21 bytes) starts a WebP whose VP8X header
    /// says it is animated.
    static func matches(_ head: [UInt8]) -> Bool {
        head.count >= 21 && head.starts(with: Array("RIFF".utf8))
            && Array(head[8..<16]) == Array("WEBPVP8X".utf8) && head[20] & 0x02 != 0
    }

    /// The animation in `input`.
    ///
    /// - Throws: ``ImagingError``.
    static func read(
        _ input: ImageInput, limits: DecodeLimits, reading: AnimationReading = .crop
    ) throws(ImagingError) -> Animation {
        try limits.check(fileSize: input.byteCount)
        func corrupt(_ detail: String) -> ImagingError { .corrupt(format: .webp, detail: detail) }
        func le(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
            (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        guard input.byteCount >= 30 else { throw corrupt("the file ends inside its header") }
        let header = try input.read(at: 0, count: 30, format: .webp)
        let end = 8 + le(header, 4, 4)
        guard end <= input.byteCount else {
            throw corrupt(
                "the RIFF header says \(end) bytes, the file has \(input.byteCount): it is truncated"
            )
        }
        let flags = header[20]
        let canvas = PixelSize<StoredPixels>(
            width: 1 + le(header, 24, 3), height: 1 + le(header, 27, 3))
        try limits.check(width: canvas.width, height: canvas.height)
        var details = WebPAnimationDetails(
            background: [0, 0, 0, 0], hasAlpha: flags & 0x10 != 0, icc: nil, exif: nil, xmp: nil)
        var animation = Animation(
            format: .webp, canvas: canvas, plays: 0, frames: [], details: .webp(details))
        var sawANIM = false
        var offset = 12 + 8 + le(header, 16, 4)
        offset += offset % 2
        while offset < end {
            guard end - offset >= 8 else { throw corrupt("\(end - offset) stray bytes at the end") }
            let head = try input.read(at: offset, count: 8, format: .webp)
            let type = String(decoding: head[0..<4], as: UTF8.self)
            let size = le(head, 4, 4)
            let body = offset + 8
            guard size <= end - body else {
                throw corrupt(
                    "chunk \"\(type)\" at byte \(offset) runs past the end of the form (truncated)")
            }
            switch type {
            case "ANIM":
                guard size >= 6 else { throw corrupt("the ANIM chunk is \(size) bytes") }
                let anim = try input.read(at: body, count: 6, format: .webp)
                details.background = Array(anim[0..<4])
                animation.plays = le(anim, 4, 2)
                sawANIM = true
            case "ANMF":
                let index = animation.frames.count
                guard sawANIM else {
                    throw corrupt("an ANMF frame before the ANIM chunk (or no ANIM chunk at all)")
                }
                guard index < limits.maxFrames else {
                    throw .limitExceeded(.frames, limit: limits.maxFrames, actual: index + 1)
                }
                guard size >= 16 else {
                    throw corrupt("frame \(index)'s ANMF chunk is \(size) bytes")
                }
                let anmf = try input.read(at: body, count: 16, format: .webp)
                let rect = PixelRect<StoredPixels>(
                    x: 2 * le(anmf, 0, 3), y: 2 * le(anmf, 3, 3), width: 1 + le(anmf, 6, 3),
                    height: 1 + le(anmf, 9, 3))
                if reading == .leakCheck && (rect.maxX > canvas.width || rect.maxY > canvas.height)
                {
                    animation.framesBeyondCanvas.append(index)
                } else if rect.maxX > canvas.width || rect.maxY > canvas.height {
                    let outside = rect.x >= canvas.width || rect.y >= canvas.height
                    throw corrupt(
                        "frame \(index) (\(rect.x),\(rect.y) \(rect.width)x\(rect.height)) \(outside ? "lies outside" : "extends beyond") the \(canvas.width)x\(canvas.height) canvas"
                    )
                }
                var alpha: ByteRange?
                var bitstream: (ByteRange, String)?
                var at = body + 16
                while at + 8 <= body + size {
                    let sub = try input.read(at: at, count: 8, format: .webp)
                    let subType = String(decoding: sub[0..<4], as: UTF8.self)
                    let subSize = le(sub, 4, 4)
                    guard subSize <= body + size - at - 8 else {
                        throw corrupt(
                            "frame \(index)'s \"\(subType)\" chunk runs past its ANMF chunk")
                    }
                    let range = ByteRange(offset: at + 8, count: subSize)
                    if subType == "ALPH", bitstream == nil, alpha == nil { alpha = range }
                    if subType == "VP8 " || subType == "VP8L", bitstream == nil {
                        bitstream = (range, subType)
                    }
                    at += 8 + subSize + subSize % 2
                }
                guard let bitstream else {
                    throw corrupt("frame \(index)'s ANMF chunk holds no VP8 or VP8L bitstream")
                }
                let lossless = bitstream.1 == "VP8L"
                var hasAlpha = !lossless && alpha != nil
                if lossless {
                    let header = try input.read(
                        at: bitstream.0.offset, count: min(5, bitstream.0.count), format: .webp)
                    hasAlpha = WebPContainer.vp8lHasAlpha(header)
                }
                animation.frames.append(
                    AnimationFrame(
                        rect: rect,
                        duration: FrameDuration(numerator: le(anmf, 12, 3), denominator: 1000),
                        disposal: anmf[15] & 1 != 0 ? .background : .none,
                        blend: anmf[15] & 2 != 0 ? .source : .over, isLossless: lossless,
                        data: .webp(
                            WebPFrameData(
                                alpha: lossless ? nil : alpha, bitstream: bitstream.0,
                                bitstreamType: bitstream.1, hasAlpha: hasAlpha))))
            case "ICCP": details.icc = ByteRange(offset: body, count: size)
            case "EXIF": details.exif = ByteRange(offset: body, count: size)
            case "XMP ": details.xmp = ByteRange(offset: body, count: size)
            default:
                animation.warnings.append("a \"\(type)\" chunk, not carried")
            }
            offset = body + size + size % 2
        }
        guard sawANIM else {
            throw corrupt("the VP8X header says animated but there is no ANIM chunk")
        }
        guard !animation.frames.isEmpty else { throw corrupt("an animation with no ANMF frame") }
        if end < input.byteCount {
            animation.warnings.append(
                "\(input.byteCount - end) bytes after the end of the RIFF form (not carried)")
        }
        animation.details = .webp(details)
        animation.endOfImage = end
        try AnimationLimits.check(animation, limits: limits)
        return animation
    }
}
