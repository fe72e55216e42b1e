import CropGeometry
import Foundation

/// Cuts every frame of an animation to a rect and writes the same timeline
/// (DESIGN.md, "Animated images"): same frames, same durations, same loop
/// count, each displayed canvas the source's cut to the rect.
///
/// Into its own container a frame keeps its operations (its rect cut to
/// the crop, its disposal, its blend): the composition is the same pixel by
/// pixel, so every player shows the same. A frame inside the crop keeps its
/// coded bytes; a cut frame is coded again from its own decoded values (a
/// GIF's indices, an APNG's samples, a WebP's pixels: losslessly, or lossy
/// for a lossy WebP frame); a frame that misses the crop becomes a 1x1
/// transparent frame drawn over. Where that cannot be said (an odd WebP
/// offset whose frame is disposed, an opaque APNG with no transparent
/// sample) and into another container, a frame is written from the
/// displayed canvas: the rect where it changed, replacing, not disposed.
struct AnimationCropper {
    let animation: Animation
    let input: ImageInput
    let limits: DecodeLimits
    let rect: PixelRect<StoredPixels>
    let output: ImageFormat
    /// The quality of a lossy WebP frame coded again.
    var lossyQuality = 90
    /// The inflater an APNG's frames are decoded with.
    var inflater: Inflater = .automatic
    /// Whether an APNG of the source's colour type may be written
    /// (otherwise RGBA: after a frame it could not hold).
    var keepsColourType = true
    /// For a turned, resized or circled crop: each displayed canvas (the
    /// whole of it) made into the output canvas by the still pipeline.
    var resample: Resample?

    /// Each displayed canvas made into an output canvas of `size`.
    struct Resample {
        let size: PixelSize<StoredPixels>
        let frame: (AnimationCanvas) throws(ImagingError) -> AnimationCanvas
    }

    /// What the crop wrote, frame by frame.
    struct Outcome {
        var bytes: Int
        var copied = 0
        var losslessAgain = 0
        var lossyAgain = 0
        var fromCanvas = 0
        var warnings: [String] = []
        var colorType: String = ""
    }

    /// A frame the source's colour type cannot hold, which
    /// ``holdsNoOpFrame(_:)`` foresees before the crop starts.
    struct Restart: Error {}

    /// Whether frames keep their own operations and coded data: into the
    /// source's container, neither turned nor resized.
    private var sameContainer: Bool { output == animation.format && resample == nil }

    /// The output canvas's size.
    private var outputSize: PixelSize<StoredPixels> { resample?.size ?? rect.size }

    /// Writes the cropped animation to `sink`.
    ///
    /// - Throws: ``ImagingError``.
    func write(to sink: some ByteSink) throws(ImagingError) -> Outcome {
        if sameContainer, animation.format == .png, keepsColourType,
            case .png(let details) = animation.details
        {
            // The source's colour type holds every frame unless a frame
            // that misses the crop needs a transparent value it lacks:
            // known from the frames' rects, before a pixel is decoded.
            let missing = animation.frames.contains { $0.rect.meeting(rect) == nil }
            if missing && !Self.holdsNoOpFrame(details) {
                var general = self
                general.keepsColourType = false
                return try general.write(to: sink)
            }
        }
        do {
            return try run(to: sink)
        } catch {
            if let imaging = error as? ImagingError { throw imaging }
            if error is Restart {
                throw .encodeFailed(
                    format: output.rawValue,
                    detail: "a frame the source's colour type cannot hold, which was not foreseen")
            }
            throw .encodeFailed(format: output.rawValue, detail: "\(error)")
        }
    }

