import CropGeometry

/// What a person asked to crop out of an image, before the image is known:
/// a region (pixels, or a view selection), the orientation to see it with,
/// the output format.
///
/// ``plan(for:)`` turns it into a ``CropPlan`` against an opened image. Every
/// command (`crop`, `batch`, `replay --export`, `verify`) goes through it,
/// so the same request gives the same pixels whichever way it came.
public struct CropJob: Sendable {
    /// Where the crop is.
    public enum Region: Sendable {
        /// Pixels of the image as the person sees it (after the orientation).
        case pixels(PixelRect<ImagePixels>)
        /// A selection in a view, mapped by the contract; the request's
        /// source size is replaced by the image's and its orientation by the
        /// job's. With an aspect, the mapped rect is snapped to it.
        case view(CropRequest, aspect: AspectChoice?)
        /// The largest rect inside the image turned by the job's angle (of
        /// this aspect, else of the largest area): a straightened crop with
        /// no fill.
        case largestInside(aspect: AspectChoice?)
    }

    /// A turn and an output size: the crop is resampled unless the angle is
    /// 0 and the size is the rect's own.
    public struct Resampling: Sendable {
        /// The straighten angle θ in degrees, positive clockwise on screen.
        public var angle: Double
        /// How the output size is chosen; `nil` for the output rect's own.
        public var size: OutputSizeRule?
        /// The filter; `nil` for ``ResamplingFilter/standard(for:)``.
        public var filter: ResamplingFilter?
        /// What shows where a sample lies outside the image.
        public var fill: FillColor
        /// Whether the output is cut to the ellipse inscribed in it (a
        /// circle for a square output): alpha outside, the exact coverage
        /// on the edge (``EllipseMask``).
        public var ellipse = false
        /// Whether a JPEG is decoded at 1/2, 1/4 or 1/8 of its size when
        /// the reduction allows (``ResamplePlan/jpegShrink(for:filter:)``).
        public var shrinksOnLoad = true

        /// No turn, no resize, the standard filter, a transparent fill.
        public init(
            angle: Double = 0, size: OutputSizeRule? = nil, filter: ResamplingFilter? = nil,
            fill: FillColor = .transparent
        ) {
            self.angle = angle
            self.size = size
            self.filter = filter
            self.fill = fill
        }
    }

    /// Where the crop is.
    public var region: Region
    /// The EXIF orientation the image is seen with; `nil` for the file's
    /// own (`.up` treats the stored pixels as upright).
    public var orientation: EXIFOrientation?
    /// The output format and its settings.
    public var format: OutputFormat
    /// Whether damaged JPEG data the decoder can step over is accepted.
    public var lenient: Bool
    /// Whether a ``Region/pixels(_:)`` rect partly outside the image is cut
    /// to the part inside it (`crop --clamp`); a rect wholly outside is
    /// still refused. View selections are always clipped by the mapping.
    public var clampsToImage = false
    /// The turn and output size (none by default: a lossless crop).
    public var resampling = Resampling()

    /// A job for `region`, seen with the file's own orientation unless
    /// `orientation` is given, written as `format`.
    public init(
        region: Region, orientation: EXIFOrientation? = nil,
        format: OutputFormat = .png(PNGEncoder(compressor: .automatic)), lenient: Bool = false
    ) {
        self.region = region
        self.orientation = orientation
        self.format = format
        self.lenient = lenient
    }

    /// The plan for cropping `source`: which stored pixels to decode, how to
    /// turn them, the output's size. Pure: nothing is decoded or written.
    ///
    /// The one rule for orientation and aspect: the image is seen with
    /// ``orientation`` (the file's own by default); a view selection is
    /// mapped against the image's stored size seen that way; an
    /// `AspectChoice.source` aspect is the image's ratio as seen.
    ///
    /// - Throws: ``CropPlanError``: the selection covers no pixel, or the
    ///   pixel rect is not inside the image.
    public func plan(for source: ImageSource) throws(CropPlanError) -> CropPlan {
        var plan = try undecidedPlan(for: source)
        // The writer decides once, here: its strategy, what the export
        // holds in memory, and its own choices, which the export carries
        // out and the report tells.
        plan.decision = plan.decide()
        return plan
    }

