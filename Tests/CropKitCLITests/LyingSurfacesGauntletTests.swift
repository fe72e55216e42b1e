import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Hostile input, round five: the surfaces issues 42 and 44 added, lied
/// about by files made from the real ones (Tests/GAUNTLETS.md lists each
/// case and its outcome). Companions that lie (an MPF entry pointing into
/// the primary image's own bytes or past the end of the file, a Google
/// depth PNG claiming 60000x60000, an auxiliary image naming itself, `altr`
/// and `ster` groups naming items that are not there); region lists and
/// `SubjectArea` values that lie; C2PA boxes whose sizes lie. Each case is
/// cropped by the real binary, its peak resident memory watched: exit 0
/// with the lie named and an output `leaks` finds clean, or exit 2 with the
/// problem named and nothing written; never more than 256 MB.
@Suite(
    .announcesSkips,
    .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: CropKitBinary.path != nil, "no cropkit binary beside the tests"))
struct LyingSurfacesGauntletTests {
    /// What a case must come to.
    enum Outcome: Sendable {
        /// Written, exit 0, the report (standard output and error) saying
        /// this.
        case written(String)
        /// Refused, exit 2, the error saying this, nothing written.
        case refused(String)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// The corpus file the case is made from.
        var file: String
        /// Each byte string to find in it (the first occurrence) and what
        /// to put in its place.
        var edits: [(find: [UInt8], replace: [UInt8])]
        var outcome: Outcome
        var output = "jpg"
        var pixels = "100,100,700,500"
        var testDescription: String { name }
    }

