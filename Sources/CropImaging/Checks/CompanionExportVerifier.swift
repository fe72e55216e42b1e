import CropGeometry
import CropRecords
import CropTestKit

/// The companion check of CropKit's own export: a fixture of the source's
/// size in a format whose crops carry a gain map (a JPEG with an MPF gain
/// map, by default; a HEIC or AVIF with an auxiliary one), the map of the
/// companion's size (the test kit's smooth companion fixture), each
/// mapping's crop written in the same format through the real pipeline
/// (`CropJob`, ``CropPlan/export(to:)``), its gain map read back by the
/// format's reader and held to the companion rule by the test kit's checks
/// (`CompanionExportTest`): its size, and every pixel the rule's bilinear
/// sample of the fixture's gain map as decoded (exact where the crop copies
/// the map: on a JPEG map's block grid, or all of a HEIF's; else mean 0.6
/// codes, 99th percentile 3 for a JPEG's map, 1 and 4 for a HEIF's), on a
/// smooth wave as a real gain map is
/// (`CompanionExportTest.smoothValue`).
public final class CompanionExportVerifier: Sendable {
    /// The stored size of the photo fixture.
    public let sourceSize: PixelSize<StoredPixels>
    /// The stored size of its gain map.
    public let companionSize: PixelSize<StoredPixels>
    /// The format of the fixture and of its crops.
    public let format: ImageFormat
    private let fixture: ImageSource
    private let output: OutputFormat
    /// The fixture's gain map, decoded: what the rule samples.
    private let map: RasterImage

    /// The most pixels of the photo fixture.
    public static let maximumPixels = 16_000_000

    /// Makes the fixture: a photo of `sourceSize` with a gain map of
    /// `companionSize` (both stored), in `format` (JPEG, HEIF or AVIF).
    ///
    /// - Throws: ``ImagingError/limitExceeded(_:limit:actual:)`` past
    ///   ``maximumPixels``, ``ImagingError/unsupported(format:detail:)`` for
    ///   a companion with no grid beside the photo, another format, or a
    ///   HEIF codec libheif cannot encode here.
    public init(
        sourceSize: PixelSize<StoredPixels>, companionSize: PixelSize<StoredPixels>,
        format: ImageFormat = .jpeg
    ) throws(ImagingError) {
        try FixtureExport.checkPixels(of: sourceSize, maximum: Self.maximumPixels)
        guard let grid = CompanionGrid(imageSize: sourceSize, companionSize: companionSize),
            grid.isAligned,
            companionSize.width <= 65535, companionSize.height <= 65535,
            sourceSize.width <= 65535, sourceSize.height <= 65535
        else {
            throw .unsupported(
                format: format,
                detail:
                    "a \(companionSize) gain map is not aligned to a \(sourceSize) photo (sides 1 to 65535, aspect within 1 %)"
            )
        }
        self.sourceSize = sourceSize
        self.companionSize = companionSize
        self.format = format
        var samples: [UInt8] = []
        samples.reserveCapacity(companionSize.width * companionSize.height)
        for y in 0..<companionSize.height {
            for x in 0..<companionSize.width {
                samples.append(CompanionExportTest.smoothValue(x, y))
            }
        }
        let gray = RasterImage(
            width: companionSize.width, height: companionSize.height, colorType: .gray,
            bitDepth: 8, samples: samples)
        var warnings: [String] = []
        let photo = Fixture.make(.corners, width: sourceSize.width, height: sourceSize.height)
            .eightBitOpaque(warnings: &warnings)
        let made = try CompanionFixture.make(format, photo: photo, map: gray)
        fixture = try ImageSource(ImageInput(bytes: made.bytes, name: "gain map fixture"))
        output = made.output
        guard let decoded = try fixture.reader.gainMapImage(in: fixture.input) else {
            throw .encodeFailed(format: format.name, detail: "the fixture's gain map")
        }
        map = decoded
    }

    /// The companion checks (`size`, `alignment`) of `result`'s crop (of
    /// this verifier's source size), written in ``format``.
    ///
    /// - Throws: ``ImagingError`` when the export or its read-back fails.
    public func check(_ result: CropResult) throws(ImagingError) -> [ExportCheck] {
        precondition(result.sourceSize == sourceSize, "the result is for another source size")
        let job = CropJob(
            region: .pixels(result.rect), orientation: result.orientation, format: output)
        let plan: CropPlan
        do throws(CropPlanError) {
            plan = try job.plan(for: fixture)
        } catch {
            preconditionFailure("a result of the fixture's size has a plan: \(error)")
        }
        let sink = MemorySink()
        let report = try plan.export(to: sink)
        let exported = try ImageSource(ImageInput(bytes: sink.bytes, name: "exported crop"))
        guard
            let cut = CompanionGrid(imageSize: sourceSize, companionSize: companionSize)?
                .cut(result.stored)
        else { preconditionFailure("the grid was checked") }
        guard let decoded = try exported.reader.gainMapImage(in: exported.input) else {
            return [
                ExportCheck(
                    name: "companion size", passed: false,
                    detail: (["the crop carries no gain map"] + report.warnings).joined(
                        separator: "; "),
                    measured: [.init("carried", .bool(false))]),
                ExportCheck(
                    name: "companion alignment", passed: false, detail: "no gain map to compare",
                    measured: [.init("compared", .bool(false))]),
            ]
        }
        let (source, width) = (map, map.width)
        let exact = CompanionFixture.copiesExactly(format, cut: cut, size: companionSize)
        return CompanionExportTest.checks(
            width: decoded.width, height: decoded.height, cut: cut, exact: exact,
            goal: CompanionFixture.goal(format),
            value: { i, j in
                Double(decoded.samples[(j * decoded.width + i) * decoded.colorType.channels])
            },
            source: { x, y in Double(source.samples[(y * width + x) * source.colorType.channels]) }
        ).map {
            ExportCheck(
                name: "companion " + $0.name, passed: $0.passed, detail: $0.detail,
                measured: $0.measured)
        }
    }
}
