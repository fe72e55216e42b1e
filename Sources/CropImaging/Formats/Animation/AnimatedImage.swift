import CropGeometry

/// An animated image opened once: a GIF, an APNG or an animated WebP, its
/// timeline read (``animation``) and nothing decoded.
///
/// ```swift
/// if let animated = try AnimatedImage.open(path: "sticker.gif") {
///     let crop = PixelRect<StoredPixels>(x: 8, y: 8, width: 32, height: 16)
///     let report = try animated.write(crop, as: .gif, to: "crop.gif")
///     print(report.summary)
/// }
/// ```
public struct AnimatedImage: Sendable {
    /// The bytes.
    public let input: ImageInput
    /// The timeline as the container stores it.
    public let animation: Animation
    /// The limits the container was checked against, and a crop keeps to.
    public let limits: DecodeLimits
    /// The inflater an APNG's frames are decoded with (as
    /// ``ImageSource/inflater``).
    public var inflater: Inflater = .automatic

    /// Opens the file at `path` as an animation; `nil` when it is a still
    /// image (a PNG without acTL, a WebP without animation, a JPEG, a HEIF).
    /// A GIF is always an animation, of one frame or more.
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read or its
    ///   animation is refused.
    public static func open(path: String, limits: DecodeLimits = .standard) throws(ImagingError)
        -> AnimatedImage?
    {
        try AnimatedImage(ImageInput(path: path), limits: limits)
    }

    /// Reads the animation in `input`; `nil` for a still image.
    ///
    /// - Throws: ``ImagingError``.
    public init?(_ input: ImageInput, limits: DecodeLimits = .standard) throws(ImagingError) {
        try self.init(input, limits: limits, reading: .crop)
    }

    /// Reads the animation in `input` for a crop, or for a leak check,
    /// which keeps frames beyond the canvas to report them.
    init?(_ input: ImageInput, limits: DecodeLimits, reading: AnimationReading)
        throws(ImagingError)
    {
        var head = [UInt8](repeating: 0, count: 32)
        let got = try head.withUnsafeMutableBufferPointer { buffer throws(ImagingError) in
            try input.read(at: 0, into: buffer)
        }
        head = Array(head.prefix(got))
        if GIFContainer.matches(head) {
            animation = try GIFContainer.read(input, limits: limits, reading: reading)
        } else if AnimatedWebPContainer.matches(head) {
            animation = try AnimatedWebPContainer.read(input, limits: limits, reading: reading)
        } else if head.starts(with: [137, 80, 78, 71, 13, 10, 26, 10]) {
            let info = try PNGFileInfo.read(input, limits: limits, deferringDataCRCs: true)
            guard APNGContainer.isAnimated(info),
                let read = try APNGContainer.read(
                    input, info: info, limits: limits, reading: reading)
            else { return nil }
            animation = read
        } else {
            return nil
        }
        self.input = input
        self.limits = limits
    }

    /// The canvas's size.
    public var size: PixelSize<StoredPixels> { animation.canvas }

    /// The animation's format as a crop's report names it: "gif", "apng"
    /// or "webp".
    public var formatName: String {
        animation.format == .png ? "apng" : animation.format.rawValue
    }

    /// The displayed canvases, in order, as 8-bit (or, for a 16-bit APNG,
    /// 16-bit) RGBA images: what a player shows during each frame's
    /// duration. One canvas and one frame are held at a time.
    public var displayedFrames: DisplayedFrames { DisplayedFrames(image: self) }

    /// The still image of displayed frame `index` (0-based) as a source a
    /// still crop takes (``CropJob/plan(for:)``): any output format, any
    /// option.
    ///
    /// - Throws: ``ImagingError``; ``ImagingError/unsupported(format:detail:)``
    ///   for a frame the animation does not have.
    public func frame(_ index: Int) throws(ImagingError) -> ImageSource {
        guard index >= 0, index < animation.frames.count else {
            throw .unsupported(
                format: animation.format,
                detail:
                    "there is no frame \(index): the animation has \(animation.frames.count) (0 to \(animation.frames.count - 1))"
            )
        }
        var frames = displayedFrames.makeIterator()
        var image: RasterImage?
        for _ in 0...index { image = try frames.nextFrame() }
        guard let image else {
            throw .corrupt(format: animation.format, detail: "frame \(index) ended early")
        }
        let bytes = try PNGEncoder(threads: 1).encode(image)
        return try ImageSource(
            ImageInput(bytes: bytes, name: "\(input.name) frame \(index)"), limits: limits)
    }

