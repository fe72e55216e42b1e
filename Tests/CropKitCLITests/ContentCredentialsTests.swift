import CropKitTestSupport
import Foundation
import Testing

/// C2PA content credentials cannot survive a crop (their hard binding
/// hashes the original bytes): the crop removes them in every format, the
/// report names them for what they are, `info` shows them, and no byte of
/// the manifest is left (the manifest store's UUID, and a HEIF's `uuid`
/// box type, searched for in the output). A Motion Photo's video and the
/// XMP that points at it go together.
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)))
struct ContentCredentialsTests {
    static let storeUUID: [UInt8] = [
        0x63, 0x32, 0x70, 0x61, 0x00, 0x11, 0x00, 0x10, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B,
        0x71,
    ]
    static let bmffUUID: [UInt8] = [
        0xD8, 0xFE, 0xC3, 0xD6, 0x1B, 0x0E, 0x48, 0x3C, 0x92, 0x97, 0x58, 0x28, 0x87, 0x7E, 0xC4,
        0x81,
    ]

    static func holds(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        bytes.firstRange(of: needle) != nil
    }

    @Test(arguments: [
        ("C.jpg", "jpg", "APP11 (C2PA)"), ("photo_c2pa.jpg", "jpg", "APP11 (C2PA)"),
        ("photo_c2pa.png", "png", "caBX chunk (C2PA)"),
        ("photo_c2pa.webp", "webp", "\"C2PA\" chunk (C2PA)"),
        ("photo_c2pa.heic", "heic", "uuid box of 3660 bytes (C2PA)"),
        ("photo_c2pa.avif", "avif", "uuid box of 3660 bytes (C2PA)"),
        ("photo_c2pa.heic", "jpg", "uuid box of 3660 bytes (C2PA)"),
        ("photo_c2pa.png", "jpg", "caBX chunk (C2PA)"),
    ])
    func credentialsAreRemovedAndNamed(file: String, output: String, segment: String) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("c2pa/\(file)")
        let sourceBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        #expect(Self.holds(sourceBytes, Self.storeUUID) || Self.holds(sourceBytes, Self.bmffUUID))
        let info = cropkit(["info", source])
        #expect(info.out.contains("C2PA         content credentials ("), "\(info.out)")
        let out = folder.appendingPathComponent("crop.\(output)").path
        let run = cropkit(["crop", source, "--pixels", "10,10,200,150", "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains(
                "dropped \(segment): C2PA content credentials: their signature binds the uncropped pixels"
            ), "\(run.out)")
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(!Self.holds(written, Self.storeUUID) && !Self.holds(written, Self.bmffUUID))
        let tags = try ExifTool.tags(out, groups: "-G1")
        #expect(
            !tags.keys.contains { $0.hasPrefix("JUMBF:") || $0.hasSuffix("C2PA") }, "\(tags.keys)")
        #expect(cropkit(["info", out]).out.contains("C2PA") == false)
    }

    /// A Google Motion Photo: the video after the image and the XMP that
    /// names it (`GCamera:MotionPhoto*`, the container's video item) both
    /// go, and the report says what the video was.
    @Test func aMotionPhotosVideoGoesWithItsXMP() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("c2pa/motion_photo.MP.jpg")
        let before = try ExifTool.tags(source, groups: "-G1")
        #expect(before["XMP-GCamera:MotionPhoto"] != nil)
        let out = folder.appendingPathComponent("crop.jpg").path
        let run = cropkit(["crop", source, "--pixels", "10,10,200,150", "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains(
                "dropped 31780 bytes after the image: the Motion Photo video: it shows the whole scene"
            ), "\(run.out)")
        #expect(run.out.contains("GCamera:MotionPhoto removed"), "\(run.out)")
        let tags = try ExifTool.tags(out, groups: "-G1")
        let left = tags.keys.filter {
            $0.hasPrefix("XMP-GCamera:") || $0.hasPrefix("XMP-Container:")
                || $0.contains("EmbeddedVideo")
        }
        #expect(left.isEmpty, "\(left)")
        let leaks = cropkit(["leaks", out])
        #expect(leaks.out.contains("clean"), "\(leaks.out)")
    }
}
