import CropGeometry
import CropRecords
import CropTestKit

/// Checks turned and resized crops of one source size, through the real
/// pipeline, against the positions the contract gives.
///
/// The fixture is a 16-bit RGB image whose stored pixel `(x, y)` holds
/// `x·scale` and `y·scale` (``scale`` as large as 16 bits allow, recorded).
/// Each crop is exported with bilinear filtering and a transparent fill,
/// read back, and checked: (a) its size is the output size; (b) every pixel
/// whose sample position `q` lies at least half a pixel inside the image
/// reads back `q` (bilinear weighing of a linear ramp is exact), within the
/// fixture's quantisation `0.5 / scale` px plus 0.01 px for the `Float`
/// sums; (c) fill pixels (alpha 0) are exactly those whose `q` lies outside
/// the image, so a crop chosen wholly inside has no transparent border.
public struct TurnedExportVerifier: Sendable {
    /// The stored size of the fixture.
    public let sourceSize: PixelSize<StoredPixels>
    /// The fixture's scale: pixel `(x, y)` holds `x·scale`, `y·scale`.
    public let scale: Int
    private let fixture: ImageSource

    /// The most pixels of a turned-check fixture (it is made whole, 6 bytes
    /// a pixel, before it is compressed).
    public static let maximumPixels = 25_000_000

    /// Makes the fixture for `sourceSize`.
    ///
    /// - Throws: ``ImagingError/limitExceeded(_:limit:actual:)`` past
    ///   ``maximumPixels`` or a side of 65536.
    public init(sourceSize: PixelSize<StoredPixels>) throws(ImagingError) {
        let (width, height) = (sourceSize.width, sourceSize.height)
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, width <= 65536, height <= 65536, !overflow,
            pixels <= Self.maximumPixels
        else {
            throw .limitExceeded(
                .fixturePixels, limit: Self.maximumPixels, actual: overflow ? Int.max : pixels)
        }
        self.sourceSize = sourceSize
        scale = 65535 / max(width - 1, height - 1, 1)
        var samples = [UInt8](repeating: 0, count: pixels * 6)
        for y in 0..<height {
            let (yHigh, yLow) = (UInt8((y * scale) >> 8), UInt8((y * scale) & 0xFF))
            var index = y * width * 6
            for x in 0..<width {
                samples[index] = UInt8((x * scale) >> 8)
                samples[index + 1] = UInt8((x * scale) & 0xFF)
                samples[index + 2] = yHigh
                samples[index + 3] = yLow
                index += 6
            }
        }
        let image = RasterImage(
            width: width, height: height, colorType: .rgb, bitDepth: 16, samples: samples)
        fixture = try ImageSource(
            ImageInput(bytes: try PNGEncoder().encode(image), name: "scaled coordinates fixture"))
    }

    /// Exports the crop `request` (with its angle) asks for, at `size`,
    /// and checks it.
    ///
    /// - Returns: The checks, or `nil` when the request has no crop (the
    ///   rejection is the mapping's to report).
    /// - Throws: ``ImagingError``.
    public func check(_ request: CropRequest, size: OutputSizeRule?) throws(ImagingError)
        -> (crop: StraightenedCrop, checks: [ExportCheck])?
    {
        var job = CropJob(region: .view(request, aspect: nil), orientation: request.orientation)
        job.resampling = CropJob.Resampling(
            angle: request.angle, size: size, filter: .bilinear, fill: .transparent)
        let plan: CropPlan
        do throws(CropPlanError) {
            plan = try job.plan(for: fixture)
        } catch {
            return nil
        }
        guard let crop = plan.resampling?.crop else {
            // No turn and no other size: the lossless crop, checked by the
            // lossless verifier.
            return nil
        }
        let sink = MemorySink()
        _ = try plan.export(to: sink)
        let output = try ImageSource(ImageInput(bytes: sink.bytes)).decode().image
        let expected = crop.outputSize
        var checks = [
            ExportCheck(
                name: "size",
                passed: output.width == expected.width && output.height == expected.height,
                detail: "\(output.width)x\(output.height), the output size is \(expected)",
                measured: [
                    .init("exported", ExportCheck.size(output.width, output.height)),
                    .init("mapped", ExportCheck.size(expected.width, expected.height)),
                ])
        ]
        guard checks[0].passed else { return (crop, checks) }
        let seen = crop.frame.imageSize
        let (sw, sh) = (Double(sourceSize.width), Double(sourceSize.height))
        let orientation = crop.orientation
        /// The stored position an image position shows.
        func stored(_ q: Point<ImagePixels>) -> (Double, Double) {
            switch orientation {
            case .up: (q.x, q.y)
            case .upMirrored: (sw - q.x, q.y)
            case .down: (sw - q.x, sh - q.y)
            case .downMirrored: (q.x, sh - q.y)
            case .leftMirrored: (q.y, q.x)
            case .right: (q.y, sh - q.x)
            case .rightMirrored: (sw - q.y, sh - q.x)
            case .left: (sw - q.y, q.x)
            }
        }
        let hasAlpha = output.colorType == .rgba
        let tolerance = 0.5 / Double(scale) + 0.01
        var worst = 0.0
        var read = 0
        var misplaced = 0
        var wrongFill = 0
        var filled = 0
        for row in 0..<output.height {
            for column in 0..<output.width {
                let q = crop.samplePosition(column: column, row: row)
                let inside =
                    q.x >= 0 && q.y >= 0 && q.x <= Double(seen.width)
                    && q.y <= Double(seen.height)
                let alpha = hasAlpha ? output.sample(x: column, y: row, channel: 3) : 65535
                if !inside {
                    filled += 1
                    if alpha != 0 { wrongFill += 1 }
                    continue
                }
                if alpha != 65535 { wrongFill += 1 }
                guard q.x >= 0.5, q.y >= 0.5, q.x <= Double(seen.width) - 0.5,
                    q.y <= Double(seen.height) - 0.5
                else { continue }
                let (sx, sy) = stored(q)
                let error = max(
                    abs(
                        Double(output.sample(x: column, y: row, channel: 0)) / Double(scale)
                            - (sx - 0.5)),
                    abs(
                        Double(output.sample(x: column, y: row, channel: 1)) / Double(scale)
                            - (sy - 0.5)))
                worst = max(worst, error)
                if error > tolerance { misplaced += 1 }
                read += 1
            }
        }
        checks.append(
            ExportCheck(
                name: "sample positions", passed: misplaced == 0,
                detail:
                    "\(read) interior pixel(s) read back their sample position; largest error \(String(format: "%.4f", worst)) px (tolerance \(String(format: "%.4f", tolerance)): the fixture's 1/\(scale) px steps); \(misplaced) beyond it",
                measured: [
                    .init("pixelsRead", .number(read)),
                    .init("largestErrorPx", .number((worst * 10000).rounded() / 10000)),
                    .init("tolerancePx", .number((tolerance * 10000).rounded() / 10000)),
                    .init("fixtureScale", .number(scale)), .init("misplaced", .number(misplaced)),
                ]))
        checks.append(
            ExportCheck(
                name: "fill", passed: wrongFill == 0,
                detail:
                    "\(filled) pixel(s) sample outside the image and are transparent; \(wrongFill) pixel(s) where fill and image disagree",
                measured: [
                    .init("outsidePixels", .number(filled)),
                    .init("wrongPixels", .number(wrongFill)),
                ]))
        return (crop, checks)
    }
}