    /// The animation format a crop writes into an output whose still
    /// format is named `name` ("png" is APNG, "webp", "gif"); `nil` for a
    /// format that holds no animation.
    public static func outputFormat(named name: String) -> ImageFormat? {
        switch name {
        case "gif": .gif
        case "png", "apng": .png
        case "webp": .webp
        default: nil
        }
    }

    /// Checks that cropping `rect` stays within the limits: the work (the
    /// frames' areas and the crop's once a frame) and the memory (a canvas,
    /// its saved part, a frame, the crop's canvases).
    ///
    /// - Throws: ``ImagingError``.
    public func checkCrop(_ rect: PixelRect<StoredPixels>) throws(ImagingError) {
        try CropImaging.checkCrop(rect, inside: animation.canvas)
        let frameArea = animation.frames.reduce(0) { $0 + $1.rect.width * $1.rect.height }
        let (perFrame, overflow) = (rect.width * rect.height).multipliedReportingOverflow(
            by: animation.frames.count)
        let work = overflow ? Int.max : frameArea + perFrame
        guard work <= limits.maxAnimationPixels else {
            throw .limitExceeded(.animationPixels, limit: limits.maxAnimationPixels, actual: work)
        }
        try memoryNeed(rect).check(limits)
    }

    /// What a crop of `rect` holds at once.
    public func memoryNeed(_ rect: PixelRect<StoredPixels>) -> MemoryNeed {
        let bytes = animation.bitDepth == 16 ? 8 : 4
        let canvas = animation.canvas.width * animation.canvas.height * bytes
        let largest = animation.largestFrameArea
        var need = MemoryNeed()
        need.add(canvas, "the canvas")
        need.add(canvas, "the part a frame disposed to previous restores")
        need.add(largest * (bytes + 1), "the largest frame decoded")
        need.add(
            rect.width * rect.height * bytes * 3, "the crop's shown, target and written canvases")
        let ahead = AnimationCropper.framesAhead(animation) - 1
        need.add(ahead * largest * (bytes + 1), "the frames decoded ahead on other cores")
        need.add(ahead * rect.width * rect.height * bytes, "the frames coded side by side")
        return need
    }

    /// Crops every frame to `rect` (canvas pixels) and writes the
    /// animation in `format` (``ImageFormat/gif``, ``ImageFormat/png`` for
    /// APNG, ``ImageFormat/webp``) to `sink`.
    ///
    /// - Throws: ``ImagingError``; a conversion the output cannot hold
    ///   exactly (more than 256 colours a GIF frame, partial transparency
    ///   in GIF, a duration GIF or WebP cannot store) is refused, naming the
    ///   frame.
    public func crop(
        _ rect: PixelRect<StoredPixels>, as format: ImageFormat, to sink: some ByteSink
    ) throws(ImagingError) -> AnimationCropReport {
        try checkOutput(format, size: rect.size)
        try checkCrop(rect)
        var cropper = AnimationCropper(
            animation: animation, input: input, limits: limits, rect: rect, output: format)
        cropper.inflater = inflater
        let outcome = try cropper.write(to: sink)
        return AnimationCropReport(
            format: format, size: rect.size, frames: animation.frames.count, plays: animation.plays,
            totalMilliseconds: animation.totalMilliseconds, copied: outcome.copied,
            losslessAgain: outcome.losslessAgain, lossyAgain: outcome.lossyAgain,
            fromCanvas: outcome.fromCanvas, bytes: outcome.bytes, coding: outcome.colorType,
            droppedMetadata: droppedEntries(into: format), warnings: animation.warnings)
    }

