import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Hostile input, round five, class 2: an image stored as the value of an
/// EXIF tag nothing expects (a MakerNote placed in IFD0, a private tag, a
/// value in the GPS or Interoperability IFD, an IFD reached by a pointer
/// nothing knows) reaches no crop, in any format, and `leaks` names it.
/// Read back by exiftool and by a byte search for the hidden photo's
/// comment.
@Suite(.announcesSkips) struct HiddenEXIFImageTests {
    /// An entry: tag, type, count and value bytes (big-endian).
    typealias Entry = (tag: UInt16, type: UInt16, count: Int, value: [UInt8])

    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 255), UInt8(value & 255)] }
    static func be32(_ value: Int) -> [UInt8] { HiddenProfileImageTests.be32(value) }

    /// An UNDEFINED entry holding `bytes`.
    static func undefined(_ tag: UInt16, _ bytes: [UInt8]) -> Entry { (tag, 7, bytes.count, bytes) }

    /// A big-endian TIFF structure: IFD0 and, when given, the Exif, GPS and
    /// Interoperability IFDs and an IFD reached by private tag 0xC001 (a
    /// LONG nothing knows is a pointer), then `gap` (bytes no value
    /// names).
    static func tiff(
        ifd0: [Entry], exif: [Entry]? = nil, gps: [Entry]? = nil, interop: [Entry]? = nil,
        hidden: [Entry]? = nil, gap: [UInt8] = []
    ) -> [UInt8] {
        func size(_ entries: [Entry], links: Int) -> Int {
            2 + 12 * (entries.count + links) + 4
                + entries.reduce(0) { $0 + ($1.value.count > 4 ? ($1.value.count + 1) / 2 * 2 : 0) }
        }
        let exifLinks = interop == nil ? 0 : 1
        let ifd0Links = [exif, gps, hidden].filter { $0 != nil }.count
        var at = 8 + size(ifd0, links: ifd0Links)
        let exifAt = at
        if let exif { at += size(exif, links: exifLinks) }
        let interopAt = at
        if let interop { at += size(interop, links: 0) }
        let gpsAt = at
        if let gps { at += size(gps, links: 0) }
        let hiddenAt = at
        var out: [UInt8] = Array("MM".utf8) + be16(42) + be32(8)
        func write(_ entries: [Entry], links: [(UInt16, Int)]) {
            let all =
                (entries + links.map { (tag: $0.0, type: UInt16(4), count: 1, value: be32($0.1)) })
                .sorted { $0.tag < $1.tag }
            var dataAt = out.count + 2 + 12 * all.count + 4
            var data: [UInt8] = []
            out += be16(all.count)
            for entry in all {
                out += be16(Int(entry.tag)) + be16(Int(entry.type)) + be32(entry.count)
                if entry.value.count <= 4 {
                    out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
                } else {
                    out += be32(dataAt + data.count)
                    data += entry.value
                    if data.count % 2 == 1 { data.append(0) }
                }
            }
            out += be32(0)
            dataAt = out.count
            out += data
        }
        var links0: [(UInt16, Int)] = []
        if exif != nil { links0.append((UInt16(0x8769), exifAt)) }
        if gps != nil { links0.append((UInt16(0x8825), gpsAt)) }
        if hidden != nil { links0.append((UInt16(0xC001), hiddenAt)) }
        write(ifd0, links: links0)
        if let exif { write(exif, links: interop == nil ? [] : [(UInt16(0xA005), interopAt)]) }
        if let interop { write(interop, links: []) }
        if let gps { write(gps, links: []) }
        if let hidden { write(hidden, links: []) }
        return out + gap
    }

    static let make: Entry = (0x010F, 2, 7, Array("Acme X\0".utf8))

    /// Each case: where the photo hides, the EXIF, and the words the crop's
    /// report and `leaks` must say.
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var tiff: [UInt8]
        var says: String
        var leaks: String
        var description: String { name }
    }

    static let cases: [Case] = {
        let photo = HiddenProfileImageTests.wholePhoto()
        let png = (try? PNGEncoder().encode(Fixture.make(.coordinates, width: 8, height: 6))) ?? []
        let exifVersion: Entry = (0x9000, 7, 4, Array("0232".utf8))
        return [
            Case(
                name: "a MakerNote in IFD0", tiff: tiff(ifd0: [make, undefined(0x927C, photo)]),
                says: "tag 0x927C (MakerNote) in IFD0 removed: it holds an embedded JPEG image",
                leaks: "tag 0x927C (MakerNote) in IFD0 holds an embedded JPEG image"),
            Case(
                name: "a private tag in IFD0", tiff: tiff(ifd0: [make, undefined(0xC0DE, photo)]),
                says: "tag 0xC0DE in IFD0 removed: it holds an embedded JPEG image",
                leaks: "tag 0xC0DE in IFD0 holds an embedded JPEG image"),
            Case(
                name: "a UserComment in the Exif IFD",
                tiff: tiff(ifd0: [make], exif: [exifVersion, undefined(0x9286, photo)]),
                says:
                    "tag 0x9286 (UserComment) in the Exif IFD removed: it holds an embedded JPEG image",
                leaks: "tag 0x9286 (UserComment) in the Exif IFD holds an embedded JPEG image"),
            Case(
                name: "a PNG in the GPS IFD",
                tiff: tiff(
                    ifd0: [make], gps: [(0x0000, 1, 4, [2, 3, 0, 0]), undefined(0x001B, png)]),
                says:
                    "tag 0x001B (GPSProcessingMethod) in the GPS IFD removed: it holds an embedded PNG image",
                leaks: "tag 0x001B (GPSProcessingMethod) in the GPS IFD holds an embedded PNG image"
            ),
            Case(
                name: "a private tag in the Interoperability IFD",
                tiff: tiff(
                    ifd0: [make], exif: [exifVersion],
                    interop: [(0x0001, 2, 4, Array("R98\0".utf8)), undefined(0xC0DE, photo)]),
                says:
                    "tag 0xC0DE in the Interoperability IFD removed: it holds an embedded JPEG image",
                leaks: "tag 0xC0DE in the Interoperability IFD holds an embedded JPEG image"),
            Case(
                name: "a TIFF in a private tag",
                tiff: tiff(ifd0: [
                    make,
                    undefined(
                        0xC0DE,
                        Array("II*\0".utf8) + [
                            8, 0, 0, 0, 1, 0, 0, 1, 4, 0, 1, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0,
                        ]
                            + photo.suffix(40)),
                ]),
                says: "tag 0xC0DE in IFD0 removed: it holds an embedded TIFF image",
                leaks: "tag 0xC0DE in IFD0 holds an embedded TIFF image"),
            Case(
                name: "an IFD reached by a pointer nothing knows",
                tiff: tiff(ifd0: [make], hidden: [undefined(0x927C, photo)]),
                says: "",
                leaks: "an embedded JPEG image in the EXIF block, outside the values of its IFDs"),
            Case(
                name: "bytes between the IFDs", tiff: tiff(ifd0: [make], gap: photo),
                says: "",
                leaks: "an embedded JPEG image in the EXIF block, outside the values of its IFDs"),
        ]
    }()

    @Test(arguments: cases)
    func anImageInAnyEXIFValueReachesNoCrop(item: Case) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = SyntheticJPEG.inserting(
            [SyntheticJPEG.segment(0xE1, Array("Exif\0\0".utf8) + item.tiff)],
            into: try plainJPEG(in: folder))
        let source = folder.appendingPathComponent("source.jpg").path
        try Data(jpeg).write(to: URL(fileURLWithPath: source))
        var sources = [source]
        if TestData.isPresent {
            // The same EXIF in a real WebP's EXIF chunk.
            let chunks = try WebPContainerGauntletTests.chunks(WebPContainerGauntletTests.lossless)
            let webp = folder.appendingPathComponent("source.webp").path
            try Data(
                WebPContainerGauntletTests.form(
                    chunks.map { $0.type == "EXIF" ? ("EXIF", item.tiff) : $0 })
            )
            .write(to: URL(fileURLWithPath: webp))
            sources.append(webp)
        }
        for source in sources {
            let leaks = cropkit("leaks", source)
            #expect(leaks.out.contains(item.leaks), "\(item) in \(source): \(leaks.out)")
            for format in ["jpg", "webp", "png"] + (HEIFEncoder.canEncodeTiles ? ["avif"] : []) {
                let output = folder.appendingPathComponent("out.\(format)").path
                let run = cropkit("crop", source, "--pixels", "8,8,40,30", "-o", output, "--force")
                try #require(run.status == 0, "\(item) \(source) -> \(format): \(run.err)")
                let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
                let carried = HiddenProfileImageTests.holds(written, HiddenProfileImageTests.marker)
                #expect(!carried, "\(item) in \(source) reached its crop to \(format)")
                if !item.says.isEmpty {
                    #expect(
                        run.out.contains(item.says), "\(item) \(source) -> \(format): \(run.out)")
                }
                guard ExifTool.isInstalled else { continue }
                let tags = try ExifTool.tags(output)
                #expect(
                    tags["EXIF:IFD0:Make"] as? String == "Acme X",
                    "\(format): \(tags.keys.sorted())")
                let hiddenTag = tags.keys.filter {
                    $0.contains("MakerNote") || $0.contains("UserComment") || $0.contains("0xc0de")
                        || $0.contains("GPSProcessingMethod")
                }
                #expect(
                    hiddenTag.isEmpty, "\(item) \(source) -> \(format): exiftool reads \(hiddenTag)"
                )
            }
        }
    }
}
