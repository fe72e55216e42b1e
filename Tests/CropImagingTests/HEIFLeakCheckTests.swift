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
    static func heif(
        from path: String = "heif/generated/coords_orient6_96x128_grid64_lossless.heic",
        _ extra: (inout HEIFFileWriter, Int, [Int]) throws -> Void
    ) throws -> [UInt8] {
        let source = try ImageSource.open(path: TestData.path(path))
        let header = source.header as? HEIFFileInfo ?? (source.header as? AVIFFileInfo)?.heif
        guard let info = header else { throw CocoaError(.fileReadUnknown) }
        var writer = HEIFFileWriter()
        writer.codec = info.layout.tiles[0].codec
        let type = writer.codec.itemType
        var tiles: [Int] = []
        for tile in info.layout.tiles {
            let item = writer.addItem(
                type: type, hidden: true,
                properties: [
                    (tile.configuration, true),
                    (HEIFFileWriter.ispe(width: tile.width, height: tile.height), false),
                ])
            writer.setData(item, .extents(tile.extents))
            tiles.append(item)
        }
        let layout = info.layout
        let grid = writer.addGrid(
            of: tiles, rows: layout.rows, columns: layout.columns, width: layout.width,
            height: layout.height)
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

    /// A box around `payload`.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = payload.count + 8
        return [
            UInt8(size >> 24), UInt8(size >> 16 & 255), UInt8(size >> 8 & 255), UInt8(size & 255),
        ]
            + Array(type.utf8) + payload
    }

    /// A whole-photo JPEG or PNG inside `meta` where the reader does not
    /// look: a `free`, a `skip` or an unknown box beside the item boxes, an
    /// unknown property in `ipco`, an unknown box in `iprp`. Each was
    /// missed before. A crop of the file, as HEIC and as PNG, carries none
    /// of it.
    @Test(arguments: ["free", "skip", "zzzz", "property", "iprp"])
    func anImageInABoxInsideMetaIsFound(place: String) throws {
        let jpeg = try Self.jpeg()
        let bytes = try Self.heif { writer, _, _ in
            switch place {
            case "property": _ = writer.property(Self.box("zzzz", Array("x".utf8) + jpeg))
            case "iprp": writer.extraPropertyBoxes.append(Self.box("zzzz", jpeg))
            default: writer.extraMetaBoxes.append(Self.box(place, jpeg))
            }
        }
        let found = try Self.findings(bytes)
        #expect(
            found.contains {
                $0.detail.contains("embedded JPEG") && $0.place.contains("in 'meta'")
            },
            "\(place): \(found)")
        try Self.expectCropsCarryNone(of: jpeg, from: bytes)
    }

    /// An HEVC or AV1 image item that nothing shows and nothing derives
    /// from (hidden, no reference): a whole picture a viewer never lists.
    @Test(arguments: [
        "heif/generated/coords_orient6_96x128_grid64_lossless.heic",
        "avif/generated/coords_grid2x2_1024x784_lossless.avif",
    ])
    func aCodedImageNoImageUsesIsFound(path: String) throws {
        var hiddenExtents: [Range<Int>] = []
        let bytes = try Self.heif(from: path) { writer, _, _ in
            let source = try ImageSource.open(path: TestData.path(path))
            let header = source.header as? HEIFFileInfo ?? (source.header as? AVIFFileInfo)?.heif
            let tile = try #require(header?.layout.tiles.last)
            let item = writer.addItem(
                type: writer.codec.itemType, hidden: true,
                properties: [
                    (tile.configuration, true),
                    (HEIFFileWriter.ispe(width: tile.width, height: tile.height), false),
                ])
            writer.setData(item, .extents(tile.extents))
            hiddenExtents = tile.extents
        }
        #expect(!hiddenExtents.isEmpty)
        let found = try Self.findings(bytes)
        #expect(
            found.contains { $0.detail.contains("an image item that no image uses") }, "\(found)")
        // Its tiles and the grid are no finding on a clean file.
        let clean = try Self.findings(try Self.heif(from: path) { _, _, _ in })
        #expect(!clean.contains { $0.detail.contains("no image uses") }, "\(clean)")
    }

    /// HEVC parameter sets (Annex B) and a whole HEIF file in a `free`
    /// box inside `meta`, and a WebP in an unused `idat` tail.
    @Test func otherCodedImagesInBoxesAreFound() throws {
        let heic = try [UInt8](
            Data(
                contentsOf: URL(
                    fileURLWithPath: TestData.path("heif/generated/coords_1x1_lossless.heic"))))
        let annexB: [UInt8] = [0, 0, 0, 1, 0x40, 0x01, 0x0C, 0x01, 0xFF, 0xFF]
        for (payload, expected) in [(heic, "HEIF file"), (annexB, "HEVC image")] {
            let bytes = try Self.heif { writer, _, _ in
                writer.extraMetaBoxes.append(Self.box("free", payload))
            }
            let found = try Self.findings(bytes)
            #expect(found.contains { $0.detail.contains(expected) }, "\(expected): \(found)")
        }
        let webp = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8L".utf8) + [1, 2, 3, 4]
        let bytes = try Self.heif { writer, _, _ in
            writer.extraMetaBoxes.append(Self.box("idat", webp))
        }
        let found = try Self.findings(bytes)
        #expect(
            found.contains { $0.detail.contains("WebP") && $0.place.contains("idat") }, "\(found)")
    }

    /// Crops of `bytes` as HEIC (the tiles copied) and as PNG hold none of
    /// `image`'s bytes and no finding.
    static func expectCropsCarryNone(of image: [UInt8], from bytes: [UInt8]) throws {
        let probe = Array(image[image.count / 2..<image.count / 2 + 16])
        for format in [OutputFormat.heif(HEIFEncoder()), .png(PNGEncoder())] {
            let source = try ImageSource(ImageInput(bytes: bytes, name: "made.heic"))
            let plan = try CropJob(
                region: .pixels(PixelRect(x: 0, y: 0, width: 64, height: 64)), format: format
            ).plan(for: source)
            let sink = MemorySink()
            _ = try plan.export(to: sink)
            #expect(!LeakCheck.contains(sink.bytes, probe))
            let found = try LeakCheck.findings(
                in: ImageSource(ImageInput(bytes: sink.bytes, name: "crop")))
            #expect(found.isEmpty, "\(found)")
        }
    }
}