    /// Refuses an output `format` that cannot hold this animation exactly
    /// at `size`: a still format, 16-bit samples outside APNG, durations
    /// WebP cannot store, a WebP canvas over 16384 pixels a side.
    func checkOutput(_ format: ImageFormat, size: PixelSize<StoredPixels>) throws(ImagingError) {
        guard [.gif, .png, .webp].contains(format) else {
            throw .unsupported(
                format: format,
                detail:
                    "\(format.name) holds no animation: choose one frame (--frame N), or write GIF, APNG (.png) or WebP"
            )
        }
        if animation.bitDepth == 16 && format != .png {
            throw .unsupported(
                format: format,
                detail:
                    "the APNG has 16-bit samples and \(format.name) holds 8: crop into APNG (.png) to keep them"
            )
        }
        if format == .webp {
            for (index, frame) in animation.frames.enumerated()
            where !frame.duration.isWhole(in: 1000) {
                throw .unsupported(
                    format: .webp,
                    detail:
                        "frame \(index) is shown for \(frame.duration), not a whole number of milliseconds, which is all WebP stores; crop into APNG to keep it exact"
                )
            }
            guard size.width <= 16384, size.height <= 16384 else {
                throw .unsupported(
                    format: .webp, detail: "an animated WebP is at most 16384 pixels a side")
            }
        }
    }

    /// ``crop(_:as:to:)-(PixelRect<StoredPixels>,_,_)`` into a file at `path`, written atomically.
    ///
    /// - Throws: ``ImagingError``; on any error no output is left.
    public func write(
        _ rect: PixelRect<StoredPixels>, as format: ImageFormat, to path: String,
        replacing: Bool = false
    ) throws(ImagingError) -> AnimationCropReport {
        let writer = try AtomicFile.Writer(path: path, replacing: replacing, protecting: input)
        var report = try crop(rect, as: format, to: writer)
        try writer.commit()
        report.output = path
        return report
    }

    /// The metadata a crop into `format` drops, as dropped entries.
    func droppedEntries(into format: ImageFormat) -> [MetadataEntry] {
        droppedMetadataItems(into: format).map {
            MetadataEntry(segment: $0.what, action: .dropped, reason: $0.reason)
        }
    }

    /// The metadata a crop into `format` drops (``droppedEntries(into:)``):
    /// what and why.
    func droppedMetadataItems(into format: ImageFormat) -> [(what: String, reason: String)] {
        var dropped: [(what: String, reason: String)] = []
        switch animation.details {
        case .gif(let details):
            for (name, _) in details.applicationExtensions {
                dropped.append(
                    ("application extension \(name)", "it may describe the whole picture"))
            }
            if details.comments > 0 {
                dropped.append(
                    ("\(details.comments) comment or plain-text extension(s)", "not carried"))
            }
        case .png(let details):
            for type in details.otherChunks {
                dropped.append(("\(type) chunk", "an animation carries its colour chunks only"))
            }
        case .webp(let details):
            if details.exif != nil {
                dropped.append(("EXIF chunk", "it describes the whole picture"))
            }
            if details.xmp != nil {
                dropped.append(("XMP chunk", "it describes the whole picture"))
            }
            if details.icc != nil && format != .webp {
                dropped.append(("ICCP chunk", "not carried into \(format.name)"))
            }
        }
        return dropped
    }
}

/// What a crop of an animation wrote.
public struct AnimationCropReport: Sendable {
    /// The output format.
    public var format: ImageFormat
    /// The output canvas.
    public var size: PixelSize<StoredPixels>
    /// Frames written (as many as the source has).
    public var frames: Int
    /// Plays, 0 for forever.
    public var plays: Int
    /// The summed duration in milliseconds.
    public var totalMilliseconds: Int
    /// Frames whose coded data was copied.
    public var copied: Int
    /// Frames coded again losslessly (cut, or a 1x1 no-op frame).
    public var losslessAgain: Int
    /// Frames coded again lossy (a lossy WebP frame cut).
    public var lossyAgain: Int
    /// Frames written from the displayed canvas rather than their own pixels.
    public var fromCanvas: Int
    /// The output's size in bytes.
    public var bytes: Int
    /// How its pixels are held ("palette (the source's colour tables)").
    public var coding: String
    /// Metadata not carried, each a dropped entry with why.
    public var droppedMetadata: [MetadataEntry]
    /// Metadata not carried, with why: "EXIF chunk: it describes the whole
    /// picture".
    public var dropped: [String] { droppedMetadata.map { "\($0.segment): \($0.reason)" } }
    /// Problems reading the source that did not stop the crop.
    public var warnings: [String]
    /// The file written, or `nil` for another sink.
    public var output: String?

    /// The output's short name: "gif", "apng" or "webp".
    public var formatName: String { format == .png ? "apng" : format.rawValue }

