/// A crop that resamples: the output rect `O` in the straightened frame,
/// the output size, and where each output pixel samples the image.
///
/// Output pixel `(i, j)` of a `W×H` output sits at
/// `p = (O.x + (i + ½)·O.w/W, O.y + (j + ½)·O.h/H)` in the frame and samples
/// the image at `q = R(−θ)(p − c) + c` (``StraightenedFrame/imagePosition(of:)``).
/// With an angle of 0 and an output size equal to `O`'s, every `q` is a pixel
/// centre and the crop is lossless (``isLossless``).
public struct StraightenedCrop: Hashable, Sendable {
    /// The turned image grid the output rect lives in.
    public let frame: StraightenedFrame
    /// The output rect `O`, in whole pixels of the frame; it may reach beyond
    /// the turned image (that part is fill).
    public let rect: PixelRect<StraightenedPixels>
    /// The output's width and height, `W×H`.
    public let outputSize: PixelSize<StraightenedPixels>
    /// The EXIF orientation that relates the image grid to the stored grid.
    public let orientation: EXIFOrientation
    /// The stored size `sw×sh`.
    public let sourceSize: PixelSize<StoredPixels>

    /// The crop of `rect` in `frame`, at `outputSize` (`rect`'s own size
    /// when `nil`).
    ///
    /// - Throws: ``CropRejection/noImagePixels`` when the rect shows none of
    ///   the image; ``CropRejection/outputTooLarge`` when the output has
    ///   more than 2⁴⁰ pixels or a side beyond 2⁵³.
    public init(
        frame: StraightenedFrame, rect: PixelRect<StraightenedPixels>,
        outputSize: PixelSize<StraightenedPixels>? = nil, orientation: EXIFOrientation = .up
    ) throws(CropRejection) {
        guard !rect.isEmpty, frame.overlapsImage(rect) else { throw .noImagePixels }
        let size = outputSize ?? rect.size
        guard size.width > 0, size.height > 0 else { throw .outputTooLarge }
        // In 64 bits on every platform, so a 32-bit build refuses the same sizes.
        let pixels = Int64(size.width).multipliedReportingOverflow(by: Int64(size.height))
        guard !pixels.overflow, pixels.partialValue <= 1 << 40 else { throw .outputTooLarge }
        self.frame = frame
        self.rect = rect
        self.outputSize = size
        self.orientation = orientation
        let seen = frame.imageSize
        self.sourceSize =
            orientation.rawValue >= 5
            ? PixelSize(width: seen.height, height: seen.width)
            : PixelSize(width: seen.width, height: seen.height)
    }

    /// Whether the output is the rect's own pixels, unchanged: no turn, the
    /// rect inside the image, and the output size equal to the rect's.
    public var isLossless: Bool {
        frame.angle == 0 && outputSize == rect.size && frame.isInside(rect)
    }

    /// The reduction across and down, `O.w / W` and `O.h / H` (above 1 when
    /// the output is smaller than the rect).
    public var reduction: (x: Double, y: Double) {
        (
            Double(rect.width) / Double(outputSize.width),
            Double(rect.height) / Double(outputSize.height)
        )
    }

    /// Where output pixel `(column, row)` sits in the frame: `p`.
    @inline(__always)
    public func framePosition(column: Int, row: Int) -> Point<StraightenedPixels> {
        Point(
            x: Double(rect.x) + (Double(column) + 0.5) * Double(rect.width)
                / Double(outputSize.width),
            y: Double(rect.y) + (Double(row) + 0.5) * Double(rect.height)
                / Double(outputSize.height))
    }

    /// Where output pixel `(column, row)` samples the image: `q`.
    @inline(__always)
    public func samplePosition(column: Int, row: Int) -> Point<ImagePixels> {
        frame.imagePosition(of: framePosition(column: column, row: row))
    }

    /// The map from output coordinates (pixel `(i, j)` has its centre at
    /// `(i + ½, j + ½)`) to image positions, as one affine transform: what a
    /// resampler such as Pillow's `Image.transform(…, AFFINE, …)` takes.
    public var sampleTransform: AffineMap<StraightenedPixels, ImagePixels> {
        let (sx, sy) = (
            Double(rect.width) / Double(outputSize.width),
            Double(rect.height) / Double(outputSize.height)
        )
        let center = frame.center
        let (c, s) = (frame.cosine, frame.sine)
        let (dx, dy) = (Double(rect.x) - center.x, Double(rect.y) - center.y)
        return AffineMap(
            a: c * sx, b: s * sy, c: -s * sx, d: c * sy,
            tx: center.x + c * dx + s * dy, ty: center.y - s * dx + c * dy)
    }

    /// The four corners of the output rect in the image (top-left,
    /// top-right, bottom-right, bottom-left as seen in the output).
    public var quad: [Point<ImagePixels>] { frame.quad(of: rect) }

    /// The image pixels a filter reaching `support` image pixels from each
    /// sample position reads (see ``StraightenedFrame/readRect(for:support:)``).
    public func readRect(support: Double) -> PixelRect<ImagePixels>? {
        frame.readRect(for: rect, support: support)
    }

    /// ``readRect(support:)`` in the stored grid: what a decoder cuts.
    public func storedReadRect(support: Double) -> PixelRect<StoredPixels>? {
        readRect(support: support).map { orientation.storedRect($0, storedSize: sourceSize) }
    }

    /// This crop at the size `rule` gives for its rect.
    ///
    /// - Throws: ``CropRejection/outputTooLarge`` when the rule gives no size.
    public func resized(_ rule: OutputSizeRule) throws(CropRejection) -> StraightenedCrop {
        guard let size = rule.outputSize(for: rect.size) else { throw .outputTooLarge }
        return try StraightenedCrop(
            frame: frame, rect: rect, outputSize: size, orientation: orientation)
    }
}

/// An affine map from the space `From` to `To`:
/// `(x, y) ↦ (a·x + b·y + tx, c·x + d·y + ty)`.
public struct AffineMap<From: CoordinateSpace, To: CoordinateSpace>: Hashable, Sendable {
    /// How `x` moves across.
    public var a: Double
    /// How `y` moves across.
    public var b: Double
    /// How `x` moves down.
    public var c: Double
    /// How `y` moves down.
    public var d: Double
    /// The move across.
    public var tx: Double
    /// The move down.
    public var ty: Double

    /// The map `(x, y) ↦ (a·x + b·y + tx, c·x + d·y + ty)`.
    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    /// `point` mapped.
    @inline(__always)
    public func apply(_ point: Point<From>) -> Point<To> {
        Point(x: a * point.x + b * point.y + tx, y: c * point.x + d * point.y + ty)
    }
}