    private func run(to sink: some ByteSink) throws -> Outcome {
        let out = CountingSink(sink)
        let decoder = AnimationFrameDecoder(
            animation: animation, input: input, limits: limits, inflater: inflater)
        var outcome = Outcome(bytes: 0)
        var writer = try makeWriter(out, decoder: decoder, outcome: &outcome)
        try writer.begin(size: outputSize, plays: animation.plays)

        // GIF into GIF keeps every frame's operations and needs no canvas.
        let needsCanvas = !(sameContainer && animation.format == .gif)
        var compositor = needsCanvas ? AnimationCompositor(animation) : nil
        let depth = animation.bitDepth == 16 ? 2 : 1
        var shown = AnimationCanvas(
            width: outputSize.width, height: outputSize.height, bytesPerChannel: depth)
        var inSync = resample == nil
        var gifState = GIFCanvasWriter(rect: PixelRect(size: outputSize))

        if compositor == nil, case .gif(let details) = animation.details {
            // GIF into GIF: every frame stands alone, so they are made side
            // by side and written in order, as many at a time as the
            // frames decoded ahead are counted for in memoryNeed (a GIF
            // frame holds an index a pixel and its codes, where memoryNeed
            // counts five bytes a pixel): many small frames make one batch,
            // so that every core is woken for more than a few microseconds.
            let budget = Self.framesAhead(animation) * animation.largestFrameArea * 5
            func held(_ index: Int) -> Int {
                animation.frames[index].rect.width * animation.frames[index].rect.height * 3
            }
            var start = 0
            while start < animation.frames.count {
                var end = start + 1
                var total = held(start)
                while end < animation.frames.count, total + held(end) <= budget {
                    total += held(end)
                    end += 1
                }
                let frames = Array(animation.frames[start..<end])
                let rect = self.rect
                let first = start
                let made = try concurrentResults(frames.count) { k throws(ImagingError) in
                    let frame = frames[k]
                    guard case .gif(let data) = frame.data else {
                        throw .corrupt(
                            format: .gif, detail: "frame \(first + k) is not a GIF frame")
                    }
                    return try Self.gifFrame(
                        first + k, frame, data, details, cut: frame.rect.meeting(rect), rect: rect,
                        decoder: decoder)
                }
                for frame in made {
                    try writer.add(frame)
                    count(frame.how, into: &outcome)
                }
                start = end
            }
            outcome.bytes = try writer.finish()
            return outcome
        }
        // Every frame is decoded for the canvas: `ahead` frames are being
        // decoded on other cores while this one composites, and WebP
        // frames are coded there too, `ahead` at most in flight, written
        // in order as each is done (memory: see memoryNeed). One steady
        // stream of work keeps every core busy, where batches that all
        // start and end together left cores waiting for the slowest.
        let ahead = compositor == nil ? 1 : Self.framesAhead(animation)
        let jobs = DispatchGroup()
        // No work outlives the crop, whatever it throws.
        defer { jobs.wait() }
        var decoding: [Int: BackgroundJob<DecodedFrame>] = [:]
        var decodeNext = 0
        var coding: [BackgroundJob<OutputFrame>] = []
        let quality = lossyQuality
        func emit(_ frame: OutputFrame) throws(ImagingError) {
            guard output == .webp, ahead > 1 else {
                try write(try Self.coded(frame, quality: quality))
                return
            }
            coding.append(
                BackgroundJob(in: jobs) { () throws(ImagingError) in
                    try Self.coded(frame, quality: quality)
                })
            if coding.count > ahead { try write(try coding.removeFirst().value()) }
        }
        func flush() throws(ImagingError) {
            while !coding.isEmpty { try write(try coding.removeFirst().value()) }
        }
        func write(_ frame: OutputFrame) throws(ImagingError) {
            try writer.add(frame)
            count(frame.how, into: &outcome)
        }
        for (index, frame) in animation.frames.enumerated() {
            let cut = frame.rect.meeting(rect)
            if ahead > 1 {
                decodeNext = max(decodeNext, index)
                while decodeNext < min(index + ahead, animation.frames.count) {
                    let next = decodeNext
                    decoding[next] = BackgroundJob(in: jobs) { () throws(ImagingError) in
                        try decoder.decode(next)
                    }
                    decodeNext += 1
                }
            }
            var decoded: DecodedFrame?
            func frameDecoded() throws(ImagingError) -> DecodedFrame {
                if let decoded { return decoded }
                let made: DecodedFrame
                if let job = decoding.removeValue(forKey: index) {
                    made = try job.value()
                } else {
                    made = try decoder.decode(index)
                }
                decoded = made
                return made
            }
            var target = shown
            if compositor != nil {
                if inSync, let canvas = compositor?.canvas { shown = canvas.cut(rect) }
                compositor?.draw(index, pixels: try frameDecoded().rgba)
                if let resample, let canvas = compositor?.canvas {
                    target = try resample.frame(canvas)
                } else {
                    target = compositor?.canvas.cut(rect) ?? shown
                }
            }

            var written: OutputFrame?
            if sameContainer && inSync {
                written = try keptFrame(
                    index, frame, cut: cut, decoded: frameDecoded, decoder: decoder, before: shown)
            }
            if let kept = written {
                try emit(kept)
            } else if output == .gif {
                for made in try gifState.frames(
                    target: target, duration: frame.duration, index: index)
                {
                    try writer.add(made)
                }
                outcome.fromCanvas += 1
                outcome.losslessAgain += 1
            } else {
                let lossy = output == .webp && !frame.isLossless
                let made = try canvasFrame(
                    before: shown, target: target, duration: frame.duration, lossy: lossy,
                    whole: output == .png && index == 0)
                try emit(made)
                outcome.fromCanvas += 1
            }

            if compositor != nil {
                compositor?.dispose()
                if written == nil, let canvas = compositor?.canvas {
                    shown = target
                    inSync = resample == nil && Self.changedRect(shown, canvas.cut(rect)) == nil
                }
            }
        }
        try flush()
        if output == .gif, let last = try gifState.flush() { try writer.add(last) }
        outcome.bytes = try writer.finish()
        return outcome
    }

