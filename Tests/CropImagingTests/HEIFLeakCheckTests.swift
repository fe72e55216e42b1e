import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@testable import CropImaging

/// `cropkit leaks` on HEIFs made by someone else: images hidden in items a
/// viewer never shows and in bytes no item uses are found (each was missed
/// before), and a clean crop still has no findings.
@Suite(.announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct HEIFLeakCheckTests {
    /// A whole JPEG of a picture, the kind of thing that leaks.
    static func jpeg() throws -> [UInt8] {
        try JPEGEncoder.encoded(
            DemoPhoto.picture(width: 32, height: 24), horizontal: [1, 1, 1], vertical: [1, 1, 1])
    }

    /// The generated 2x2 grid, rewritten with its tiles copied, plus what
    /// `extra` adds (given the writer and the grid's item).
    static func heif(_ extra: (inout HEIFFileWriter, Int, [Int]) throws -> Void) throws -> [UInt8] {
        let source = try ImageSource.open(
            path: TestData.path("heif/generated/coords_orient6_96x128_grid64_lossless.heic"))
        guard let info = source.header as? HEIFFileInfo else { throw CocoaError(.fileReadUnknown) }
        var writer = HEIFFileWriter()
        var tiles: [Int] = []
        for tile in info.layout.tiles {
            let item = writer.addItem(
                type: "hvc1", hidden: true,
                properties: [
                    (tile.configuration, true),
                    (HEIFFileWriter.ispe(width: tile.width, height: tile.height), false),
                ])
            writer.setData(item, .extents(tile.extents))
            tiles.append(item)
        }
        let layout = info.layout
        let grid = writer.addItem(
            type: "grid", hidden: false,
            properties: [(HEIFFileWriter.ispe(width: layout.width, height: layout.height), false)])
        writer.reference("dimg", from: grid, to: tiles)
        writer.setData(
            grid,
            .bytes(
                HEIFFileWriter.gridDescription(
                    rows: layout.rows, columns: layout.columns, width: layout.width,
                    height: layout.height)))
        writer.primary = grid
        try extra(&writer, grid, tiles)
        let sink = MemorySink()
        _ = try writer.write(to: sink, input: source.input)
        return sink.bytes
    }

    static func findings(_ bytes: [UInt8]) throws -> [LeakFinding] {
        try LeakCheck.findings(in: ImageSource(ImageInput(bytes: bytes, name: "made.heic")))
            .filter { !$0.detail.contains("hidden pixels") }
    }

    @Test func theRewrittenGridIsClean() throws {
        #expect(try Self.findings(try Self.heif { _, _, _ in }).isEmpty)
    }

    @Test(arguments: ["mime image/jpeg", "mime application/octet-stream", "uri ", "jpeg hidden"])
    func anImageInAnItemIsFound(kind: String) throws {
        let jpeg = try Self.jpeg()
        let bytes = try Self.heif { writer, grid, _ in
            let parts = kind.split(separator: " ").map(String.init)
            let type = kind.hasPrefix("uri") ? "uri " : parts[0]
            let item = writer.addItem(
                type: type, hidden: kind.hasSuffix("hidden") || type != "jpeg", properties: [],
                contentType: type == "mime" ? parts[1] : nil)
            writer.setData(item, .bytes(Array("preview ".utf8) + jpeg))
            writer.reference("cdsc", from: item, to: [grid])
        }
        let found = try Self.findings(bytes)
        #expect(found.contains { $0.detail.contains("embedded JPEG") }, "\(kind): \(found)")
    }

    @Test func aVisibleJPEGItemIsAnotherImage() throws {
        let jpeg = try Self.jpeg()
        let bytes = try Self.heif { writer, _, _ in
            let item = writer.addItem(type: "jpeg", hidden: false, properties: [])
            writer.setData(item, .bytes(jpeg))
        }
        #expect(try Self.findings(bytes).contains { $0.detail.contains("another image (jpeg)") })
    }

    /// A second EXIF item, one linked to no image, and one linked only to a
    /// tile, each with an IFD1 thumbnail.
    @Test(arguments: ["second", "unlinked", "tile"])
    func anEXIFItemThatIsNotTheImagesIsFound(kind: String) throws {
        let thumbnail = try Self.jpeg()
        let tiff = DemoPhoto.exif(thumbnail: thumbnail, orientation: 1)
        let bytes = try Self.heif { writer, grid, tiles in
            if kind == "second" {
                let plain = writer.addItem(type: "Exif", hidden: true, properties: [])
                writer.setData(plain, .bytes([0, 0, 0, 0] + tiff))
                writer.reference("cdsc", from: plain, to: [grid])
            }
            let item = writer.addItem(type: "Exif", hidden: true, properties: [])
            writer.setData(item, .bytes([0, 0, 0, 0] + tiff))
            if kind == "second" { writer.reference("cdsc", from: item, to: [grid]) }
            if kind == "tile" { writer.reference("cdsc", from: item, to: [tiles[1]]) }
        }
        let found = try Self.findings(bytes)
        #expect(found.contains { $0.detail.contains("not the image's own") }, "\(kind): \(found)")
        #expect(found.contains { $0.detail.contains("IFD1") || $0.detail.contains("JPEG") })
    }

    /// A `free` box after the data holding a whole JPEG, and unused bytes
    /// of `mdat`.
    @Test func bytesNoItemUsesAreSearched() throws {
        let jpeg = try Self.jpeg()
        let clean = try Self.heif { _, _, _ in }
        let body = Array("free".utf8) + jpeg
        let free =
            [UInt8(0), 0, UInt8((body.count + 4) >> 8), UInt8((body.count + 4) & 0xFF)] + body
        let found = try Self.findings(clean + free)
        #expect(found.contains { $0.detail.contains("bytes no item uses") }, "\(found)")
        // The same bytes as an mdat's unused tail.
        let mdat =
            [UInt8(0), 0, UInt8((body.count + 4) >> 8), UInt8((body.count + 4) & 0xFF)]
            + Array("mdat".utf8) + jpeg
        #expect(
            try Self.findings(clean + mdat).contains { $0.detail.contains("bytes no item uses") })
    }
}
