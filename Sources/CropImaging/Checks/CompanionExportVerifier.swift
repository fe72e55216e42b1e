import CropGeometry
import CropTestKit

/// The companion check of CropKit's own export: a JPEG fixture of the
/// source's size carrying an MPF gain map of the companion's size (the test
/// kit's smooth companion fixture, quality 100), each mapping's crop written as
/// JPEG through the real pipeline (`CropJob`, ``CropPlan/export(to:)``), its
/// gain map read back through the output's MPF index and held to the
/// companion rule by the test kit's checks (`CompanionExportTest`): its
/// size, and every pixel the rule's bilinear sample of the fixture's gain
/// map as decoded (exact where the crop scales to whole gain-map pixels on
/// its block grid; else mean 0.6 codes, 99th percentile 3), on a smooth
/// wave as a real gain map is (`CompanionExportTest.smoothValue`).
public final class CompanionExportVerifier: Sendable {
    /// The stored size of the photo fixture.
    public let sourceSize: PixelSize<StoredPixels>
    /// The stored size of its gain map.
    public let companionSize: PixelSize<StoredPixels>
    private let fixture: ImageSource
    /// The fixture's gain map, decoded: what the rule samples.
    private let map: RasterImage

    /// The most pixels of the photo fixture.
    public static let maximumPixels = 16_000_000

    /// Makes the fixture: a photo of `sourceSize` with a gain map of
    /// `companionSize` (both stored).
    ///
    /// - Throws: ``ImagingError/limitExceeded(_:limit:actual:)`` past
    ///   ``maximumPixels``, ``ImagingError/unsupported(format:detail:)`` for
    ///   a companion with no grid beside the photo.
    public init(sourceSize: PixelSize<StoredPixels>, companionSize: PixelSize<StoredPixels>)
        throws(ImagingError)
    {
        try FixtureExport.checkPixels(of: sourceSize, maximum: Self.maximumPixels)
        guard let grid = CompanionGrid(imageSize: sourceSize, companionSize: companionSize),
            grid.isAligned,
            companionSize.width <= 65535, companionSize.height <= 65535,
            sourceSize.width <= 65535, sourceSize.height <= 65535
        else {
            throw .unsupported(
                format: .jpeg,
                detail:
                    "a \(companionSize) gain map is not aligned to a \(sourceSize) photo (sides 1 to 65535, aspect within 1 %)"
            )
        }
        self.sourceSize = sourceSize
        self.companionSize = companionSize
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
        let description = Array(
            "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\" hdrgm:Version=\"1.0\"/></rdf:RDF></x:xmpmeta>"
                .utf8)
        let mapBytes = try JPEGEncoder.encoded(
            gray, quality: 100, horizontal: [1], vertical: [1],
            markers: JPEGMetadata.segment(0xE1, description))
        var warnings: [String] = []
        let photo = Fixture.make(.corners, width: sourceSize.width, height: sourceSize.height)
            .eightBitOpaque(warnings: &warnings)
        var primary = try JPEGEncoder.encoded(
            photo, quality: 95, horizontal: [2, 1, 1], vertical: [2, 1, 1],
            markers: MPFIndex.segment(secondAttribute: 0))
        guard MPFIndex.patch(&primary, secondSize: mapBytes.count) else {
            throw .encodeFailed(format: "jpeg", detail: "the fixture's MPF index")
        }
        fixture = try ImageSource(ImageInput(bytes: primary + mapBytes, name: "gain map fixture"))
        map = try ImageSource(ImageInput(bytes: mapBytes, name: "gain map")).decode().image
    }

    /// The companion checks (`size`, `alignment`) of `result`'s crop (of
    /// this verifier's source size), written as JPEG.
    ///
    /// - Throws: ``ImagingError`` when the export or its read-back fails.
    public func check(_ result: CropResult) throws(ImagingError) -> [ExportCheck] {
        precondition(result.sourceSize == sourceSize, "the result is for another source size")
        let job = CropJob(
            region: .pixels(result.rect), orientation: result.orientation,
            format: .jpeg(JPEGEncoder()))
        let plan: CropPlan
        do throws(CropPlanError) {
            plan = try job.plan(for: fixture)
        } catch {
            preconditionFailure("a result of the fixture's size has a plan: \(error)")
        }
        let sink = MemorySink()
        _ = try plan.export(to: sink)
        let output = try ImageSource(ImageInput(bytes: sink.bytes, name: "exported crop"))
        guard
            let cut = CompanionGrid(imageSize: sourceSize, companionSize: companionSize)?
                .cut(result.stored)
        else { preconditionFailure("the grid was checked") }
        guard let found = try GainMap.find(in: output) else {
            return [
                ExportCheck(
                    name: "companion size", passed: false, detail: "the crop carries no gain map"),
                ExportCheck(
                    name: "companion alignment", passed: false, detail: "no gain map to compare"),
            ]
        }
        let decoded = try ImageSource(ImageInput(bytes: found.bytes, name: "cut gain map"))
            .decode().image
        let (source, width) = (map, map.width)
        // A copy is exact where the gain map's blocks can be copied: on
        // its block grid (8 pixels: the fixture's map is gray).
        let onBlocks = cut.copyRect.map { $0.x % 8 == 0 && $0.y % 8 == 0 } ?? false
        return CompanionExportTest.checks(
            width: decoded.width, height: decoded.height, cut: cut, exact: onBlocks,
            value: { i, j in
                Double(decoded.samples[(j * decoded.width + i) * decoded.colorType.channels])
            },
            source: { x, y in Double(source.samples[(y * width + x) * source.colorType.channels]) }
        ).map { ExportCheck(name: "companion " + $0.name, passed: $0.passed, detail: $0.detail) }
    }
}
