import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// A crop keeps the photo's location by default, and its report says so,
/// read back from the written file, naming `--strip location`; with the
/// flag the report says nothing and exiftool finds no GPS tag. "leaks:
/// clean" speaks of pixels: a newcomer took it for "nothing private left".
@Suite(.announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct KeptLocationTests {
    @Test(arguments: [
        ("camera/samsung_galaxys_orient6_gps.jpg", "jpg", "EXIF GPS"),
        ("camera/hasselblad_l1d_drone_gps.jpg", "jpg", "drone-dji:GpsLatitude"),
        ("camera/hasselblad_l1d_drone_gps.jpg", "png", "EXIF GPS"),
        ("camera/nikon_p6000_gps.jpg", "jpg", "EXIF GPS"),
    ])
    func theReportSaysWhatLocationTheFileKeeps(file: String, ext: String, place: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.\(ext)").path
        let input = TestData.path(file)
        let kept = cropkit("crop", input, "-o", out, "--pixels", "0,0,16,16")
        #expect(kept.status == 0)
        #expect(kept.out.contains("kept the photo's location"), "\(kept.out)")
        #expect(kept.out.contains(place) && kept.out.contains("--strip location"), "\(kept.out)")
        let places = try LocationCheck.places(in: ImageSource.open(path: out))
        #expect(!places.isEmpty)
        let json = cropkit("crop", input, "-o", out, "--pixels", "0,0,16,16", "--force", "--json")
        let report = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
        let keptPlaces = try #require(report?["keptLocation"] as? [[String: Any]], "\(json.out)")
        #expect(!keptPlaces.isEmpty, "\(json.out)")
        #expect(
            keptPlaces.contains {
                place.hasPrefix("EXIF GPS")
                    ? $0["source"] as? String == "EXIF GPS"
                    : ($0["properties"] as? [String])?.contains(place) == true
            }, "\(json.out)")
        let stripped = cropkit(
            "crop", input, "-o", out, "--pixels", "0,0,16,16", "--force", "--strip", "location")
        #expect(stripped.status == 0)
        #expect(!stripped.out.contains("kept the photo's location"), "\(stripped.out)")
        #expect(try LocationCheck.places(in: ImageSource.open(path: out)).isEmpty)
        if let tags = try HEICToJPEGMetadataTests.exiftool(out) {
            let gps = tags.keys.filter { $0.hasPrefix("GPS:") && $0 != "GPS:GPSVersionID" }
            #expect(gps.isEmpty, "\(gps)")
        }
    }

    /// A file without a location: nothing said.
    @Test func aFileWithoutALocationSaysNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.jpg").path
        let run = cropkit(
            "crop", TestData.path("camera/canon_t3i.jpg"), "-o", out, "--pixels", "0,0,16,16")
        #expect(run.status == 0)
        #expect(!run.out.contains("location"), "\(run.out)")
        #expect(try LocationCheck.places(in: ImageSource.open(path: out)).isEmpty)
    }
}