    static func be32(_ value: Int) -> [UInt8] { HiddenProfileImageTests.be32(value) }
    static func hex(_ text: String) -> [UInt8] {
        stride(from: 0, to: text.count, by: 2).map {
            let start = text.index(text.startIndex, offsetBy: $0)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
    }

    static func le32(_ value: Int) -> [UInt8] { be32(value).reversed() }
    /// The Pixel 6 Pro's MPF entry for its gain map: attribute 0, 62570
    /// bytes at 2599690 from the MPF header (little-endian).
    static let pixelGainMapEntry = [0, 0, 0, 0] + le32(62570) + le32(2_599_690)
    static let pixel = "hdr/pixel6pro_ultrahdr.jpg"
    static let galaxy = "hdr/galaxys25ultra_gainmap_tmap.heic"
    static let vision = "hdr/visionpro_spatial_stereo.heic"
    static let pug = "heif/pillow-heif/pug.heic"
    /// The Galaxy's `altr` group (id 42: the tmap item 38, the primary 33)
    /// and the Vision Pro's `ster` group (id 53: items 26 and 52).
    static let altr = hex("616c7472000000000000002a000000020000002600000021")
    static let ster = hex("737465720000000000000035000000020000001a00000034")

    static let cases: [Case] = [
        Case(
            name: "an MPF gain map entry pointing into the primary's header",
            file: pixel,
            edits: [(pixelGainMapEntry, [0, 0, 0, 0] + le32(62570) + le32(8))],
            outcome: .written("its entry 2 points into the primary image's own bytes")),
        Case(
            name: "an MPF gain map entry pointing into the primary's scan",
            file: pixel,
            edits: [(pixelGainMapEntry, [0, 0, 0, 0] + le32(62570) + le32(1000))],
            outcome: .written("its entry 2 points into the primary image's own bytes")),
        Case(
            name: "an MPF gain map entry running past the end of the file",
            file: pixel,
            edits: [(pixelGainMapEntry, [0, 0, 0, 0] + le32(62570 * 50) + le32(2_599_690))],
            outcome: .written("its entry 2 runs past the end of the file")),
        Case(
            name: "an altr group naming a tmap item that is not there", file: galaxy,
            edits: [(altr, hex("616c7472000000000000002a000000020000009900000021"))],
            outcome: .written("wrote"), output: "heic"),
        Case(
            name: "an altr group naming a primary that is not there", file: galaxy,
            edits: [(altr, hex("616c7472000000000000002a000000020000002600000099"))],
            outcome: .written("wrote"), output: "heic"),
        Case(
            name: "a ster group naming an eye that is not there", file: vision,
            edits: [(ster, hex("737465720000000000000035000000020000001a00000099"))],
            outcome: .written("dropped grid item 52: another image of the file"),
            output: "heic"),
        Case(
            name: "a ster group naming one eye twice", file: vision,
            edits: [(ster, hex("737465720000000000000035000000020000001a0000001a"))],
            outcome: .written("dropped grid item 52: another image of the file"),
            output: "heic"),
        // pug's depth map (54) names the photo (49) in its auxl; here it
        // names itself.
        Case(
            name: "an auxiliary image naming itself", file: pug,
            edits: [
                (
                    Array("auxl".utf8) + [0, 54, 0, 1, 0, 49],
                    Array("auxl".utf8) + [0, 54, 0, 1, 0, 54]
                )
            ],
            outcome: .written("wrote"), output: "heic", pixels: "1024,512,1024,1024"),
    ]

    /// `file` with `edits` made, written into `folder`.
    static func made(_ c: Case, in folder: URL) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestData.path(c.file))))
        for (find, replace) in c.edits {
            let at = try #require(
                bytes.indices.first { bytes[$0] == find[0] && bytes[$0...].starts(with: find) },
                "\(c.name): the bytes to change")
            bytes.replaceSubrange(at..<at + find.count, with: replace)
        }
        let path = folder.appendingPathComponent(
            "lying." + (c.file as NSString).pathExtension
        ).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Crops `source` to `output` through the real binary (its peak
    /// watched) and in process (its report read), and holds both to
    /// `outcome`.
    static func expect(
        _ source: String, to output: String, pixels: String, outcome: Outcome, _ name: String
    ) throws {
        let arguments = ["crop", source, "--pixels", pixels, "-o", output, "--force"]
        let watched = try #require(try CropKitBinary.watch(arguments))
        if !MemoryTests.sanitized {
            #expect(watched.peak < 256 << 20, "\(name): peak \(watched.peak >> 20) MB")
        }
        try? FileManager.default.removeItem(atPath: output)
        let run = cropkit(arguments)
        #expect(run.status == watched.status, "\(name): \(run.err)")
        switch outcome {
        case .written(let says):
            #expect(run.status == 0, "\(name): \(run.err)")
            #expect((run.out + run.err).contains(says), "\(name): \(run.out) \(run.err)")
            let leaks = cropkit("leaks", output)
            #expect(leaks.out.hasSuffix(": clean\n"), "\(name): \(leaks.out)")
        case .refused(let says):
            #expect(run.status == 2, "\(name): \(run.out)")
            #expect(run.err.contains(says), "\(name): \(run.err)")
            #expect(!FileManager.default.fileExists(atPath: output), "\(name)")
        }
    }

    @Test(arguments: cases)
    func aLyingCompanionComesToItsOutcome(_ c: Case) throws {
        if c.output == "heic" && !(HEIFDecoder.libheifVersion != nil && HEIFEncoder.canEncodeTiles)
        {
            return
        }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try Self.made(c, in: folder)
        try Self.expect(
            source, to: folder.appendingPathComponent("out.\(c.output)").path, pixels: c.pixels,
            outcome: c.outcome, c.name)
    }

    /// The Android depth photo's GDepth:Data PNG, its IHDR saying
    /// 60000x60000 (its CRC made right): dropped with a warning naming the
    /// pixel limit, never decoded.
    @Test func aDepthMapClaiming60000x60000IsDropped() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var bytes = [UInt8](
            try Data(
                contentsOf: URL(fileURLWithPath: TestData.path("camera/android_depthmap_xmp.jpg"))))
        let start = Array("iVBORw0KGgo".utf8)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: start) })
        // The PNG's first 33 bytes (signature, IHDR and its CRC): 44
        // base64 characters, the same length after the change.
        var head = try #require(Data(base64Encoded: Data(bytes[at..<at + 44])).map { [UInt8]($0) })
        head.replaceSubrange(16..<24, with: Self.be32(60000) + Self.be32(60000))
        head.replaceSubrange(29..<33, with: Self.be32(Int(TestData.crc32(Array(head[12..<29])))))
        bytes.replaceSubrange(at..<at + 44, with: Array(Data(head).base64EncodedString().utf8))
        let source = folder.appendingPathComponent("depth.jpg").path
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        try Self.expect(
            source, to: folder.appendingPathComponent("out.jpg").path, pixels: "100,100,300,200",
            outcome: .written(
                "the depth map (GDepth:Data) was dropped: the image has 3600000000 pixels"),
            "GDepth 60000x60000")
    }

    /// C2PA manifests whose box, chunk or segment sizes lie, in each format
    /// of the corpus's C2PA photos.
    @Test(arguments: [
        ("heic", "uuid", "past the end", "declares 283228 bytes"),
        ("heic", "uuid", "inside its own header", "declares 4274247195 bytes"),
        ("heic", "uuid", "zero (to the end of the file)", "no 'meta' box"),
        ("avif", "uuid", "past the end", "declares 195336 bytes"),
        ("png", "caBX", "past the end", "PNG chunk caBX at byte 33 declares 2147 MB"),
        ("webp", "C2PA", "past the end", #"chunk "C2PA" at byte 63772 says 2147483632 bytes"#),
        ("jpg", "jumb", "past its segment", "dropped APP11 (C2PA)"),
    ])
    func aC2PABoxWhoseSizeLiesComesToItsOutcome(
        format: String, box: String, lie: String, says: String
    ) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var bytes = [UInt8](
            try Data(contentsOf: URL(fileURLWithPath: TestData.path("c2pa/photo_c2pa.\(format)"))))
        let type = Array(box.utf8)
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: type) })
        // The size field: before the type in ISOBMFF, PNG and JUMBF (big-
        // endian), after it in RIFF (little-endian).
        let value: Int
        switch lie {
        case "past the end":
            value = format == "heic" || format == "avif" ? bytes.count * 4 : 0x7FFF_FFF0
        case "inside its own header": value = 9
        case "zero (to the end of the file)": value = 0
        default: value = 0x7FFF_FFFF
        }
        if format == "webp" {
            bytes.replaceSubrange(
                at + 4..<at + 8,
                with: [
                    UInt8(value & 255), UInt8(value >> 8 & 255), UInt8(value >> 16 & 255),
                    UInt8(value >> 24 & 255),
                ])
        } else {
            bytes.replaceSubrange(at - 4..<at, with: Self.be32(value))
        }
        let source = folder.appendingPathComponent("c2pa.\(format)").path
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        let refused = !(format == "jpg")
        try Self.expect(
            source, to: folder.appendingPathComponent("out.png").path, pixels: "10,10,300,200",
            outcome: refused ? .refused(says) : .written(says), "C2PA \(format) \(lie)")
    }

    /// `SubjectArea` values and MWG region lists that lie: a count of 5, a
    /// rectangle far outside the photo, a region of NaN and one of 1e308,
    /// an AppliedToDimensions of 0x0. Each is removed and named, the crop
    /// written, and `leaks` finds no stale place in it.
    @Test func placesThatLieAreRemovedAndNamed() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = try plainJPEG(in: folder)
        func shorts(_ values: [Int]) -> [UInt8] { values.flatMap { HiddenEXIFImageTests.be16($0) } }
        let region = { (area: String) in
            "<rdf:li rdf:parseType=\"Resource\"><mwg-rs:Name>R</mwg-rs:Name><mwg-rs:Type>Face</mwg-rs:Type><mwg-rs:Area \(area) stArea:unit=\"normalized\"/></rdf:li>"
        }
        let xmp = { (dimensions: String, area: String) in
            "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"\" xmlns:mwg-rs=\"http://www.metadataworkinggroup.com/schemas/regions/\" xmlns:stDim=\"http://ns.adobe.com/xap/1.0/sType/Dimensions#\" xmlns:stArea=\"http://ns.adobe.com/xmp/sType/Area#\"><mwg-rs:Regions rdf:parseType=\"Resource\"><mwg-rs:AppliedToDimensions \(dimensions) stDim:unit=\"pixel\"/><mwg-rs:RegionList><rdf:Bag>\(region(area))</rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions></rdf:Description></rdf:RDF></x:xmpmeta>"
        }
        // Each: its SubjectArea and whether a crop keeps it (mapped), its
        // AppliedToDimensions and region, and whether the region is kept.
        let cases: [(String, [UInt8], Bool, String, String, Bool)] = [
            (
                "SubjectArea of 5 numbers", shorts([1, 2, 3, 4, 5]), false,
                "stDim:w=\"64\" stDim:h=\"48\"",
                "stArea:x=\"0.5\" stArea:y=\"0.5\" stArea:w=\"0.1\" stArea:h=\"0.1\"", true
            ),
            (
                "SubjectArea far outside, a region at NaN", shorts([60000, 60000, 100, 100]), false,
                "stDim:w=\"64\" stDim:h=\"48\"",
                "stArea:x=\"NaN\" stArea:y=\"0.5\" stArea:w=\"0.1\" stArea:h=\"0.1\"", false
            ),
            (
                "a region of 1e308 on dimensions of 0x0", shorts([20, 20]), true,
                "stDim:w=\"0\" stDim:h=\"0\"",
                "stArea:x=\"1e308\" stArea:y=\"1e308\" stArea:w=\"1e308\" stArea:h=\"1e308\"",
                false
            ),
        ]
        for (name, subject, subjectKept, dimensions, area, regionKept) in cases {
            let count = subject.count / 2
            let tiff = HiddenEXIFImageTests.tiff(
                ifd0: [HiddenEXIFImageTests.make],
                exif: [(0x9000, 7, 4, Array("0232".utf8)), (0x9214, 3, count, subject)])
            let jpeg = SyntheticJPEG.inserting(
                [
                    SyntheticJPEG.segment(0xE1, Array("Exif\0\0".utf8) + tiff),
                    SyntheticJPEG.segment(0xE1, Array(xmp(dimensions, area).utf8)),
                ],
                into: plain)
            let source = folder.appendingPathComponent("places.jpg").path
            try Data(jpeg).write(to: URL(fileURLWithPath: source))
            for format in ["jpg", "png"] {
                try Self.expect(
                    source, to: folder.appendingPathComponent("out.\(format)").path,
                    pixels: "8,8,40,30", outcome: .written("SubjectArea"), "\(name) -> \(format)")
                let run = cropkit(
                    "crop", source, "--pixels", "8,8,40,30", "-o",
                    folder.appendingPathComponent("again.\(format)").path, "--force")
                #expect(
                    run.out.contains(subjectKept ? "SubjectArea mapped" : "SubjectArea")
                        && (subjectKept || run.out.contains("removed")), "\(name): \(run.out)")
                guard ExifTool.isInstalled else { continue }
                let tags = try ExifTool.tags(folder.appendingPathComponent("again.\(format)").path)
                #expect(
                    (tags["EXIF:ExifIFD:SubjectArea"] != nil) == subjectKept,
                    "\(name) -> \(format): \(tags["EXIF:ExifIFD:SubjectArea"] ?? "none")")
                #expect(
                    (tags["XMP:XMP-mwg-rs:RegionAreaX"] != nil) == regionKept,
                    "\(name) -> \(format): \(tags["XMP:XMP-mwg-rs:RegionAreaX"] ?? "none")")
            }
        }
    }
}
