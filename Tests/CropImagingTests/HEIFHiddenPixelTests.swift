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
    .announcesSkips,
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
        let heif = try #require(report.details(as: HEIFWriteReport.self))
        #expect(heif.reencodedTiles > 0, "\(rect): \(heif)")
        let out = try ImageSource(ImageInput(bytes: sink.bytes, name: "crop.heic"))
        let findings = try LeakCheck.findings(in: out)
        #expect(findings.isEmpty, "\(rect): \(findings)")
        // Every copied tile codes nothing beyond the rect.
        guard let info = out.header as? HEIFFileInfo else { throw CocoaError(.fileReadUnknown) }
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
        guard let info = source.header as? HEIFFileInfo else { throw CocoaError(.fileReadUnknown) }
        let layout = info.layout
        #expect(info.origin.x > 0 || info.origin.y > 0)
        let width = layout.tileWidth - info.origin.x % layout.tileWidth
        let height = layout.tileHeight - info.origin.y % layout.tileHeight
        let stored = PixelRect<StoredPixels>(x: 0, y: 0, width: width, height: height)
        let (report, findings) = try heicCrop(stored, of: source)
        #expect(report.details(as: HEIFWriteReport.self)?.reencodedTiles == 1)
        #expect(report.details(as: HEIFWriteReport.self)?.copiedTiles == 0)
        #expect(findings.isEmpty, "\(findings)")
    }
}

/// Samples coded beyond the grid's canvas (the padding of the last column
/// and row of tiles) are hidden pixels too: a grid whose output is made
/// smaller than its tiles (as a tool that crops by the grid's size writes
/// it) hides real picture there. A tile inside the rect on the canvas is
/// copied only when its padding is an encoder's (the edge repeated, a flat
/// fill); this one's is encoded again, and a tile away from the canvas's
/// edge is copied without being decoded.
@Suite(
    .announcesSkips,
    .enabled(
        if: HEIFDecoder.libheifVersion != nil && HEIFEncoder.canEncodeTiles,
        Comment(rawValue: "libheif cannot encode here")))
struct HEIFPaddingTests {
    /// A 600x400 demo HEIC (3x2 tiles of 256) whose grid and `ispe` say
    /// 520x330: the tiles' picture goes on beyond the canvas.
    /// The demo's 600x400 HEIC (tiles of 256) with its grid and `ispe`
    /// saying 520x330, made once for the tests here (an x265 encode each
    /// time cost the suite seconds).
    static let shrunkBytes = Result { () throws -> [UInt8] in
        var bytes = try DemoPhoto.heic(width: 600, height: 400, tile: 256)
        func patch(_ old: [UInt8], _ new: [UInt8]) throws {
            var found: [Int] = []
            for start in 0...(bytes.count - old.count)
            where bytes[start] == old[0] && bytes[start..<start + old.count].elementsEqual(old) {
                found.append(start)
            }
            guard found.count == 1, let start = found.first else {
                throw CocoaError(
                    .fileReadCorruptFile,
                    userInfo: [NSLocalizedDescriptionKey: "\(old) occurs \(found.count) times"])
            }
            bytes.replaceSubrange(start..<start + new.count, with: new)
        }
        // The grid description (rows and columns less one, then the size)
        // and the grid's ispe.
        try patch([0, 0, 1, 2, 0x02, 0x58, 0x01, 0x90], [0, 0, 1, 2, 0x02, 0x08, 0x01, 0x4A])
        try patch(
            Array("ispe".utf8) + [0, 0, 0, 0, 0, 0, 0x02, 0x58, 0, 0, 0x01, 0x90],
            Array("ispe".utf8) + [0, 0, 0, 0, 0, 0, 0x02, 0x08, 0, 0, 0x01, 0x4A])
        return bytes
    }

    static func shrunkGrid() throws -> ImageSource {
        let source = try ImageSource(ImageInput(bytes: try shrunkBytes.get(), name: "shrunk.heic"))
        #expect(source.storedSize == PixelSize(width: 520, height: 330))
        #expect(try LeakCheck.findings(in: source).contains { $0.detail.contains("hidden pixels") })
        return source
    }

    @Test(arguments: [
        // The right column's tile, its canvas part all in the rect.
        PixelRect<StoredPixels>(x: 512, y: 0, width: 8, height: 256),
        // The bottom-right tile, and the whole canvas.
        PixelRect<StoredPixels>(x: 256, y: 256, width: 264, height: 74),
        PixelRect<StoredPixels>(x: 0, y: 0, width: 520, height: 330),
    ])
    func paddedTilesHidingPictureAreEncodedAgain(rect: PixelRect<StoredPixels>) throws {
        let (report, findings) = try heicCrop(rect, of: try Self.shrunkGrid())
        #expect(findings.isEmpty, "\(rect): \(findings)")
        #expect(
            (report.details(as: HEIFWriteReport.self)?.reencodedTiles ?? 0) > 0,
            "\(rect): \(String(describing: report.details(as: HEIFWriteReport.self)))")
    }

    @Test func tilesAwayFromTheCanvasEdgeAreCopied() throws {
        let rect = PixelRect<StoredPixels>(x: 0, y: 0, width: 512, height: 256)
        let (report, findings) = try heicCrop(rect, of: try Self.shrunkGrid())
        #expect(findings.isEmpty, "\(findings)")
        #expect(report.details(as: HEIFWriteReport.self)?.reencodedTiles == 0)
        #expect(report.details(as: HEIFWriteReport.self)?.copiedTiles == 2)
    }
}

/// The HEIC crop of the stored rect `stored` of `source` (seen with its own
/// orientation), and what the leak check finds in it.
private func heicCrop(_ stored: PixelRect<StoredPixels>, of source: ImageSource) throws -> (
    report: CropReport, findings: [LeakFinding]
) {
    let orientation = source.orientation
    let plan = try CropJob(
        region: .pixels(orientation.orientedRect(stored, storedSize: source.storedSize)),
        orientation: orientation, format: .heif(HEIFEncoder())
    ).plan(for: source)
    #expect(plan.stored == stored)
    let sink = MemorySink()
    let report = try plan.export(to: sink)
    let out = try ImageSource(ImageInput(bytes: sink.bytes, name: "crop.heic"))
    return (report, try LeakCheck.findings(in: out))
}
