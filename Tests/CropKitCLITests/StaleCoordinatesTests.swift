import CropKitTestSupport
import Foundation
import Testing

/// The first goal: no stale coordinate field in any output. Every
/// photo of `regions/`, the real Apple HEICs and the Lens Blur JPEG, cropped
/// off every grid into its own format and into JPEG, read back by
/// exiftool: `AppliedToDimensions` is the output's stored size; every
/// `SubjectArea` and `SubjectLocation` centre, every MWG and Microsoft
/// area, every IPTC boundary and the GFocus point lie inside the image;
/// and `cropkit leaks` finds nothing. Today's check of a field's exact
/// value is in the field's own suite; this one holds the whole corpus to
/// the rule that nothing points outside the picture.
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)))
struct StaleCoordinatesTests {
    static let files = [
        "regions/canon_t3i_o1.jpg", "regions/canon_t3i_o6.jpg", "regions/casio_exs1_o3.jpg",
        "regions/casio_exs1_o8.jpg", "regions/fujifilm_s2pro_o1.png",
        "regions/fujifilm_s2pro_o1.webp", "regions/pug_iphone13pro.heic",
        "heif/libvips/Example1.heic", "heif/pillow-heif/arrow.heic",
        "camera/android_depthmap_xmp.jpg",
    ]

    static func numbers(_ value: Any?) -> [Double] {
        if let n = value as? Double { return [n] }
        if let n = value as? Int { return [Double(n)] }
        if let list = value as? [Any] { return list.flatMap { numbers($0) } }
        if let text = value as? String {
            return text.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap {
                Double($0)
            }
        }
        return []
    }

    /// A file's size as `cropkit info --json` gives it: "stored" or
    /// "oriented".
    static func size(_ path: String, _ key: String) throws -> (Int, Int) {
        let run = cropkit(["info", "--json", path])
        let json =
            try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any] ?? [:]
        let size = json[key] as? [String: Any]
        let (w, h) = (size?["width"] as? Int ?? 0, size?["height"] as? Int ?? 0)
        try #require(w > 0 && h > 0, "\(path): \(run.out.prefix(300))")
        return (w, h)
    }

    @Test(arguments: files)
    func noOutputPointsOutsideItsPicture(_ file: String) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path(file)
        let own = URL(fileURLWithPath: file).pathExtension
        // A rect off every grid, a third of the way in: it cuts some
        // regions, leaves some out and holds some whole.
        let (sw, sh) = try Self.size(source, "oriented")
        let rect = "\(sw / 3 + 1),\(sh / 4 + 1),\(sw / 2 - 3),\(sh / 2 - 1)"
        // A HEIC is cropped to HEIC (its tiles and companions cut) and,
        // Example1 (Apple's Focus region) only, to JPEG as well: the
        // suites of each field cross formats on every file.
        let outputs =
            own == "heic" && !file.contains("Example1") ? [own] : Array(Set([own, "jpg"]))
        for ext in outputs {
            let out = folder.appendingPathComponent("crop.\(ext)").path
            let run = cropkit(["crop", source, "--pixels", rect, "-o", out, "--force"])
            try #require(run.status == 0, "\(file) -> \(ext): \(run.err)")
            let tags = try ExifTool.tags(out, groups: "-G1")
            let what = "\(file) -> \(ext)"
            // The output's stored size, what its fields are relative to.
            let stored = try Self.size(out, "stored")
            let (ow, oh) = (Double(stored.0), Double(stored.1))
            if let applied = tags["XMP-mwg-rs:RegionAppliedToDimensionsW"] {
                #expect(Self.numbers(applied) == [ow], "\(what)")
                #expect(Self.numbers(tags["XMP-mwg-rs:RegionAppliedToDimensionsH"]) == [oh])
            }
            for name in ["ExifIFD:SubjectArea", "ExifIFD:SubjectLocation"] {
                let v = Self.numbers(tags[name])
                if v.count >= 2 {
                    #expect(
                        v[0] < ow && v[1] < oh && v[0] >= 0 && v[1] >= 0, "\(what) \(name) \(v)")
                }
            }
            let normalized = [
                "XMP-mwg-rs:RegionAreaX", "XMP-mwg-rs:RegionAreaY", "XMP-MP:RegionRectangle",
                "XMP-GFocus:FocalPointX", "XMP-GFocus:FocalPointY",
            ]
            for name in normalized {
                for v in Self.numbers(tags[name]) {
                    #expect(v >= -1e-6 && v <= 1 + 1e-6, "\(what) \(name) \(v)")
                }
            }
            for region in try ExifTool.imageRegions(out) {
                let b = region["RegionBoundary"] as? [String: Any] ?? [:]
                let scale = b["RbUnit"] as? String == "relative" ? (1.0, 1.0) : (ow, oh)
                let xs =
                    Self.numbers(b["RbX"])
                    + Self.numbers(
                        (b["RbVertices"] as? [[String: Any]])?.map { $0["RbX"] as Any })
                let ys =
                    Self.numbers(b["RbY"])
                    + Self.numbers(
                        (b["RbVertices"] as? [[String: Any]])?.map { $0["RbY"] as Any })
                #expect(xs.allSatisfy { $0 >= -1e-6 && $0 <= scale.0 + 1e-6 }, "\(what) \(region)")
                #expect(ys.allSatisfy { $0 >= -1e-6 && $0 <= scale.1 + 1e-6 }, "\(what) \(region)")
            }
            let leaks = cropkit(["leaks", out])
            #expect(leaks.status == 0 && leaks.out.contains("clean"), "\(what): \(leaks.out)")
        }
    }
}