    /// The plan, before its writer has decided how to make it.
    private func undecidedPlan(for source: ImageSource) throws(CropPlanError) -> CropPlan {
        try format.writer.check(self, for: source)
        if let resampled = try resampledPlan(for: source) { return resampled }
        let plan = try mappedPlan(for: source)
        // A JPEG crop of a JPEG, a HEIC crop of a HEIC: lossless needs the
        // rect on the block grid (a HEIC's: its tiles).
        guard let copy = format.writer.losslessCopy(from: source) else { return plan }
        let (grid, lossless, snaps) = (copy.grid, copy.required, copy.snaps)
        let rect = plan.stored
        let imageSize = source.storedSize
        if plan.result.isLossless(blockGrid: grid) { return plan }
        let grown = rect.snapped(toBlocks: grid, within: imageSize, outward: true)
        if snaps {
            var snapped = grown
            if let aspect = plan.aspect {
                // Keep the ratio exact too, where the grid lets it.
                let seen = plan.result.orientedSize
                let asked: AspectRatio? =
                    switch aspect {
                    case .ratio(let ratio): ratio
                    case .source: AspectRatio(width: seen.width, height: seen.height)
                    }
                let turned = plan.orientation.rawValue >= 5
                guard let asked,
                    let storedRatio = turned
                        ? AspectRatio(width: asked.height, height: asked.width) : asked,
                    let exact = rect.snapped(
                        toBlocks: grid, keeping: storedRatio, within: imageSize)
                else {
                    throw .ratioNotOnBlockGrid(plan.result.rect, aspect: aspect, blockGrid: grid)
                }
                snapped = exact
            }
            return CropPlan(
                source: source, result: plan.result.withStored(snapped), request: plan.request,
                aspect: plan.aspect, format: format, lenient: lenient)
        }
        guard lossless else { return plan }
        let shrunk = rect.snapped(toBlocks: grid, within: imageSize, outward: false)
        throw .notLossless(
            plan.result.rect,
            grownOutward: plan.result.withStored(grown).rect,
            shrunkInward: shrunk.isEmpty ? nil : plan.result.withStored(shrunk).rect,
            blockGrid: grid)
    }

    /// Whether the job turns, resizes, cuts to an ellipse or picks the
    /// largest rect inside: its pixels are resampled, never copied.
    public var isResampled: Bool {
        var isLargestInside = false
        if case .largestInside = region { isLargestInside = true }
        return resampling.angle != 0 || resampling.size != nil || isLargestInside
            || resampling.ellipse
    }

    /// The plan of a turned or resized crop; `nil` when the job neither
    /// turns nor resizes, or resizes to the rect's own size (lossless).
    private func resampledPlan(for source: ImageSource) throws(CropPlanError) -> CropPlan? {
        guard isResampled else { return nil }
        let stored = source.storedSize
        let seen = orientation ?? source.orientation
        let oriented = seen.orientedSize(stored)
        var request: CropRequest?
        var aspect: AspectChoice?
        let crop: StraightenedCrop
        do throws(CropRejection) {
            let frame = try StraightenedFrame(imageSize: oriented, angle: resampling.angle)
            let rect: PixelRect<StraightenedPixels>
            switch region {
            case .pixels(let asked):
                if resampling.angle == 0 {
                    // Unturned: the rect must lie in the image, as a
                    // lossless crop's must.
                    var unturned = self
                    unturned.resampling = Resampling()
                    let plan = try? unturned.mappedPlan(for: source)
                    guard let plan else {
                        throw CropRejection.noImagePixels
                    }
                    let r = plan.result.rect
                    rect = PixelRect(x: r.x, y: r.y, width: r.width, height: r.height)
                } else {
                    rect = PixelRect(
                        x: asked.x, y: asked.y, width: asked.width, height: asked.height)
                }
            case .view(var given, let ratio):
                given.sourceSize = Size(width: Double(stored.width), height: Double(stored.height))
                given.orientation = seen
                given.angle = resampling.angle
                request = given
                aspect = ratio
                if resampling.angle == 0 {
                    let r = try given.map(aspect: ratio).rect
                    rect = PixelRect(x: r.x, y: r.y, width: r.width, height: r.height)
                } else {
                    rect = try Self.narrowed(given.straightened().rect, to: ratio, image: oriented)
                }
            case .largestInside(let ratio):
                aspect = ratio
                let exact: AspectRatio?
                switch ratio {
                case nil: exact = nil
                case .ratio(let given)?: exact = given
                case .source?: exact = AspectRatio(width: oriented.width, height: oriented.height)
                }
                guard let inside = frame.largestRectInside(aspect: exact) else {
                    throw exact.map { .aspectRatioDoesNotFit($0) } ?? .noImagePixels
                }
                rect = inside
            }
            var made = try StraightenedCrop(frame: frame, rect: rect, orientation: seen)
            if let size = resampling.size { made = try made.resized(size) }
            crop = made
        } catch {
            if case .pixels(let asked) = region, error == .noImagePixels, resampling.angle == 0 {
                throw .notInsideImage(asked, image: oriented)
            }
            throw .straightenRejected(error)
        }
        if crop.isLossless, !resampling.ellipse {
            // A size equal to the rect's own: the lossless crop of the rect.
            var lossless = self
            lossless.resampling = Resampling()
            lossless.region = .pixels(
                PixelRect(
                    x: crop.rect.x, y: crop.rect.y, width: crop.rect.width,
                    height: crop.rect.height))
            let plan = try lossless.undecidedPlan(for: source)
            return CropPlan(
                source: plan.source, result: plan.result, request: request, aspect: aspect,
                format: plan.format, lenient: plan.lenient)
        }
        // An ellipse of the rect's own pixels: each output pixel is its
        // source pixel (the sample positions are pixel centres).
        let filter =
            resampling.filter ?? (crop.isLossless ? .nearest : ResamplingFilter.standard(for: crop))
        var shrink = 1
        if source.reader.shrinksOnLoad, resampling.shrinksOnLoad {
            shrink = ResamplePlan.jpegShrink(for: crop, filter: filter)
        }
        let resample = ResamplePlan(
            crop: crop, resampler: Resampler(filter: filter, fill: resampling.fill), shrink: shrink,
            ellipse: resampling.ellipse)
        guard let read = crop.readRect(support: resample.support) else {
            throw .straightenRejected(.noImagePixels)
        }
        return CropPlan(
            source: source, result: CropResult(rect: read, orientation: seen, sourceSize: stored),
            request: request, aspect: aspect, format: format, lenient: lenient,
            resampling: resample)
    }

