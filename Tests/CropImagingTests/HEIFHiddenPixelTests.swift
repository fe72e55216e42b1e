import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@testable import CropImaging

/// A source HEIC that already hides pixels behind its own clean aperture (a
/// file cropped by another tool): its crops re-encode every tile whose coded
/// samples reach beyond the output's rect, so no sample hidden by the
/// source's `clap` is carried, whether the rect shares an edge with that
/// aperture or is all of it.
@Suite(
    .enabled(
        if: TestData.isPresent && HEIFDecoder.libheifVersion != nil && HEIFEncoder.canEncodeTiles,
        Comment(rawValue: TestData.absent + ", or libheif cannot encode here")))
struct HEIFHiddenPixelTests {
    /// A crop of a real photo made the leaky way (tiles copied, only `clap`
    /// cutting): the source's aperture hides real pixels, which `leaks`
    /// finds.
    static func clappedSource() throws -> ImageSource {
        let photo = try ImageSource.open(path: TestData.path("heif/pillow-heif/arrow.heic"))
        var leaky = HEIFEncoder()
        leaky.fixesEdges = false
        let plan = try CropJob(
            region: .pixels(PixelRect(x: 700, y: 900, width: 640, height: 480)),
            format: .heif(leaky)
        ).plan(for: photo)
        let sink = MemorySink()
        _ = try plan.export(to: sink)
        let source = try ImageSource(ImageInput(bytes: sink.bytes, name: "clapped.heic"))
        #expect(try LeakCheck.findings(in: source).contains { $0.detail.contains("hidden pixels") })
        return source
    }

    @Test(arguments: [
        PixelRect<ImagePixels>(x: 0, y: 0, width: 640, height: 480),  // the whole aperture
        PixelRect<ImagePixels>(x: 240, y: 180, width: 400, height: 300),  // its bottom-right edges
    ])
    func hiddenSamplesOfTheSourceAreNotCarried(rect: PixelRect<ImagePixels>) throws {
        let source = try Self.clappedSource()
        let plan = try CropJob(region: .pixels(rect), format: .heif(HEIFEncoder())).plan(
            for: source)
        let sink = MemorySink()
        let report = try plan.export(to: sink)
        let heif = try #require(report.heif)
        #expect(heif.reencodedTiles > 0, "\(rect): \(heif)")
        let out = try ImageSource(ImageInput(bytes: sink.bytes, name: "crop.heic"))
        let findings = try LeakCheck.findings(in: out)
        #expect(findings.isEmpty, "\(rect): \(findings)")
        // Every copied tile codes nothing beyond the rect.
        guard case .heif(let info) = out.header else { throw CocoaError(.fileReadUnknown) }
        let aperture = PixelRect<StoredPixels>(
            x: info.origin.x, y: info.origin.y, width: info.width, height: info.height)
        #expect(heif.copiedTiles + heif.reencodedTiles == info.layout.tiles.count)
        // The pixels shown are the source's at the rect (quality 90).
        let expected = try source.decode(plan.stored).image.samples
        let got = try out.decode().image.samples
        #expect(got.count == expected.count)
        let worst = zip(got, expected).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
        #expect(worst <= 24, "\(rect) at \(aperture): the shown pixels within \(worst)")
    }

    /// The rect of the found case: from the aperture's corner to the first
    /// tile boundaries inside it, so that the corner tile shows nothing
    /// beyond the rect and hides, behind the source's clap, what it codes
    /// beyond the aperture (copied whole before, 94.5 % of those samples the
    /// original photo's).
    @Test func aRectFromTheApertureToTheTileGridReencodesItsCornerTile() throws {
        let source = try Self.clappedSource()
        guard case .heif(let info) = source.header else { throw CocoaError(.fileReadUnknown) }
        let layout = info.layout
        #expect(info.origin.x > 0 || info.origin.y > 0)
        let width = layout.tileWidth - info.origin.x % layout.tileWidth
        let height = layout.tileHeight - info.origin.y % layout.tileHeight
        let stored = PixelRect<StoredPixels>(x: 0, y: 0, width: width, height: height)
        let orientation = source.orientation
        let plan = try CropJob(
            region: .pixels(orientation.orientedRect(stored, storedSize: source.storedSize)),
            orientation: orientation, format: .heif(HEIFEncoder())
        ).plan(for: source)
        #expect(plan.stored == stored)
        let sink = MemorySink()
        let report = try plan.export(to: sink)
        #expect(report.heif?.reencodedTiles == 1)
        #expect(report.heif?.copiedTiles == 0)
        let findings = try LeakCheck.findings(
            in: ImageSource(ImageInput(bytes: sink.bytes, name: "corner.heic")))
        #expect(findings.isEmpty, "\(findings)")
    }
}