    /// "GIF animation, 42 frames, loops forever, 2520 ms: 30 frames copied,
    /// 12 encoded again losslessly".
    public var summary: String {
        let name = format == .png ? "APNG" : format.name
        let loop = plays == 0 ? "loops forever" : plays == 1 ? "plays once" : "plays \(plays) times"
        var parts: [String] = []
        if copied > 0 { parts.append("\(copied) copied") }
        if losslessAgain > 0 { parts.append("\(losslessAgain) encoded again losslessly") }
        if lossyAgain > 0 { parts.append("\(lossyAgain) encoded again lossy") }
        return
            "\(name) animation, \(frames) frame\(frames == 1 ? "" : "s"), \(loop), \(totalMilliseconds) ms: \(parts.joined(separator: ", "))"
    }
}

/// The displayed canvases of an animation, in order.
public struct DisplayedFrames: Sequence {
    let image: AnimatedImage

    /// An iterator decoding one frame at a time.
    public func makeIterator() -> Iterator { Iterator(image: image) }

    /// Decodes and composites frame after frame.
    public struct Iterator: IteratorProtocol {
        let image: AnimatedImage
        private var index = 0
        private var compositor: AnimationCompositor
        /// The error that ended the sequence, if one did.
        public private(set) var error: ImagingError?

        init(image: AnimatedImage) {
            self.image = image
            compositor = AnimationCompositor(image.animation)
        }

        /// The next displayed canvas, or `nil` after the last (or an error,
        /// kept in ``error``).
        public mutating func next() -> RasterImage? {
            do { return try nextFrame() } catch {
                self.error = error
                return nil
            }
        }

        /// The next displayed canvas, or `nil` after the last.
        ///
        /// - Throws: ``ImagingError``.
        public mutating func nextFrame() throws(ImagingError) -> RasterImage? {
            guard index < image.animation.frames.count else { return nil }
            let decoder = AnimationFrameDecoder(
                animation: image.animation, input: image.input, limits: image.limits,
                inflater: image.inflater)
            compositor.dispose()
            compositor.draw(index, pixels: try decoder.decode(index).rgba)
            index += 1
            return compositor.canvas.raster
        }
    }
}

/// The limits an animation is checked against when it is read.
enum AnimationLimits {
    static func check(_ animation: Animation, limits: DecodeLimits) throws(ImagingError) {
        guard animation.frames.count <= limits.maxFrames else {
            throw .limitExceeded(.frames, limit: limits.maxFrames, actual: animation.frames.count)
        }
        let area = animation.frames.reduce(0) { $0 + $1.rect.width * $1.rect.height }
        guard area <= limits.maxAnimationPixels else {
            throw .limitExceeded(.animationPixels, limit: limits.maxAnimationPixels, actual: area)
        }
    }
}

extension AnimatedImage {
    /// The canvas rect `job` selects: its pixel rect, or its view selection
    /// mapped against the canvas (orientation 1: animations carry none),
    /// with its aspect ratio, exactly as for a still.
    ///
    /// - Throws: ``CropPlanError`` as ``CropJob/plan(for:)`` does;
    ///   ``CropPlanError/unsupportedOutput(_:)`` for a turned, resized or
    ///   circled crop, which ``resampling(for:)`` plans.
    public func rect(for job: CropJob) throws(CropPlanError) -> PixelRect<StoredPixels> {
        var planning = job
        planning.format = .png(PNGEncoder(threads: 1))
        guard !planning.isResampled else {
            throw .unsupportedOutput(
                "a turned, resized or circled crop of an animation is planned by resampling(for:)"
            )
        }
        return try planning.plan(for: try standIn()).stored
    }

    /// A PNG header of the canvas's size, with no pixels: planning reads
    /// none.
    func standIn() throws(CropPlanError) -> ImageSource {
        var file: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        var ihdr: [UInt8] = []
        ihdr.appendBigEndian(UInt32(size.width))
        ihdr.appendBigEndian(UInt32(size.height))
        ihdr += [8, 6, 0, 0, 0]
        appendChunk("IHDR", ihdr, to: &file)
        appendChunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01], to: &file)
        appendChunk("IEND", [UInt8](), to: &file)
        do {
            return try ImageSource(ImageInput(bytes: file, name: input.name), limits: limits)
        } catch {
            throw .unsupportedOutput("the canvas \(size) cannot be planned: \(error)")
        }
    }
}
