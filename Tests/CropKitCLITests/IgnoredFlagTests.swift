import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Companions are kept by default where the output carries them (a
/// turned, resized or circled JPEG now carries its gain map resampled with
/// it), and a crop that cannot carry one says so instead of dropping it
/// silently:
/// `--gain-map crop` exited 0 on a HEIC cropped to JPEG and on a resized
/// JPEG, and the gain map it asked to keep was gone without a word. Now
/// every such crop is written with a warning naming the gain map and why it
/// is not carried, by default and with `--companions keep` (or its old name
/// `--gain-map crop`) alike; `--companions drop` drops it without one.
@Suite(.announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct IgnoredFlagTests {
    /// A HEIC's gain map in a JPEG: carried (Apple's in Apple's form,
    /// Samsung's in Ultra HDR's) by default and with either spelling of
    /// the flag, never with a warning that it was not; dropped on request,
    /// in silence. A JPEG made from a HEIC whose gain map cannot be carried
    /// still says so (the warning's words are in `resampledJPEGMetadata`).
    @Test(arguments: [
        ("hdr/galaxys25ultra_gainmap_tmap.heic", "1000,1000,1200,800"),
        ("heif/libvips/apple-heic-gainmap.heic", "1000,1000,1200,900"),
    ])
    func aHEICsGainMapIsCarriedIntoAJPEG(source: String, rect: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.jpg").path
        for flags in [[], ["--companions", "keep"], ["--gain-map", "crop"]] {
            let run = cropkit(
                ["crop", TestData.path(source), "-o", output, "--force", "--pixels", rect] + flags)
            #expect(run.status == 0, "\(flags): \(run.err)")
            #expect(run.out.contains("rewritten APP2 MPF: "), "\(flags): \(run.out)")
            #expect(!run.err.contains("standard dynamic range"), "\(flags): \(run.err)")
        }
        let dropped = cropkit(
            "crop", TestData.path(source), "-o", output, "--force", "--pixels", rect,
            "--companions", "drop")
        #expect(dropped.status == 0, "\(dropped.err)")
        #expect(!dropped.out.contains("rewritten APP2 MPF"))
        #expect(!dropped.err.contains("companions are kept where"))
    }

    /// Where it can be carried it is, by default (the gain map cut and
    /// kept, the leak check clean), and dropped on request; a photo with
    /// no gain map is cropped as without the flag.
    @Test(.enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)))
    func aGainMapThatCanBeKeptIsKept() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.jpg").path
        let photo = TestData.path("camera/iphone14promax_p3_hdrgainmap.jpg")
        for flags in [[], ["--companions", "keep"], ["--gain-map", "crop"]] {
            let kept = cropkit(
                ["crop", photo, "-o", output, "--force", "--pixels", "8,8,32,40", "--json"] + flags)
            #expect(kept.status == 0, "\(kept.err)")
            #expect(kept.out.contains(#""segment":"APP2 MPF","action":"rewritten""#), "\(kept.out)")
        }
        let dropped = cropkit(
            "crop", photo, "-o", output, "--force", "--pixels", "8,8,32,40", "--json",
            "--companions", "drop")
        #expect(dropped.out.contains(#""segment":"APP2 MPF","action":"dropped""#), "\(dropped.out)")
        let none = cropkit(
            "crop", TestData.path("camera/canon_t3i.jpg"), "-o", output, "--force", "--pixels",
            "8,8,32,40", "--width", "20", "--companions", "keep")
        #expect(none.status == 0, "\(none.err)")
        #expect(!none.err.contains("companions are kept where"))
        // Turned, resized and circled crops carry it, resampled with them.
        for options in [["--width", "20"], ["--angle", "2"], ["--circle"]] {
            let resampled = cropkit(
                ["crop", photo, "-o", output, "--force", "--pixels", "8,8,32,40"] + options)
            #expect(resampled.status == 0, "\(resampled.err)")
            #expect(
                resampled.out.contains(
                    "rewritten APP2 MPF: the HDR gain map resampled with the crop"),
                "\(options): \(resampled.out)")
            #expect(!resampled.err.contains("standard dynamic range"), "\(resampled.err)")
            #expect(
                try ExifTool.tags(output, groups: "-G1")["MPF0:NumberOfImages"] as? Int == 2)
            let leaks = cropkit(["leaks", output])
            #expect(leaks.status == 0, "\(options): \(leaks.out)")
        }
        let both = cropkit(
            "crop", photo, "-o", output, "--force", "--pixels", "8,8,32,40", "--companions",
            "keep", "--gain-map", "crop")
        #expect(
            both.status == 64 && both.err.contains("--gain-map is the old name of --companions"))
    }
}
