internal import CImagingShims
import CropGeometry

/// Reads an APNG's animation chunks (acTL, fcTL, fdAT) into an
/// ``Animation``; the PNG's own chunk list (``PNGFileInfo``) gives the
/// header and the colour chunks.
///
/// A PNG is an APNG when one acTL comes before its first IDAT; otherwise
/// it is a still PNG and a crop drops its fcTL and fdAT chunks. Refused,
/// naming what is wrong: two acTL chunks, a frame count of 0, over
/// 2^31 − 1 or unlike the fcTL count, sequence numbers that do not run 0,
/// 1, 2, … in file order, a frame without data or data without a frame, a
/// frame outside the canvas or 0 wide, undefined dispose or blend
/// operations, and a file that ends inside a chunk.
enum APNGContainer {
    /// Whether `info`'s chunk list says the file is an APNG.
    static func isAnimated(_ info: PNGFileInfo) -> Bool {
        info.droppedChunkTypes.contains("acTL")
    }

    /// The animation in `input`, whose chunk list is `info`; `nil` when
    /// the acTL comes after the image data (a still PNG).
    ///
    /// - Throws: ``ImagingError``.
    static func read(
        _ input: ImageInput, info: PNGFileInfo, limits: DecodeLimits,
        reading: AnimationReading = .crop
    )
        throws(ImagingError) -> Animation?
    {
        let cursor = InputCursor(input)
        guard cursor.skip(8) else { throw corrupt("the file ends inside its signature") }
        var plays = 0
        var declaredFrames: Int?
        var sequence = 0
        var frames: [AnimationFrame] = []
        var pending: (frame: AnimationFrame, beforeIDAT: Bool)?
        var pendingData: [ByteRange] = []
        var sawIDAT = false
        var idat: [ByteRange] = []
        var defaultIsFrame = false
        var warnings: [String] = []
        var storedDenominators: [Int] = []
        var beyond: [Int] = []
        var endOfImage: Int?
        let canvas = PixelSize<StoredPixels>(width: info.width, height: info.height)

        func finishFrame() throws(ImagingError) {
            guard let (first, beforeIDAT) = pending else { return }
            var frame = first
            let index = frames.count
            if beforeIDAT {
                defaultIsFrame = true
                frame.data = .png(idat)
            } else {
                guard !pendingData.isEmpty else {
                    throw corrupt("frame \(index) has an fcTL chunk and no fdAT data")
                }
                frame.data = .png(pendingData)
            }
            frames.append(frame)
            pending = nil
            pendingData = []
        }
        func checkSequence(_ number: UInt32, _ chunk: String) throws(ImagingError) {
            guard Int(number) == sequence else {
                let what =
                    sequence == 0
                    ? "must start at 0"
                    : Int(number) < sequence ? "repeat or run backwards" : "skip \(sequence)"
                throw corrupt(
                    "the APNG sequence numbers \(what): the \(chunk) chunk after number \(sequence - 1) has \(number)"
                )
            }
            sequence += 1
        }

        chunks: while true {
            guard let head = try cursor.read(8) else {
                throw corrupt("the file ends inside a chunk header (no IEND)")
            }
            let length = Int(head.bigEndianUInt32(at: 0))
            let type = String(decoding: head[4..<8], as: UTF8.self)
            guard length <= 0x7FFF_FFFF, length + 4 <= cursor.remaining else {
                throw corrupt("the \(type) chunk runs past the end of the file (truncated)")
            }
            let start = cursor.offset
            switch type {
            case "acTL":
                guard declaredFrames == nil else { throw corrupt("two acTL chunks") }
                guard !sawIDAT else { return nil }
                let body = try chunkBody(cursor, length: length, type: type)
                guard body.count == 8 else { throw corrupt("an acTL chunk of \(body.count) bytes") }
                let count = body.bigEndianUInt32(at: 0)
                guard count > 0 else { throw corrupt("acTL says 0 frames") }
                guard count <= 0x7FFF_FFFF else {
                    throw corrupt("acTL says \(count) frames, over 2^31 - 1")
                }
                guard Int(count) <= limits.maxFrames else {
                    throw .limitExceeded(.frames, limit: limits.maxFrames, actual: Int(count))
                }
                declaredFrames = Int(count)
                plays = Int(body.bigEndianUInt32(at: 4))
                continue chunks
            case "fcTL":
                let body = try chunkBody(cursor, length: length, type: type)
                guard body.count == 26 else {
                    throw corrupt("an fcTL chunk of \(body.count) bytes")
                }
                try checkSequence(body.bigEndianUInt32(at: 0), "fcTL")
                try finishFrame()
                let index = frames.count
                guard index < limits.maxFrames else {
                    throw .limitExceeded(.frames, limit: limits.maxFrames, actual: index + 1)
                }
                let values = (4..<20).striding(4).map { Int(body.bigEndianUInt32(at: $0)) }
                let (width, height, x, y) = (values[0], values[1], values[2], values[3])
                guard width > 0, height > 0 else {
                    throw corrupt("frame \(index)'s fcTL is \(width)x\(height)")
                }
                let inside =
                    x <= 0x7FFF_FFFF && y <= 0x7FFF_FFFF && width <= 0x7FFF_FFFF
                    && height <= 0x7FFF_FFFF && x + width <= canvas.width
                    && y + height <= canvas.height
                if !inside && reading == .leakCheck && x <= 0x7FFF_FFFF && y <= 0x7FFF_FFFF
                    && width <= 0x7FFF_FFFF && height <= 0x7FFF_FFFF
                {
                    beyond.append(index)
                } else if !inside {
                    throw corrupt(
                        "frame \(index) (\(x),\(y) \(width)x\(height)) does not lie inside the \(canvas.width)x\(canvas.height) canvas"
                    )
                }
                let numerator = Int(body[20]) << 8 | Int(body[21])
                let denominator = Int(body[22]) << 8 | Int(body[23])
                let dispose = Int(body[24])
                let blend = Int(body[25])
                guard dispose <= 2, blend <= 1 else {
                    throw corrupt(
                        "frame \(index)'s dispose_op \(dispose) or blend_op \(blend) is not defined (0-2, 0-1)"
                    )
                }
                var disposal: FrameDisposal = [.none, .background, .previous][dispose]
                if index == 0 && disposal == .previous {
                    // The specification: treated as background on the first frame.
                    disposal = .background
                }
                let beforeIDAT = !sawIDAT
                if beforeIDAT {
                    guard x == 0, y == 0, width == canvas.width, height == canvas.height else {
                        throw corrupt(
                            "the fcTL before IDAT is \(width)x\(height) at (\(x),\(y)), not the whole \(canvas.width)x\(canvas.height) image it describes"
                        )
                    }
                }
                pending = (
                    AnimationFrame(
                        rect: PixelRect(x: x, y: y, width: width, height: height),
                        duration: FrameDuration(numerator: numerator, denominator: denominator),
                        disposal: disposal, blend: blend == 0 ? .source : .over, isLossless: true,
                        data: .png([])), beforeIDAT
                )
                storedDenominators.append(denominator)
                continue chunks
            case "fdAT":
                guard length >= 4, let number = try cursor.read(4) else {
                    throw corrupt("an fdAT chunk of \(length) bytes")
                }
                try checkSequence(number.bigEndianUInt32(at: 0), "fdAT")
                guard let frame = pending, !frame.beforeIDAT else {
                    throw corrupt(
                        pending == nil
                            ? "an fdAT chunk before any fcTL"
                            : "an fdAT chunk for the default image, which IDAT holds")
                }
                pendingData.append(ByteRange(offset: cursor.offset, count: length - 4))
                guard cursor.skip(length - 4 + 4) else {
                    throw corrupt("an fdAT chunk runs past the end")
                }
                continue chunks
            case "IDAT":
                if !sawIDAT && declaredFrames == nil { return nil }
                sawIDAT = true
                idat.append(ByteRange(offset: start, count: length))
            case "IEND":
                _ = cursor.skip(length + 4)
                endOfImage = cursor.offset
                break chunks
            default:
                if sawIDAT, let frame = pending, frame.beforeIDAT {
                    try finishFrame()
                }
            }
            guard cursor.skip(length + 4) else {
                throw corrupt("the \(type) chunk runs past the end")
            }
        }
        try finishFrame()
        guard let declaredFrames else { return nil }
        guard !frames.isEmpty else { throw corrupt("acTL but no fcTL chunk: no frame") }
        guard declaredFrames == frames.count else {
            throw corrupt("acTL says \(declaredFrames) frames, the file has \(frames.count)")
        }
        if cursor.remaining > 0 {
            warnings.append("\(cursor.remaining) bytes after IEND: not image data, never copied")
        }
        let colourTypes: Set<String> = [
            "PLTE", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "cICP", "sBIT", "pHYs", "mDCV", "cLLI",
        ]
        let details = APNGDetails(
            colorType: info.colorType, bitDepth: info.bitDepth, interlaced: info.interlaced,
            colourChunks: info.carriedChunks.filter { colourTypes.contains($0.type) },
            hiddenDefault: defaultIsFrame ? nil : idat,
            otherChunks: info.carriedChunks.map(\.type).filter { !colourTypes.contains($0) }
                + info.droppedChunkTypes.filter { !["acTL", "fcTL", "fdAT"].contains($0) },
            storedDenominators: storedDenominators)
        var animation = Animation(
            format: .png, canvas: canvas, plays: plays, frames: frames, details: .png(details))
        animation.warnings = info.warnings + warnings
        animation.endOfImage = endOfImage
        animation.framesBeyondCanvas = beyond
        try AnimationLimits.check(animation, limits: limits)
        return animation
    }

    private static func corrupt(_ detail: String) -> ImagingError {
        .corrupt(format: .png, detail: detail)
    }

    /// A small chunk's data, its CRC checked.
    private static func chunkBody(_ cursor: InputCursor, length: Int, type: String)
        throws(ImagingError) -> [UInt8]
    {
        guard length <= 64, let body = try cursor.read(length), let crc = try cursor.read(4) else {
            throw corrupt("a \(type) chunk of \(length) bytes")
        }
        var sum = ck_crc32(0, Array(type.utf8), 4)
        sum = ck_crc32(sum, body, body.count)
        guard sum == crc.bigEndianUInt32(at: 0) else {
            throw corrupt("the \(type) chunk's CRC is wrong")
        }
        return body
    }
}

extension Range<Int> {
    /// Every `step`-th value from the start.
    fileprivate func striding(_ step: Int) -> StrideTo<Int> {
        stride(from: lowerBound, to: upperBound, by: step)
    }
}
