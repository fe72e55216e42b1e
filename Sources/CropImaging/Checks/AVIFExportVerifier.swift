import CropGeometry
import CropRecords
import CropTestKit

/// The export checks for AVIF output: the corners fixture of the source's
/// size made as an AVIF (encoded from pixels at quality 90), each mapping's
/// crop written as AVIF through the real pipeline (encoded from pixels, at
/// its exact size), then checked:
///
/// - **size**: the output's size is the mapping's rect as seen (an AVIF
///   crop from pixels is written upright);
/// - **psnr**: against the fixture's decode at the rect, turned upright,
///   at least 30 dB (reported);
/// - **leaks**: ``LeakCheck`` finds nothing.
public final class AVIFExportVerifier: Sendable {
    /// The stored size of the fixture.
    public let sourceSize: PixelSize<StoredPixels>
    private let fixture: ImageSource
    /// The fixture decoded, as the crops are compared with it.
    private let pixels: RasterImage

    /// The most pixels of an AVIF fixture (it is held decoded).
    public static let maximumPixels = 16_000_000

    /// Makes the AVIF fixture for `sourceSize`.
    ///
    /// - Throws: ``ImagingError/limitExceeded(_:limit:actual:)`` past
    ///   ``maximumPixels``; ``ImagingError/unsupported(format:detail:)``
    ///   without libheif's AV1 encoder.
    public init(sourceSize: PixelSize<StoredPixels>) throws(ImagingError) {
        try FixtureExport.checkPixels(of: sourceSize, maximum: Self.maximumPixels)
        self.sourceSize = sourceSize
        // The corners fixture is opaque: as 8-bit RGB, as JPEG's is made.
        var warnings: [String] = []
        let opaque = Fixture.make(.corners, width: sourceSize.width, height: sourceSize.height)
            .eightBitOpaque(warnings: &warnings)
        let bytes = try AVIFEncoder.encodeWhole(opaque, quality: 90, icc: nil, exif: nil, xmp: nil)
        fixture = try ImageSource(ImageInput(bytes: bytes, name: "corners fixture (AVIF)"))
        pixels = try fixture.decode().image
    }

    /// The checks of `result`'s crop, written as AVIF; the output's bytes
    /// go to `path` too when there is one.
    ///
    /// - Throws: ``ImagingError`` when the export or its read-back fails.
    public func check(_ result: CropResult, writingTo path: String? = nil) throws(ImagingError)
        -> [ExportCheck]
    {
        try FixtureExport.checks(
            result, of: fixture, sourceSize: sourceSize, as: .avif(AVIFEncoder()), writingTo: path
        ) { output, _ throws(ImagingError) in
            let expected = pixels.cropped(to: result.stored).oriented(result.orientation)
            let got = try output.decode().image
            let psnr = JPEGExportVerifier.psnr(got.samples, expected.samples)
            let text = psnr.isInfinite ? "identical" : String(format: "%.1f dB", psnr)
            return [
                ExportCheck(
                    name: "psnr", passed: psnr >= 30,
                    detail: "encoded from pixels: \(text) against the source's rect",
                    measured: [
                        .init("method", .string("encoded")), .init("reencodedBlocks", .null),
                        .init("psnrDb", ExportCheck.decibels(psnr)),
                    ])
            ]
        }
    }
}

extension AVIFExportVerifier: FormatExportVerifier {
    /// "avif".
    public static var fileExtension: String { "avif" }
    /// AVIF: its crops carry an auxiliary gain map.
    public static var companionFormat: ImageFormat { .avif }
}