    /// How many frames are decoded (and WebP frames coded) side by side:
    /// two a core, while those beyond the first hold at most 16 MB.
    static func framesAhead(_ animation: Animation) -> Int {
        let bytes = animation.bitDepth == 16 ? 8 : 4
        let room = (16 << 20) / max(1, animation.largestFrameArea * (bytes + 1))
        return max(1, min(2 * activeCores, 1 + room))
    }

    private func count(_ how: OutputFrame.How, into outcome: inout Outcome) {
        switch how {
        case .copied: outcome.copied += 1
        case .losslessAgain: outcome.losslessAgain += 1
        case .lossyAgain: outcome.lossyAgain += 1
        }
    }

    /// A GIF frame into GIF: copied when inside the crop, its cut rows
    /// coded again from its own indices (the rows below the crop never
    /// decoded), a 1x1 transparent frame when it misses the crop. It needs
    /// no canvas, so frames are made side by side.
    static func gifFrame(
        _ index: Int, _ frame: AnimationFrame, _ data: GIFFrameData, _ details: GIFDetails,
        cut: PixelRect<StoredPixels>?, rect: PixelRect<StoredPixels>,
        decoder: AnimationFrameDecoder
    ) throws(ImagingError) -> OutputFrame {
        let input = decoder.input
        let inside = cut == frame.rect
        guard let cut else {
            // A 1x1 frame of the transparent index: nothing drawn.
            let table = details.globalColours == nil ? [UInt8](repeating: 0, count: 6) : nil
            return OutputFrame(
                rect: PixelRect(x: 0, y: 0, width: 1, height: 1), duration: frame.duration,
                disposal: .none, blend: .over,
                coded: .gif(
                    lzw: GIFLZW.encode([0], minimum: 2), localColours: table,
                    transparentIndex: 0, storedDisposal: 1), how: .losslessAgain)
        }
        let moved = cut.offset(by: -rect.x, -rect.y)
        if inside {
            let lzw = try input.read(at: data.lzw.offset, count: data.lzw.count, format: .gif)
            return OutputFrame(
                rect: moved, duration: frame.duration, disposal: frame.disposal, blend: .over,
                coded: .gif(
                    lzw: lzw, localColours: data.localColours,
                    transparentIndex: data.transparentIndex,
                    storedDisposal: data.storedDisposal, interlaced: data.interlaced),
                how: .copied)
        }
        // Interlacing is not kept: the cut rows are written in order.
        // The rows below the crop are not decoded.
        let local = cut.offset(by: -frame.rect.x, -frame.rect.y)
        let indices = try decoder.gifIndices(index, rows: local.maxY)
        var kept = [UInt8]()
        kept.reserveCapacity(cut.width * cut.height)
        for y in local.y..<local.maxY {
            let start = y * frame.rect.width + local.x
            kept += indices[start..<start + local.width]
        }
        return OutputFrame(
            rect: moved, duration: frame.duration, disposal: frame.disposal, blend: .over,
            coded: .gif(
                lzw: GIFLZW.encode(kept, minimum: data.minimumCodeSize),
                localColours: data.localColours,
                transparentIndex: data.transparentIndex, storedDisposal: data.storedDisposal),
            how: .losslessAgain)
    }

