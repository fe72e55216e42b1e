import CropGeometry
import CropRecords
import CropTestKit

/// The export checks for WebP output: the corners fixture of the source's
/// size made as a lossless WebP, each mapping's crop written as WebP
/// through the real pipeline (lossless, as from any lossless source), then
/// checked:
///
/// - **size**: the output's size is the mapping's rect as seen (a WebP
///   crop is written upright, its EXIF orientation 1);
/// - **lossless**: every sample equals the fixture's at the stored rect,
///   turned upright;
/// - **leaks**: ``LeakCheck`` finds nothing.
public final class WebPExportVerifier: Sendable {
    /// The stored size of the fixture.
    public let sourceSize: PixelSize<StoredPixels>
    private let fixture: ImageSource
    /// The fixture's pixels, as the crops are compared with them.
    private let pixels: RasterImage

    /// The most pixels of a WebP fixture (it is held decoded, and libwebp
    /// holds it whole as it decodes).
    public static let maximumPixels = 16_000_000

    /// Makes the WebP fixture for `sourceSize`.
    ///
    /// - Throws: ``ImagingError/limitExceeded(_:limit:actual:)`` past
    ///   ``maximumPixels`` or WebP's 16383 pixels a side;
    ///   ``ImagingError/libraryMissing(library:package:)`` without libwebp.
    public init(sourceSize: PixelSize<StoredPixels>) throws(ImagingError) {
        try FixtureExport.checkPixels(of: sourceSize, maximum: Self.maximumPixels)
        guard sourceSize.width <= 16383, sourceSize.height <= 16383 else {
            throw .limitExceeded(
                .dimension, limit: 16383, actual: max(sourceSize.width, sourceSize.height))
        }
        self.sourceSize = sourceSize
        pixels = Fixture.make(.corners, width: sourceSize.width, height: sourceSize.height)
        let bytes = try WebPEncoder.encode(pixels, lossless: true, quality: 100)
        fixture = try ImageSource(ImageInput(bytes: bytes, name: "corners fixture (WebP)"))
    }

    /// The checks of `result`'s crop, written as WebP; the output's bytes
    /// go to `path` too when there is one.
    ///
    /// - Throws: ``ImagingError`` when the export or its read-back fails.
    public func check(_ result: CropResult, writingTo path: String? = nil) throws(ImagingError)
        -> [ExportCheck]
    {
        try FixtureExport.checks(
            result, of: fixture, sourceSize: sourceSize, as: .webp(WebPEncoder()), writingTo: path
        ) { output, report throws(ImagingError) in
            let expected = pixels.cropped(to: result.stored).oriented(result.orientation)
            let got = try output.decode().image
            // An opaque image is written without alpha: compared as RGBA.
            let coding = report.details(as: WebPWriteReport.self)?.coding
            let same =
                coding == "VP8L" && output.orientation == .up
                && Self.rgba(got) == Self.rgba(expected)
            return [
                ExportCheck(
                    name: "lossless", passed: same,
                    detail: same
                        ? "VP8L: every sample equals the source's at the rect, turned upright"
                        : "the crop (\(coding ?? "?")) differs from the source at the rect",
                    measured: [.init("method", coding.map { .string($0) } ?? .null)])
            ]
        }
    }

    /// 8-bit RGB or RGBA samples as RGBA (opaque where there is no alpha).
    static func rgba(_ image: RasterImage) -> [UInt8] {
        guard image.colorType == .rgb else { return image.samples }
        var out: [UInt8] = []
        out.reserveCapacity(image.width * image.height * 4)
        for pixel in 0..<(image.width * image.height) {
            out += image.samples[3 * pixel..<3 * pixel + 3]
            out.append(255)
        }
        return out
    }
}
