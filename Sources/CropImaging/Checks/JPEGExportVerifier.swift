import CropGeometry
import CropRecords
import CropTestKit
import Foundation

/// The export checks for JPEG output: a fixture of the source's size made as
/// a JPEG (the corners fixture, 4:2:0, quality 95), each mapping's crop
/// written as JPEG through the real pipeline, then checked:
///
/// - **size**: the output's stored size is the mapping's stored rect (a
///   JPEG crop keeps the stored grid and its orientation tag);
/// - **pixels**: where the crop is lossless, decoded with plain chroma
///   replication and the integer IDCT it equals the fixture at the rect, bit
///   for bit; where it was re-encoded, its PSNR against the fixture's rect
///   is reported and must reach 30 dB;
/// - **corner markers**: each corner's marker colour appears (within a
///   JPEG's tolerance) where the crop overlaps it, and nowhere else;
/// - **leaks**: ``LeakCheck`` finds nothing.
public final class JPEGExportVerifier: Sendable {
    /// The stored size of the fixture.
    public let sourceSize: PixelSize<StoredPixels>
    private let fixture: ImageSource
    /// The fixture, decoded as the crops are compared with it.
    private let plain: RasterImage
    private let fancy: RasterImage

    /// The most pixels of a JPEG fixture (it is held decoded, twice).
    public static let maximumPixels = 16_000_000

    /// Makes the JPEG fixture for `sourceSize`.
    ///
    /// - Throws: ``ImagingError/limitExceeded(_:limit:actual:)`` past
    ///   ``maximumPixels``.
    public init(sourceSize: PixelSize<StoredPixels>) throws(ImagingError) {
        try FixtureExport.checkPixels(of: sourceSize, maximum: Self.maximumPixels)
        // JPEG's 65535 a side is past 16 MP's reach unless the other side
        // is tiny: the same refusal.
        guard sourceSize.width <= 65535, sourceSize.height <= 65535 else {
            throw .limitExceeded(
                .fixturePixels, limit: Self.maximumPixels,
                actual: sourceSize.width * sourceSize.height)
        }
        self.sourceSize = sourceSize
        var warnings: [String] = []
        let corners = Fixture.make(.corners, width: sourceSize.width, height: sourceSize.height)
            .eightBitOpaque(warnings: &warnings)
        let bytes = try JPEGEncoder.encoded(
            corners, quality: 95, horizontal: [2, 1, 1], vertical: [2, 1, 1])
        fixture = try ImageSource(ImageInput(bytes: bytes, name: "corners fixture (JPEG)"))
        plain = try fixture.decodePlainJPEG().image
        fancy = try fixture.decode().image
    }

    /// The checks of `result`'s crop, written as JPEG; the output's bytes
    /// go to `path` too when there is one.
    ///
    /// - Throws: ``ImagingError`` when the export or its read-back fails.
    public func check(_ result: CropResult, writingTo path: String? = nil) throws(ImagingError)
        -> [ExportCheck]
    {
        let stored = result.stored
        // A JPEG crop keeps the stored grid and its orientation tag.
        func storedSize(_ output: ImageSource, _: CropResult) -> ExportCheck {
            let size = output.storedSize
            return ExportCheck(
                name: "size", passed: size == stored.size,
                detail:
                    "stored \(size.width)x\(size.height), mapped \(stored.width)x\(stored.height)",
                measured: [
                    .init("stored", ExportCheck.size(size.width, size.height)),
                    .init("mapped", ExportCheck.size(stored.width, stored.height)),
                ])
        }
        return try FixtureExport.checks(
            result, of: fixture, sourceSize: sourceSize, as: .jpeg(JPEGEncoder()), writingTo: path,
            size: storedSize
        ) { output, report throws(ImagingError) in
            let jpeg = report.details(as: JPEGWriteReport.self)
            let method = jpeg?.method ?? .reencoded
            var checks: [ExportCheck] = []
            if method == .lossless {
                let got = try output.decodePlainJPEG().image
                let same = got.samples == Self.cut(plain, stored)
                checks.append(
                    ExportCheck(
                        name: "lossless", passed: same,
                        detail: same
                            ? "every block copied: decoded plainly, every pixel equals the source's"
                            : "decoded plainly, the crop differs from the source at the rect",
                        measured: [.init("method", .string(method.rawValue))]))
            } else {
                let got = try output.decode().image
                let psnr = Self.psnr(got.samples, Self.cut(fancy, stored))
                let text = psnr.isInfinite ? "identical" : String(format: "%.1f dB", psnr)
                let edges =
                    method == .losslessEdgesReencoded
                    ? " (\(jpeg?.reencodedBlocks ?? 0) edge blocks)" : ""
                checks.append(
                    ExportCheck(
                        name: "psnr", passed: psnr >= 30,
                        detail: "\(method.rawValue)\(edges): \(text) against the source's rect",
                        measured: [
                            .init("method", .string(method.rawValue)),
                            .init(
                                "reencodedBlocks",
                                method == .losslessEdgesReencoded
                                    ? .number(jpeg?.reencodedBlocks ?? 0) : .null),
                            .init("psnrDb", ExportCheck.decibels(psnr)),
                        ]))
            }
            checks.append(try markers(output, stored: stored))
            return checks
        }
    }