    // MARK: Writers

    private func makeWriter(
        _ out: CountingSink, decoder: AnimationFrameDecoder, outcome: inout Outcome
    ) throws
        -> any AnimationFileWriter
    {
        switch output {
        case .gif:
            var writer = GIFFileWriter(out: out)
            if sameContainer, case .gif(let details) = animation.details {
                writer.globalColours = details.globalColours
                writer.backgroundIndex = details.backgroundIndex
                writer.aspectByte = details.aspectByte
                outcome.colorType = "palette (the source's colour tables)"
            } else {
                outcome.colorType = "palette (a local colour table a frame)"
            }
            return writer
        case .png:
            if sameContainer, keepsColourType, case .png(let details) = animation.details {
                var hidden: [UInt8]?
                if details.hiddenDefault != nil, let image = try decoder.decodeHiddenDefault() {
                    hidden = try Self.zlib(of: image.cropped(to: rect))
                }
                var writer = APNGFileWriter(
                    out: out, colorType: details.colorType, bitDepth: details.bitDepth,
                    chunks: details.colourChunks, frameCount: animation.frames.count,
                    hiddenDefault: hidden)
                writer.storedDenominators = details.storedDenominators
                outcome.colorType = "\(details.colorType) \(details.bitDepth)-bit (the source's)"
                return writer
            }
            var hidden: [UInt8]?
            let depth = animation.bitDepth == 16 ? 16 : 8
            // A turned or resized crop's first frame is its default image.
            if resample == nil, case .png(let details) = animation.details,
                details.hiddenDefault != nil,
                let image = try decoder.decodeHiddenDefault()
            {
                let rgba = AnimationFrameDecoder.rgba(image, depth: depth).cut(rect)
                hidden = try Self.zlib(of: rgba.raster)
            }
            let chunks: [PNGChunk] =
                if case .png(let details) = animation.details {
                    details.colourChunks.filter {
                        $0.type != "PLTE" && $0.type != "tRNS" && $0.type != "sBIT"
                    }
                } else { [] }
            outcome.colorType = "RGBA \(depth)-bit"
            var writer = APNGFileWriter(
                out: out, colorType: .rgba, bitDepth: depth, chunks: chunks,
                frameCount: animation.frames.count, hiddenDefault: hidden)
            if case .png(let details) = animation.details {
                writer.storedDenominators = details.storedDenominators
            }
            return writer
        default:
            var background: [UInt8] = [0, 0, 0, 0]
            var icc: [UInt8]?
            if case .webp(let details) = animation.details {
                background = details.background
                if let range = details.icc {
                    icc = try input.read(at: range.offset, count: range.count, format: .webp)
                }
            }
            outcome.colorType = "RGBA 8-bit"
            return AnimatedWebPFileWriter(out: out, background: background, icc: icc)
        }
    }

    /// A PNG image's zlib stream, as the PNG encoder writes it.
    static func zlib(of image: RasterImage) throws(ImagingError) -> [UInt8] {
        let file = try PNGEncoder(threads: 1).encode(image)
        var data: [UInt8] = []
        var at = 8
        while at + 12 <= file.count {
            let length = Int(file.bigEndianUInt32(at: at))
            let type = String(decoding: file[(at + 4)..<(at + 8)], as: UTF8.self)
            if type == "IDAT" { data += file[(at + 8)..<(at + 8 + length)] }
            at += 12 + length
        }
        return data
    }

    // MARK: A frame kept with its operations

