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

    /// The findings `embedded` lists, each as "PLACE: DETAIL".
    static func embedded(_ info: [String: Any]) throws -> [String] {
        try #require(info["embedded"] as? [[String: Any]]).map {
            "\($0["place"] as? String ?? ""): \($0["detail"] as? String ?? "")"
        }
    }

    @Test func aJPEGShowsItsEXIFLocationAndThumbnail() throws {
        let info = try Self.info("camera/samsung_galaxys_orient6_gps.jpg")
        let tags = try #require(info["exifTags"] as? [String: Any])
        #expect((tags["count"] as? Int ?? 0) > 3)
        #expect(tags["orientation"] as? Int == 6)
        let location = try #require(info["location"] as? [[String: Any]])
        #expect(location.count == 1)
        #expect(location.first?["source"] as? String == "EXIF GPS")
        #expect(location.first?["tags"] as? Int == 6)
        #expect(try Self.embedded(info).contains { $0.contains("IFD1") })
        #expect(info["xmpPackets"] as? Int == 0)
        let text = cropkit("info", TestData.path("camera/samsung_galaxys_orient6_gps.jpg")).out
        #expect(text.contains("location     EXIF GPS (6 tags)\n"), "\(text)")
        #expect(
            text.contains("EXIF tags    \(tags["count"] ?? 0) tags, orientation 6\n"), "\(text)")
    }

    @Test func aJPEGWithXMPAndADepthMapShowsThem() throws {
        let info = try Self.info("camera/android_depthmap_xmp.jpg")
        #expect(info["xmpPackets"] as? Int == 1)
        let embedded = try Self.embedded(info)
        #expect(embedded.contains { $0.contains("GDepth:Data (a depth map of the whole photo)") })
        #expect(embedded.contains { $0.contains("GImage:Data (an image of the whole photo)") })
    }

    @Test func aHEICShowsTheSameModel() throws {
        let info = try Self.info("heif/libvips/apple-heic-gainmap.heic")
        #expect((info["exifTags"] as? [String: Any])?["orientation"] as? Int == 6)
        let location = try #require((info["location"] as? [[String: Any]])?.first)
        #expect(location["source"] as? String == "EXIF GPS")
        #expect(try Self.embedded(info).contains { $0.contains("thumbnail") })
    }

    /// A place is typed: the field, the shape, the values as stored and
    /// their space, and what a crop does; its sentence stays beside it.
    @Test func aPlaceIsAnObject() throws {
        let info = try Self.info("heif/pillow-heif/pug.heic")
        let place = try #require((info["places"] as? [[String: Any]])?.first)
        #expect(place["field"] as? String == "EXIF SubjectArea")
        #expect(place["shape"] as? String == "rectangle")
        #expect(place["values"] as? [Int] == [2003, 1506, 2209, 1327])
        #expect(place["space"] as? String == "storedPixels")
        #expect(place["crop"] as? String == "mapped")
        #expect(
            place["summary"] as? String
                == "EXIF SubjectArea 2003,1506: a rectangle 2209x1327 by its centre (stored pixels; mapped by a crop)"
        )
        let companion = try #require((info["companions"] as? [[String: Any]])?.first)
        #expect(companion["kind"] as? String == "gainMap")
        #expect(companion["size"] as? [String: Int] == ["width": 2016, "height": 1512])
        #expect(companion["scale"] as? [String: Double] == ["x": 0.5, "y": 0.5])
        #expect(
            companion["outputs"] as? [String: String]
                == [
                    "heic": "cut", "jpeg": "carried", "avif": "dropped", "png": "dropped",
                    "webp": "dropped",
                ])
    }

    @Test func aPNGWithoutMetadataSaysSo() throws {
        let info = try Self.info("pngsuite/generated/coords_rgba8_251x97.png")
        #expect(info["exifTags"] is NSNull)
        #expect((info["location"] as? [Any])?.isEmpty == true)
        #expect((info["embedded"] as? [Any])?.isEmpty == true)
        let text = cropkit("info", TestData.path("pngsuite/generated/coords_rgba8_251x97.png")).out
        #expect(text.contains("location     none"))
        #expect(text.contains("EXIF tags    none"))
    }

    /// A crop report says where each place went as values, and the written
    /// file, read back by info, agrees: each XMP region mapped to the box
    /// the report gives (in the output's stored pixels, to a pixel), the
    /// one outside the crop removed and gone, EXIF's SubjectArea where the
    /// report says.
    @Test func aCropReportSaysWhereEachRegionWent() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("r.jpg").path
        let run = cropkit(
            "crop", TestData.path("regions/canon_t3i_o6.jpg"), "-o", output, "--pixels",
            "100,50,700,500", "--json")
        try #require(run.status == 0, "\(run.err)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        let written = try #require(report["written"] as? [String: Any])
        let entries = try #require(written["metadata"] as? [[String: Any]])
        let changes = entries.flatMap { $0["changes"] as? [[String: Any]] ?? [] }
        func change(_ field: String) -> [String: Any]? {
            changes.first { $0["field"] as? String == field }
        }
        let info = try #require(
            try JSONSerialization.jsonObject(with: Data(cropkit("info", "--json", output).out.utf8))
                as? [String: Any])
        let stored = try #require(info["stored"] as? [String: Int])
        let (width, height) = (Double(stored["width"]!), Double(stored["height"]!))
        let places = try #require(info["places"] as? [[String: Any]])
        var checked = 0
        for place in places where (place["field"] as? String) == "XMP MWG region" {
            let name = try #require(place["name"] as? String)
            let mapped = try #require(change("MWG region \(name)"), "\(name) in \(changes)")
            #expect(mapped["outcome"] as? String == "mapped")
            let box = try #require(mapped["values"] as? [Int])
            let read = try #require(place["values"] as? [Double])
            #expect(box.count == 4 && read.count == 4)
            for (index, scale) in [width, height, width, height].enumerated() {
                #expect(
                    abs(Double(box[index]) - read[index] * scale) <= 1, "\(name) \(box) \(read)")
            }
            checked += 1
        }
        #expect(checked == 2)
        #expect(change("MWG region Chen")?["outcome"] as? String == "removed")
        #expect(!places.contains { $0["name"] as? String == "Chen" })
        let subject = try #require(change("SubjectArea")?["values"] as? [Int])
        let exif = try #require(
            places.first { $0["field"] as? String == "EXIF SubjectArea" }?["values"] as? [Int])
        #expect(Array(exif.prefix(2)) == subject)
        #expect(change("PixelXDimension")?["values"] as? [Int] == [Int(width)])
    }
}