    /// The stored rect of an 8-bit RGB image, as packed samples.
    static func cut(_ image: RasterImage, _ rect: PixelRect<StoredPixels>) -> [UInt8] {
        let channels = image.colorType.channels
        var out: [UInt8] = []
        out.reserveCapacity(rect.width * rect.height * channels)
        for y in rect.y..<rect.maxY {
            let start = (y * image.width + rect.x) * channels
            out += image.samples[start..<start + rect.width * channels]
        }
        return out
    }

    /// The peak signal-to-noise ratio of `a` against `b`, in dB (infinite
    /// when they are equal).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var sum = 0.0
        for i in 0..<a.count {
            let d = Double(Int(a[i]) - Int(b[i]))
            sum += d * d
        }
        guard sum > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (sum / Double(a.count)))
    }

    /// Each corner's marker colour, within a JPEG's tolerance, where the
    /// crop overlaps the marker (most of those pixels) and nowhere else
    /// (hardly a pixel: edges blur).
    private func markers(_ output: ImageSource, stored: PixelRect<StoredPixels>)
        throws(ImagingError)
        -> ExportCheck
    {
        let image = try output.decode().image
        let markers = FixturePattern.corners.markers(sourceSize)
        // One pass: how many pixels lie near each marker's colour.
        var counts = [Int](repeating: 0, count: markers.count)
        image.samples.withUnsafeBufferPointer { samples in
            for pixel in 0..<(image.width * image.height) {
                let (r, g, b) = (
                    Int(samples[3 * pixel]), Int(samples[3 * pixel + 1]),
                    Int(samples[3 * pixel + 2])
                )
                for (k, marker) in markers.enumerated() {
                    let color = marker.color
                    if abs(r - Int(color[0])) <= 48 && abs(g - Int(color[1])) <= 48
                        && abs(b - Int(color[2])) <= 48
                    {
                        counts[k] += 1
                    }
                }
            }
        }
        var problems: [String] = []
        var counted: [JSONValue] = []
        for (k, marker) in markers.enumerated() {
            let (w, h) = marker.rect.overlapSides(with: stored)
            let overlap = w * h
            let count = counts[k]
            let blur = 2 * (w + h) * 3
            if overlap == 0 ? count > 0 : (count < overlap - blur || count > overlap + blur) {
                problems.append(
                    "\(marker.name) marker: \(count) pixels near its colour, expected about \(overlap)"
                )
            }
            counted.append(
                .object([
                    .init("marker", .string(marker.name)), .init("pixels", .number(count)),
                    .init("expected", .number(overlap)), .init("tolerance", .number(blur)),
                ]))
        }
        return .cornerMarkers(
            problems: problems,
            measured: [.init("markers", .array(counted)), .init("wrongCorner", .null)])
    }
}
