/// The stages between the resampler and a JPEG encoder, a row at a time:
/// rendered rows cut to the output's inscribed ellipse (``CropStage/mask``)
/// and brought to 8-bit gray or RGB on white (``CropStage/flatten``).
///
/// Pixel for pixel what ``RasterImage/maskedByEllipse()`` and then
/// ``RasterImage/eightBitOpaque(warnings:)`` make of the whole output, so
/// that an output cut to an ellipse, or rendered from alpha or 16-bit
/// samples, is streamed like any other (the whole output is never held).
struct JPEGBandFlattener {
    /// The output's size: the ellipse is inscribed in it.
    let width: Int
    let height: Int
    /// The rendered rows' colour type (direct colour) and whether their
    /// samples are 16-bit.
    let colorType: ColorType
    let wide: Bool
    /// Whether the output is cut to its inscribed ellipse.
    let ellipse: Bool
    /// Pixels that were not opaque, so far.
    private(set) var translucent = 0

    init(width: Int, height: Int, colorType: ColorType, wide: Bool, ellipse: Bool) {
        self.width = width
        self.height = height
        self.colorType = colorType
        self.wide = wide
        self.ellipse = ellipse
    }

    private var hasAlpha: Bool { colorType == .grayAlpha || colorType == .rgba }
    private var colorChannels: Int { colorType.channels - (hasAlpha ? 1 : 0) }

    /// Whether the rendered rows are already what the encoder takes (8-bit
    /// gray or RGB, no ellipse): the resampler then renders into the
    /// encoder's ring itself.
    var passesRowsThrough: Bool { !ellipse && !wide && !hasAlpha }
    /// The samples a flattened pixel has: 1 (gray) or 3 (RGB).
    var outputChannels: Int { colorChannels }
    /// The bytes of one rendered row.
    var renderedRowBytes: Int { width * colorType.channels * (wide ? 2 : 1) }

    /// Output row `row`, rendered at `rendered`, masked and flattened into
    /// `output` (`width × outputChannels` bytes).
    mutating func flatten(
        row: Int, from rendered: UnsafePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>
    ) {
        let maximum = wide ? 65535 : 255
        let channels = colorType.channels
        let colors = colorChannels
        @inline(__always) func sample(_ index: Int) -> Int {
            wide
                ? Int(rendered[2 * index]) << 8 | Int(rendered[2 * index + 1])
                : Int(rendered[index])
        }
        let quarterY = min(row, height - 1 - row)
        for x in 0..<width {
            let first = x * channels
            var alpha = hasAlpha ? sample(first + colors) : maximum
            if ellipse {
                // As maskedByEllipse: the coverage is symmetric about both
                // axes, and multiplies the alpha at the rendered depth.
                let covered = EllipseMask.coverage(
                    x: min(x, width - 1 - x), y: quarterY, width: width, height: height)
                alpha = Int((Double(alpha) * covered).rounded())
            }
            let opacity = RasterImage.eightBits(alpha, wide: wide)
            if opacity < 255 { translucent += 1 }
            for channel in 0..<colors {
                output[x * colors + channel] = RasterImage.onWhite(
                    RasterImage.eightBits(sample(first + channel), wide: wide), opacity: opacity)
            }
        }
    }

}
