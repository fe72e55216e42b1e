import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// A flag that cannot be honoured is refused, never ignored: `--gain-map
/// crop` exited 0 on a HEIC cropped to JPEG and on a resized JPEG, and the
/// gain map it asked to keep was gone. Both are now refused before anything
/// is decoded (exit 2, the reason and the way out named, nothing written);
/// a photo without a gain map is cropped as without the flag.
@Suite(.announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct IgnoredFlagTests {
    @Test(arguments: [
        (
            "heif/libvips/apple-heic-gainmap.heic", ["--pixels", "1000,1000,1200,900"],
            "this HEIF carries an HDR gain map auxiliary image"
        ),
        (
            "camera/iphone14promax_p3_hdrgainmap.jpg", ["--pixels", "8,8,32,40", "--width", "20"],
            "a turned, resized or circled crop does not carry it yet"
        ),
        (
            "camera/iphone14promax_p3_hdrgainmap.jpg", ["--pixels", "8,8,32,40", "--angle", "2"],
            "a turned, resized or circled crop does not carry it yet"
        ),
        (
            "camera/iphone14promax_p3_hdrgainmap.jpg", ["--pixels", "8,8,32,40", "--circle"],
            "a turned, resized or circled crop does not carry it yet"
        ),
    ])
    func aGainMapThatCannotBeKeptIsRefused(source: String, options: [String], says: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.jpg").path
        let run = cropkit(
            ["crop", TestData.path(source), "-o", output, "--gain-map", "crop"] + options)
        #expect(run.status == 2, "\(run.err)")
        #expect(
            run.err.contains(says) && run.err.contains("leave out --gain-map crop"), "\(run.err)")
        #expect(!FileManager.default.fileExists(atPath: output))
        // Without the flag the same crop is written, and says it dropped the gain map.
        let plain = cropkit(["crop", TestData.path(source), "-o", output] + options)
        #expect(plain.status == 0, "\(plain.err)")
    }

    /// Where it can be honoured it is (the gain map kept, the leak check
    /// clean), and a photo with no gain map is cropped as without it.
    @Test func aGainMapThatCanBeKeptIsKept() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.jpg").path
        let kept = cropkit(
            "crop", TestData.path("camera/iphone14promax_p3_hdrgainmap.jpg"), "-o", output,
            "--pixels", "8,8,32,40", "--gain-map", "crop", "--json")
        #expect(kept.status == 0, "\(kept.err)")
        #expect(kept.out.contains(#""segment":"APP2 MPF","action":"rewritten""#), "\(kept.out)")
        let none = cropkit(
            "crop", TestData.path("camera/canon_t3i.jpg"), "-o", output, "--force", "--pixels",
            "8,8,32,40", "--width", "20", "--gain-map", "crop")
        #expect(none.status == 0, "\(none.err)")
    }
}