    private func keptFrame(
        _ index: Int, _ frame: AnimationFrame, cut: PixelRect<StoredPixels>?,
        decoded: () throws(ImagingError) -> DecodedFrame, decoder: AnimationFrameDecoder,
        before: AnimationCanvas
    ) throws -> OutputFrame? {
        let inside = cut == frame.rect
        switch (frame.data, animation.details) {
        case (.gif(let data), .gif(let details)):
            return try Self.gifFrame(
                index, frame, data, details, cut: cut, rect: rect, decoder: decoder)
        case (.png(let pieces), .png(let details)):
            // Written as RGBA after a frame the source's colour type could
            // not hold: every frame from the canvas.
            guard keepsColourType else { return nil }
            guard let cut else {
                return try noOpPNG(frame, details: details)
            }
            let moved = cut.offset(by: -rect.x, -rect.y)
            if inside && (index > 0 || details.hiddenDefault != nil || moved.size == rect.size) {
                var zlib: [UInt8] = []
                for piece in pieces {
                    zlib += try input.read(at: piece.offset, count: piece.count, format: .png)
                }
                if !details.interlaced {
                    return OutputFrame(
                        rect: moved, duration: frame.duration, disposal: frame.disposal,
                        blend: frame.blend,
                        coded: .png(zlib: zlib), how: .copied)
                }
            }
            guard let samples = try decoded().samples else { throw Restart() }
            let local = cut.offset(by: -frame.rect.x, -frame.rect.y)
            return OutputFrame(
                rect: moved, duration: frame.duration, disposal: frame.disposal, blend: frame.blend,
                coded: .png(zlib: try Self.zlib(of: samples.cropped(to: local))),
                how: .losslessAgain)
        case (.webp(let data), .webp):
            guard let cut else {
                return noOpWebP(frame)
            }
            var moved = cut.offset(by: -rect.x, -rect.y)
            if inside && moved.x % 2 == 0 && moved.y % 2 == 0 {
                let alpha = try data.alpha.map { range throws(ImagingError) in
                    try input.read(at: range.offset, count: range.count, format: .webp)
                }
                let bitstream = try input.read(
                    at: data.bitstream.offset, count: data.bitstream.count, format: .webp)
                return OutputFrame(
                    rect: moved, duration: frame.duration, disposal: frame.disposal,
                    blend: frame.blend,
                    coded: .webp(alpha: alpha, bitstream: bitstream, type: data.bitstreamType),
                    how: .copied)
            }
            var pixels = try decoded().rgba.cut(cut.offset(by: -frame.rect.x, -frame.rect.y))
            let padX = moved.x % 2
            let padY = moved.y % 2
            if padX + padY > 0 {
                // An odd offset: one column or row more to the left or top,
                // drawn as a no-op: transparent drawn over, or the shown
                // pixels replaced by themselves. A disposed frame would clear
                // them too: written from the canvas instead.
                guard frame.disposal == .none else { return nil }
                let grown = PixelRect<StoredPixels>(
                    x: moved.x - padX, y: moved.y - padY, width: moved.width + padX,
                    height: moved.height + padY)
                var padded =
                    frame.blend == .over
                    ? AnimationCanvas(width: grown.width, height: grown.height, bytesPerChannel: 1)
                    : before.cut(grown)
                padded.paste(pixels, x: padX, y: padY)
                pixels = padded
                moved = grown
            }
            return OutputFrame(
                rect: moved, duration: frame.duration, disposal: frame.disposal, blend: frame.blend,
                coded: .webpPixels(pixels, lossy: !frame.isLossless), how: .losslessAgain)
        default:
            return nil
        }
    }

    /// Whether the source's colour type has a fully transparent value for
    /// a frame that draws nothing (``noOpPNG(_:details:)``).
    static func holdsNoOpFrame(_ details: APNGDetails) -> Bool {
        let trns = details.colourChunks.first { $0.type == "tRNS" }?.data
        switch details.colorType {
        case .rgba, .grayAlpha: return true
        case .palette: return trns?.contains(0) ?? false
        case .gray: return (trns?.count ?? 0) >= 2
        case .rgb: return (trns?.count ?? 0) >= 6
        }
    }

