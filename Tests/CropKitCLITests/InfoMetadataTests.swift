import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// `info` shows one metadata model for every format: the EXIF tags and
/// their orientation, where the photo was taken, the XMP packets, and what
/// else the file carries (a JPEG's info once said nothing of its EXIF, GPS
/// or thumbnail, while a HEIC's did).
@Suite(.announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct InfoMetadataTests {
    static func info(_ file: String) throws -> [String: Any] {
        let run = cropkit("info", "--json", TestData.path(file))
        try #require(run.status == 0, "\(run.err)")
        let object = try JSONSerialization.jsonObject(with: Data(run.out.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func aJPEGShowsItsEXIFLocationAndThumbnail() throws {
        let info = try Self.info("camera/samsung_galaxys_orient6_gps.jpg")
        #expect((info["exifTags"] as? String)?.hasSuffix("tags, orientation 6") == true)
        #expect(info["location"] as? [String] == ["EXIF GPS (6 tags)"])
        let embedded = try #require(info["embedded"] as? [String])
        #expect(embedded.contains { $0.contains("IFD1") })
        #expect(info["xmpPackets"] as? Int == 0)
    }

    @Test func aJPEGWithXMPAndADepthMapShowsThem() throws {
        let info = try Self.info("camera/android_depthmap_xmp.jpg")
        #expect(info["xmpPackets"] as? Int == 1)
        let embedded = try #require(info["embedded"] as? [String])
        #expect(embedded.contains { $0.contains("GDepth:Data (a depth map of the whole photo)") })
        #expect(embedded.contains { $0.contains("GImage:Data (an image of the whole photo)") })
    }

    @Test func aHEICShowsTheSameModel() throws {
        let info = try Self.info("heif/libvips/apple-heic-gainmap.heic")
        #expect((info["exifTags"] as? String)?.hasSuffix("orientation 6") == true)
        #expect((info["location"] as? [String])?.first?.hasPrefix("EXIF GPS") == true)
        let embedded = try #require(info["embedded"] as? [String])
        #expect(embedded.contains { $0.contains("thumbnail") })
    }

    @Test func aPNGWithoutMetadataSaysSo() throws {
        let info = try Self.info("pngsuite/generated/coords_rgba8_251x97.png")
        #expect(info["exifTags"] as? String == "none")
        #expect(info["location"] as? [String] == [])
        #expect(info["embedded"] as? [String] == [])
        let text = cropkit("info", TestData.path("pngsuite/generated/coords_rgba8_251x97.png")).out
        #expect(text.contains("location     none"))
    }
}
