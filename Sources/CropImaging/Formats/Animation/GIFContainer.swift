import CropGeometry

extension ImageFormat {
    /// GIF (87a and 89a), read as an animation of one or more frames.
    public static let gif = ImageFormat(rawValue: "gif")
}

/// Reads a GIF's blocks into an ``Animation``: the screen, the colour
/// tables, each frame's graphic control and where its LZW data lies.
///
/// Refused, naming the frame: a frame outside the logical screen or 0
/// wide, an LZW minimum code size outside 2–8, a frame without a colour
/// table, data that ends inside a frame, an unknown block. Accepted with a
/// warning: a missing trailer, bytes after it, a second loop count (the
/// first is kept), a second graphic control before one image (the last is
/// kept).
enum GIFContainer {
    /// Whether `head` starts a GIF.
    static func matches(_ head: [UInt8]) -> Bool {
        head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8))
    }

    /// The animation in `input`.
    ///
    /// - Throws: ``ImagingError``.
    static func read(
        _ input: ImageInput, limits: DecodeLimits, reading: AnimationReading = .crop
    ) throws(ImagingError) -> Animation {
        try limits.check(fileSize: input.byteCount)
        let cursor = InputCursor(input)
        func need(_ count: Int, _ what: String) throws(ImagingError) -> [UInt8] {
            guard let bytes = try cursor.read(count) else {
                throw .corrupt(format: .gif, detail: "the file ends inside \(what) (truncated)")
            }
            return bytes
        }
        let header = try need(13, "the header")
        guard matches(header) else {
            throw .corrupt(format: .gif, detail: "not a GIF (no GIF87a or GIF89a signature)")
        }
        let width = Int(header[6]) | Int(header[7]) << 8
        let height = Int(header[8]) | Int(header[9]) << 8
        guard width > 0, height > 0 else {
            throw .corrupt(format: .gif, detail: "the logical screen is \(width)x\(height)")
        }
        try limits.check(width: width, height: height)
        let packed = Int(header[10])
        var details = GIFDetails(
            version: String(decoding: header[3..<6], as: UTF8.self), globalColours: nil,
            backgroundIndex: Int(header[11]), aspectByte: Int(header[12]),
            hasLoopExtension: false, applicationExtensions: [], comments: 0)
        if packed & 0x80 != 0 {
            details.globalColours = try need(3 << ((packed & 7) + 1), "the global colour table")
        }
        var animation = Animation(
            format: .gif, canvas: PixelSize(width: width, height: height), plays: 1, frames: [],
            details: .gif(details))
        var control: (disposal: Int, delay: Int, transparent: Int?)?
        var sawTrailer = false
        var sawLoop = false
        blocks: while cursor.remaining > 0 {
            let introducer = try need(1, "a block")[0]
            switch introducer {
            case 0x3B:
                sawTrailer = true
                animation.endOfImage = cursor.offset
                break blocks
            case 0x21:
                let label = try need(1, "an extension")[0]
                switch label {
                case 0xF9:
                    let body = try subBlocks(cursor, "a graphic control extension")
                    guard body.count >= 4 else {
                        throw .corrupt(
                            format: .gif,
                            detail: "a graphic control extension of \(body.count) bytes (4 needed)")
                    }
                    if control != nil {
                        animation.warnings.append(
                            "two graphic control extensions before frame \(animation.frames.count): the last is used"
                        )
                    }
                    control = (
                        Int(body[0] >> 2) & 7, Int(body[1]) | Int(body[2]) << 8,
                        body[0] & 1 != 0 ? Int(body[3]) : nil
                    )
                case 0xFF:
                    let start = cursor.offset
                    let body = try subBlocks(cursor, "an application extension", keep: 64)
                    let name = String(decoding: body.prefix(11), as: UTF8.self)
                    if name == "NETSCAPE2.0" || name == "ANIMEXTS1.0" {
                        let loop =
                            body.count >= 14 && body[11] == 1
                            ? Int(body[12]) | Int(body[13]) << 8 : nil
                        if sawLoop {
                            animation.warnings.append(
                                "a second loop count (\(loop.map(String.init) ?? "unreadable")) after the first: the first is kept"
                            )
                        } else if let loop {
                            sawLoop = true
                            details.hasLoopExtension = true
                            animation.plays = loop == 0 ? 0 : loop + 1
                        }
                    } else {
                        details.applicationExtensions.append(
                            (name, ByteRange(offset: start, count: cursor.offset - start)))
                    }
                default:
                    // Comments and plain text: not carried by a crop.
                    details.comments += 1
                    _ = try subBlocks(cursor, "an extension", keep: 0)
                }
            case 0x2C:
                let index = animation.frames.count
                let descriptor = try need(9, "frame \(index)'s image descriptor")
                func u16(_ i: Int) -> Int { Int(descriptor[i]) | Int(descriptor[i + 1]) << 8 }
                let rect = PixelRect<StoredPixels>(
                    x: u16(0), y: u16(2), width: u16(4), height: u16(6))
                guard rect.width > 0, rect.height > 0 else {
                    throw .corrupt(
                        format: .gif, detail: "frame \(index) is \(rect.width)x\(rect.height)")
                }
                if reading == .leakCheck && (rect.maxX > width || rect.maxY > height) {
                    animation.framesBeyondCanvas.append(index)
                } else if rect.maxX > width || rect.maxY > height {
                    let outside = rect.x >= width || rect.y >= height
                    throw .corrupt(
                        format: .gif,
                        detail:
                            "frame \(index) (\(rect.x),\(rect.y) \(rect.width)x\(rect.height)) \(outside ? "lies outside" : "extends beyond") the \(width)x\(height) logical screen (GIF89a: each image must fit within the logical screen)"
                    )
                }
                let flags = Int(descriptor[8])
                var local: [UInt8]?
                if flags & 0x80 != 0 {
                    local = try need(3 << ((flags & 7) + 1), "frame \(index)'s colour table")
                }
                guard local != nil || details.globalColours != nil else {
                    throw .corrupt(
                        format: .gif,
                        detail:
                            "frame \(index) has no colour table (no local one and no global one)")
                }
                let start = cursor.offset
                let minimum = Int(try need(1, "frame \(index)'s LZW data")[0])
                guard (2...8).contains(minimum) else {
                    throw .corrupt(
                        format: .gif,
                        detail:
                            "frame \(index)'s LZW minimum code size is \(minimum) (GIF89a allows 2 to 8)"
                    )
                }
                _ = try subBlocks(cursor, "frame \(index)'s LZW data", keep: 0)
                guard index < limits.maxFrames else {
                    throw .limitExceeded(.frames, limit: limits.maxFrames, actual: index + 1)
                }
                let stored = control ?? (0, 0, nil)
                let disposal: FrameDisposal =
                    switch stored.disposal {
                    case 2: .background
                    case 3: .previous
                    default: .none
                    }
                if stored.disposal > 3 {
                    animation.warnings.append(
                        "frame \(index)'s disposal method \(stored.disposal) is reserved: kept, and drawn as none"
                    )
                }
                animation.frames.append(
                    AnimationFrame(
                        rect: rect,
                        duration: FrameDuration(numerator: stored.delay, denominator: 100),
                        disposal: disposal, blend: .over, isLossless: true,
                        data: .gif(
                            GIFFrameData(
                                localColours: local, transparentIndex: stored.transparent,
                                interlaced: flags & 0x40 != 0, storedDisposal: stored.disposal,
                                delay: stored.delay, minimumCodeSize: minimum,
                                lzw: ByteRange(offset: start, count: cursor.offset - start)))))
                control = nil
            default:
                throw .corrupt(
                    format: .gif,
                    detail:
                        "an unknown block (0x\(String(introducer, radix: 16, uppercase: true))) at byte \(cursor.offset - 1), where an extension, an image or the trailer should start"
                )
            }
        }
        guard !animation.frames.isEmpty else {
            throw .corrupt(format: .gif, detail: "no frame (a GIF holds at least one image)")
        }
        if !sawTrailer {
            animation.warnings.append("no trailer after the last frame (every frame is complete)")
        } else if cursor.remaining > 0 {
            animation.warnings.append(
                "\(cursor.remaining) bytes after the trailer: not image data, never copied")
        }
        animation.details = .gif(details)
        try AnimationLimits.check(animation, limits: limits)
        return animation
    }

    /// Reads data sub-blocks through their terminator, keeping the first
    /// `keep` bytes of their payload (all of them by default).
    private static func subBlocks(_ cursor: InputCursor, _ what: String, keep: Int = .max)
        throws(ImagingError) -> [UInt8]
    {
        var kept: [UInt8] = []
        while true {
            guard let size = try cursor.read(1)?.first else {
                throw .corrupt(format: .gif, detail: "the file ends inside \(what) (truncated)")
            }
            if size == 0 { return kept }
            let count = Int(size)
            if kept.count < keep {
                guard let bytes = try cursor.read(count) else {
                    throw .corrupt(format: .gif, detail: "the file ends inside \(what) (truncated)")
                }
                kept += bytes.prefix(keep - kept.count)
            } else if !cursor.skip(count) {
                throw .corrupt(format: .gif, detail: "the file ends inside \(what) (truncated)")
            }
        }
    }
}