    private func noOpPNG(_ frame: AnimationFrame, details: APNGDetails) throws -> OutputFrame? {
        let one = PixelRect<StoredPixels>(x: 0, y: 0, width: 1, height: 1)
        var pixel: RasterImage
        let wide = details.bitDepth == 16
        let trns = details.colourChunks.first { $0.type == "tRNS" }?.data
        switch details.colorType {
        case .rgba, .grayAlpha:
            pixel = RasterImage(
                width: 1, height: 1, colorType: details.colorType, bitDepth: details.bitDepth,
                samples: [UInt8](repeating: 0, count: details.colorType.channels * (wide ? 2 : 1)))
        case .palette:
            guard let trns, let index = trns.firstIndex(of: 0) else { throw Restart() }
            pixel = RasterImage(
                width: 1, height: 1, colorType: .palette, bitDepth: details.bitDepth,
                samples: [UInt8(index)],
                chunks: details.colourChunks.filter { $0.type == "PLTE" || $0.type == "tRNS" })
        case .gray, .rgb:
            guard let trns, trns.count >= (details.colorType == .gray ? 2 : 6) else {
                throw Restart()
            }
            let values = stride(from: 0, to: trns.count, by: 2).map {
                Int(trns[$0]) << 8 | Int(trns[$0 + 1])
            }
            var samples: [UInt8] = []
            for v in values {
                samples += wide ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF)]
            }
            pixel = RasterImage(
                width: 1, height: 1, colorType: details.colorType, bitDepth: details.bitDepth,
                samples: samples)
        }
        return OutputFrame(
            rect: one, duration: frame.duration, disposal: .none, blend: .over,
            coded: .png(zlib: try Self.zlib(of: pixel)), how: .losslessAgain)
    }

    private func noOpWebP(_ frame: AnimationFrame) -> OutputFrame {
        let pixel = AnimationCanvas(width: 1, height: 1, bytesPerChannel: 1)
        return OutputFrame(
            rect: PixelRect(x: 0, y: 0, width: 1, height: 1), duration: frame.duration,
            disposal: .none,
            blend: .over, coded: .webpPixels(pixel, lossy: false), how: .losslessAgain)
    }

    /// `frame` ready for a writer: its pixels, if it holds them
    /// (``OutputFrame/Coded/webpPixels(_:lossy:)``), coded as WebP; safe
    /// on any thread.
    static func coded(_ frame: OutputFrame, quality: Int) throws(ImagingError) -> OutputFrame {
        guard case .webpPixels(let pixels, let lossy) = frame.coded else { return frame }
        var coded = frame
        (coded.coded, coded.how) = try webpCoded(pixels, lossy: lossy, quality: quality)
        return coded
    }

    /// A frame's pixels as a WebP bitstream, and how it was made. A lossy
    /// frame stays lossy only while its error is within the contract's
    /// bound against the pixels it stands for (mean 1, 99th percentile 4
    /// codes): at `first` (``lossyQuality``), then at 98; past that it is
    /// coded losslessly, which noise-like frames need once the crop moves
    /// their chroma grid.
    private static func webpCoded(_ pixels: AnimationCanvas, lossy: Bool, quality first: Int)
        throws(ImagingError) -> (OutputFrame.Coded, OutputFrame.How)
    {
        if lossy {
            for quality in [first, 98] {
                let file = try WebPEncoder.encode(pixels.raster, lossless: false, quality: quality)
                if try Self.withinLossyBound(file, of: pixels) {
                    return (try Self.frameCoded(file), .lossyAgain)
                }
            }
        }
        let file = try WebPEncoder.encode(pixels.raster, lossless: true, quality: 100)
        return (try Self.frameCoded(file), .losslessAgain)
    }

    private static func frameCoded(_ file: [UInt8]) throws(ImagingError) -> OutputFrame.Coded {
        guard let chunks = WebPContainer.frameChunks(of: file) else {
            throw .encodeFailed(format: "webp", detail: "libwebp wrote no bitstream")
        }
        return .webp(alpha: chunks.alpha, bitstream: chunks.bitstream, type: chunks.type)
    }

    /// Whether `file`, decoded, differs from `pixels` by a mean of at most
    /// 1 and a 99.5th percentile of at most 4 codes over the samples of
    /// pixels not transparent in both: half a percent of margin, so that
    /// the frames together, and the canvases they make, keep the 99th.
    static func withinLossyBound(_ file: [UInt8], of pixels: AnimationCanvas)
        throws(ImagingError) -> Bool
    {
        let image = try ImageSource(ImageInput(bytes: file, name: "lossy frame"), limits: .standard)
            .decode().image
        let channels = image.colorType == .rgba ? 4 : 3
        var histogram = [Int](repeating: 0, count: 256)
        var samples = 0
        var total = 0
        pixels.samples.withUnsafeBufferPointer { want in
            image.samples.withUnsafeBufferPointer { got in
                for i in 0..<image.width * image.height {
                    let gotAlpha = channels == 4 ? got[i * 4 + 3] : 255
                    if want[i * 4 + 3] == 0 && gotAlpha == 0 { continue }
                    for k in 0..<4 {
                        let value = k < 3 ? got[i * channels + k] : gotAlpha
                        let error = abs(Int(want[i * 4 + k]) - Int(value))
                        histogram[error] += 1
                        total += error
                    }
                    samples += 4
                }
            }
        }
        guard samples > 0 else { return true }
        guard total <= samples else { return false }
        let rank = Int(0.995 * Double(samples - 1))
        var seen = 0
        for (error, count) in histogram.enumerated() {
            seen += count
            if seen > rank { return error <= 4 }
        }
        return true
    }

    // MARK: A frame from the displayed canvas

    /// The rect where `target` differs from `before` (grown to even
    /// offsets for WebP), written replacing, not disposed; the whole
    /// canvas when `whole` (an APNG's first frame, whose fcTL the
    /// specification requires to be the IDAT image's full size).
    private func canvasFrame(
        before: AnimationCanvas, target: AnimationCanvas, duration: FrameDuration, lossy: Bool,
        whole: Bool = false
    ) throws -> OutputFrame {
        let full = PixelRect<StoredPixels>(
            x: 0, y: 0, width: target.width, height: target.height)
        guard var changed = whole ? full : Self.changedRect(before, target) else {
            let pixel = AnimationCanvas(
                width: 1, height: 1, bytesPerChannel: target.bytesPerChannel)
            let one = PixelRect<StoredPixels>(x: 0, y: 0, width: 1, height: 1)
            let coded: OutputFrame.Coded =
                output == .webp
                ? .webpPixels(pixel, lossy: false) : .png(zlib: try Self.zlib(of: pixel.raster))
            return OutputFrame(
                rect: one, duration: duration, disposal: .none, blend: .over, coded: coded,
                how: .losslessAgain)
        }
        if output == .webp {
            let x = changed.x - changed.x % 2
            let y = changed.y - changed.y % 2
            changed = PixelRect(x: x, y: y, width: changed.maxX - x, height: changed.maxY - y)
        }
        let pixels = target.cut(changed)
        let coded: OutputFrame.Coded =
            output == .webp
            ? .webpPixels(pixels, lossy: lossy) : .png(zlib: try Self.zlib(of: pixels.raster))
        return OutputFrame(
            rect: changed, duration: duration, disposal: .none, blend: .source, coded: coded,
            how: .losslessAgain)
    }

    /// The smallest rect holding every pixel `a` and `b` show differently.
    static func changedRect(_ a: AnimationCanvas, _ b: AnimationCanvas) -> PixelRect<StoredPixels>?
    {
        var x0 = Int.max
        var y0 = Int.max
        var x1 = -1
        var y1 = -1
        for y in 0..<a.height {
            for x in 0..<a.width where !a.showsSame(y * a.width + x, as: b, y * a.width + x) {
                x0 = min(x0, x)
                x1 = max(x1, x)
                y0 = min(y0, y)
                y1 = max(y1, y)
            }
        }
        guard x1 >= 0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }
}

extension PixelRect where Space == StoredPixels {
    /// The rect moved by (`dx`, `dy`).
    func offset(by dx: Int, _ dy: Int) -> PixelRect<StoredPixels> {
        PixelRect(x: x + dx, y: y + dy, width: width, height: height)
    }
}