    /// `rect` narrowed to the exact `ratio` inside itself (the nearest-rect
    /// rule of `PixelRect.fitted(to:within:)`), or `rect` without one.
    static func narrowed(
        _ rect: PixelRect<StraightenedPixels>, to ratio: AspectChoice?,
        image: PixelSize<ImagePixels>
    ) throws(CropRejection) -> PixelRect<StraightenedPixels> {
        guard let ratio else { return rect }
        let exact: AspectRatio
        switch ratio {
        case .ratio(let given): exact = given
        case .source:
            guard let own = AspectRatio(width: image.width, height: image.height) else {
                return rect
            }
            exact = own
        }
        let local = PixelRect<StraightenedPixels>(
            x: 0, y: 0, width: rect.width, height: rect.height)
        guard let fitted = local.fitted(to: exact, within: rect.size) else {
            throw .aspectRatioDoesNotFit(exact)
        }
        return PixelRect(
            x: rect.x + fitted.x, y: rect.y + fitted.y, width: fitted.width, height: fitted.height)
    }

    /// The plan by the region alone, before a JPEG output's block rules.
    private func mappedPlan(for source: ImageSource) throws(CropPlanError) -> CropPlan {
        let stored = source.storedSize
        let seen = orientation ?? source.orientation
        switch region {
        case .pixels(let asked):
            let oriented = seen.orientedSize(stored)
            var rect = asked
            if clampsToImage, asked.width > 0, asked.height > 0 {
                let x0 = max(asked.x, 0)
                let y0 = max(asked.y, 0)
                let x1 = min(asked.maxX, oriented.width)
                let y1 = min(asked.maxY, oriented.height)
                if x1 > x0, y1 > y0 {
                    rect = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
                }
            }
            guard rect.width > 0, rect.height > 0, rect.isInside(oriented) else {
                throw .notInsideImage(rect, image: oriented)
            }
            return CropPlan(
                source: source,
                result: CropResult(rect: rect, orientation: seen, sourceSize: stored),
                request: nil, aspect: nil, format: format, lenient: lenient)
        case .view(var request, let aspect):
            request.sourceSize = Size(width: Double(stored.width), height: Double(stored.height))
            request.orientation = seen
            do throws(CropRejection) {
                let result = try request.map(aspect: aspect)
                return CropPlan(
                    source: source, result: result, request: request, aspect: aspect,
                    format: format, lenient: lenient)
            } catch {
                throw .rejected(error, request: request)
            }
        case .largestInside:
            // Only a turned job has this region (``resampledPlan(for:)``).
            throw .straightenRejected(.noImagePixels)
        }
    }
}
