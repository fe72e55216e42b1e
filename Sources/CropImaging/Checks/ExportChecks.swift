import CropGeometry
import CropTestKit

/// The article's export checks on crops of the fixtures held in memory:
/// CropTestKit's `ExportInspection` (the one implementation of the
/// checks) fed the rows of a ``RasterImage``. Pixels are compared, never
/// file bytes.
public enum ExportChecks {
    /// (a) The exported width and height equal the mapping's result.
    public static func size(of output: RasterImage, equals expected: PixelRect<ImagePixels>)
        -> ExportCheck
    {
        ExportInspection.size(
            width: output.width, height: output.height,
            expected: (expected.width, expected.height))
    }

    /// (b) Each corner marker of the corners fixture appears in the crop
    /// exactly as often as the crop's stored rect overlaps it (a
    /// bottom-right crop holds no top-left marker, and no marker is
    /// shifted), and the crop's corners show the fixture pixels behind
    /// them.
    ///
    /// - Parameters:
    ///   - output: The exported crop (8-bit RGBA, oriented as exported).
    ///   - stored: The crop's rect in the stored fixture.
    ///   - sourceSize: The fixture's stored size.
    ///   - orientation: The orientation the crop was turned upright by.
    public static func cornerMarkers(
        in output: RasterImage, stored: PixelRect<StoredPixels>,
        sourceSize: PixelSize<StoredPixels>,
        orientation: EXIFOrientation = .up
    ) -> ExportCheck {
        precondition(
            output.colorType == .rgba && output.bitDepth == 8, "the corners fixture is 8-bit RGBA")
        return inspect(
            output, pattern: .corners, fixtureSize: sourceSize, stored: stored,
            orientation: orientation
        ).cornerMarkers
    }

    /// (c) No transparent pixel anywhere, border included: the fixture is
    /// opaque, so an export that pads or resamples shows up here.
    public static func noTransparentPixels(in output: RasterImage) -> ExportCheck {
        let channels = output.colorType.channels
        let sampleBytes = output.bitDepth == 16 ? 2 : 1
        let hasAlpha = output.colorType == .rgba || output.colorType == .grayAlpha
        var opacity = OpacityCount(
            bytesPerPixel: channels * sampleBytes,
            alpha: hasAlpha ? ((channels - 1) * sampleBytes, sampleBytes) : nil)
        forEachRow(of: output) { opacity.add(row: $1, y: $0, width: output.width) }
        return opacity.check
    }

    /// (d) With the coordinates fixture, the exported pixel the person sees at
    /// `(i, j)` is the source pixel at the matching stored position: for
    /// orientation 1, `(x+i, y+j)`.
    public static func coordinates(
        in output: RasterImage, stored: PixelRect<StoredPixels>, orientation: EXIFOrientation
    ) -> ExportCheck {
        precondition(
            output.colorType == .rgb && output.bitDepth == 16,
            "the coordinates fixture is 16-bit RGB")
        // The coordinates pattern is the same at any fixture size.
        return inspect(
            output, pattern: .coordinates,
            fixtureSize: PixelSize(width: stored.maxX, height: stored.maxY), stored: stored,
            orientation: orientation
        ).coordinates
    }

    /// `output` inspected as the `stored` crop of the `pattern` fixture.
    private static func inspect(
        _ output: RasterImage, pattern: FixturePattern, fixtureSize: PixelSize<StoredPixels>,
        stored: PixelRect<StoredPixels>, orientation: EXIFOrientation
    ) -> ExportInspection {
        var inspection = ExportInspection(
            pattern: pattern, fixtureSize: fixtureSize, crop: stored, orientation: orientation,
            outputWidth: output.width, outputHeight: output.height)
        forEachRow(of: output) { inspection.add(row: $1, y: $0) }
        return inspection
    }

    /// Hands each row of `image` (as many as its samples hold) to `body`.
    private static func forEachRow(
        of image: RasterImage, _ body: (Int, UnsafePointer<UInt8>) -> Void
    ) {
        let rowBytes = image.width * image.bytesPerPixel
        guard rowBytes > 0 else { return }
        image.samples.withUnsafeBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            for y in 0..<min(image.height, samples.count / rowBytes) {
                body(y, base + y * rowBytes)
            }
        }
    }
}
