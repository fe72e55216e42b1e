import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

/// MWG regions (faces; each a centre and size normalized to the stored
/// image, MWG Guidelines 2.0 §5.9) move with the crop: the real photos of
/// `regions/` at orientations 1, 3, 6 and 8 and the iPhone HEIC, cropped to
/// five rects into their own format and across, read back by exiftool.
/// Each kept region, taken back to pixels of the output's stored grid,
/// equals the source's region taken through the orientation and clipped
/// to the crop, computed here with the orientation's own formulas, within
/// the six decimals written; each removed one is named; and
/// `AppliedToDimensions` is the output's stored size.
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)))
struct MWGRegionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        var stored: (Int, Int)
        var output: String
        var testDescription: String { "\(file) -> \(output)" }
    }

    static let cases: [Case] = [
        Case(file: "canon_t3i_o1.jpg", stored: (1152, 768), output: "jpg"),
        Case(file: "canon_t3i_o6.jpg", stored: (768, 1152), output: "jpg"),
        Case(file: "canon_t3i_o6.jpg", stored: (768, 1152), output: "png"),
        Case(file: "casio_exs1_o3.jpg", stored: (640, 480), output: "jpg"),
        Case(file: "casio_exs1_o8.jpg", stored: (480, 640), output: "jpg"),
        Case(file: "casio_exs1_o8.jpg", stored: (480, 640), output: "webp"),
        Case(file: "fujifilm_s2pro_o1.webp", stored: (600, 400), output: "webp"),
        Case(file: "fujifilm_s2pro_o1.png", stored: (600, 400), output: "png"),
        Case(file: "fujifilm_s2pro_o1.png", stored: (600, 400), output: "jpg"),
        Case(file: "pug_iphone13pro.heic", stored: (4032, 3024), output: "heic"),
        Case(file: "pug_iphone13pro.heic", stored: (4032, 3024), output: "jpg"),
    ]

    static let fractions: [(Double, Double, Double, Double)] = [
        (0, 0, 1, 1), (0.25, 0.25, 0.5, 0.5), (0, 0, 0.4, 0.4), (0.6, 0.6, 0.4, 0.4),
        (0.13, 0.29, 0.51, 0.37),
    ]

    /// A list tag's values as exiftool gives them (one value, or a list).
    static func list(_ value: Any?) -> [Any] {
        if let array = value as? [Any] { return array }
        return value.map { [$0] } ?? []
    }

    /// The stored point `(x, y)` of a `w×h` stored image as seen in
    /// orientation `o` (continuous coordinates), by the EXIF table.
    static func seen(_ x: Double, _ y: Double, _ o: Int, _ w: Double, _ h: Double) -> (
        Double, Double
    ) {
        switch o {
        case 2: (w - x, y)
        case 3: (w - x, h - y)
        case 4: (x, h - y)
        case 5: (y, x)
        case 6: (h - y, x)
        case 7: (h - y, w - x)
        case 8: (y, w - x)
        default: (x, y)
        }
    }

    @Test(arguments: cases)
    func regionsMoveWithTheCrop(_ c: Case) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("regions/\(c.file)")
        let tags = try ExifTool.tags(source, groups: "-G1")
        let o = tags["IFD0:Orientation"] as? Int ?? 1
        let names = Self.list(tags["XMP-mwg-rs:RegionName"]).map { "\($0)" }
        let areas = ["X", "Y", "W", "H"].map {
            Self.list(tags["XMP-mwg-rs:RegionArea\($0)"]).compactMap { $0 as? Double }
        }
        try #require(!names.isEmpty && areas.allSatisfy { $0.count == names.count })
        let (sw, sh) = (Double(c.stored.0), Double(c.stored.1))
        let turned = o >= 5
        let (dw, dh) = turned ? (sh, sw) : (sw, sh)
        let fractions = c.file.hasSuffix(".heic") ? Array(Self.fractions.prefix(3)) : Self.fractions
        for (fx, fy, fw, fh) in fractions {
            let rect = (x: Int(fx * dw), y: Int(fy * dh), w: Int(fw * dw), h: Int(fh * dh))
            let out = folder.appendingPathComponent("crop.\(c.output)").path
            let run = cropkit([
                "crop", source, "--pixels", "\(rect.x),\(rect.y),\(rect.w),\(rect.h)", "-o", out,
                "--force",
            ])
            try #require(run.status == 0, "\(rect): \(run.err)")
            let written = try ExifTool.tags(out, groups: "-G1")
            // A lossless JPEG crop and a HEIC crop keep the stored grid.
            let keepsGrid = (written["IFD0:Orientation"] as? Int ?? 1) == o && o != 1
            let (ow, oh) = keepsGrid && turned ? (rect.h, rect.w) : (rect.w, rect.h)
            let outNames = Self.list(written["XMP-mwg-rs:RegionName"]).map { "\($0)" }
            let outAreas = ["X", "Y", "W", "H"].map {
                Self.list(written["XMP-mwg-rs:RegionArea\($0)"]).compactMap { $0 as? Double }
            }
            let what = "\(c.testDescription) \(rect)"
            if !outNames.isEmpty {
                #expect(written["XMP-mwg-rs:RegionAppliedToDimensionsW"] as? Int == ow, "\(what)")
                #expect(written["XMP-mwg-rs:RegionAppliedToDimensionsH"] as? Int == oh, "\(what)")
            }
            for (n, name) in names.enumerated() {
                // The region as seen, clipped to the crop, in the crop's
                // pixels.
                let (x, y, w, h) = (
                    areas[0][n] * sw, areas[1][n] * sh, areas[2][n] * sw, areas[3][n] * sh
                )
                let a = Self.seen(x - w / 2, y - h / 2, o, sw, sh)
                let b = Self.seen(x + w / 2, y + h / 2, o, sw, sh)
                let x0 = max(min(a.0, b.0), Double(rect.x)) - Double(rect.x)
                let x1 = min(max(a.0, b.0), Double(rect.x + rect.w)) - Double(rect.x)
                let y0 = max(min(a.1, b.1), Double(rect.y)) - Double(rect.y)
                let y1 = min(max(a.1, b.1), Double(rect.y + rect.h)) - Double(rect.y)
                guard x1 > x0, y1 > y0 else {
                    #expect(!outNames.contains(name), "\(what) \(name): kept outside the crop")
                    #expect(run.out.contains("\(name) (outside the crop)"), "\(what): \(run.out)")
                    continue
                }
                let k = try #require(outNames.firstIndex(of: name), "\(what) \(name): removed")
                // Back from the output's normalized stored grid to the
                // crop as seen.
                var (cx, cy) = (outAreas[0][k] * Double(ow), outAreas[1][k] * Double(oh))
                var (cw, ch) = (outAreas[2][k] * Double(ow), outAreas[3][k] * Double(oh))
                if keepsGrid {
                    let p = Self.seen(cx, cy, o, Double(ow), Double(oh))
                    (cx, cy) = p
                    if turned { (cw, ch) = (ch, cw) }
                }
                // Six decimals of a side: half a millionth of it.
                let tolerance = 0.5e-6 * Double(max(ow, oh)) * 2 + 1e-9
                #expect(abs(cx - (x0 + x1) / 2) <= tolerance, "\(what) \(name) x")
                #expect(abs(cy - (y0 + y1) / 2) <= tolerance, "\(what) \(name) y")
                #expect(abs(cw - (x1 - x0)) <= 2 * tolerance, "\(what) \(name) w")
                #expect(abs(ch - (y1 - y0)) <= 2 * tolerance, "\(what) \(name) h")
            }
        }
    }

    /// Names of people are personal data, like a location: kept by default
    /// and said so (read back from the written file), removed by `--strip
    /// people` (MWG face regions, Microsoft's people regions).
    @Test func stripPeopleRemovesFacesAndNames() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("regions/canon_t3i_o1.jpg")
        let out = folder.appendingPathComponent("crop.jpg").path
        let kept = cropkit(["crop", source, "--pixels", "0,0,600,500", "-o", out])
        try #require(kept.status == 0, "\(kept.err)")
        #expect(
            kept.out.contains(
                "kept the names of 2 people (Alice, Bruno); --strip people removes them"),
            "\(kept.out)")
        // Written to standard output, the report (on standard error) says
        // so too.
        let piped = try cropkitProcess([
            "crop", source, "--pixels", "0,0,600,500", "-o", "-", "--format", "jpeg",
        ])
        #expect(
            piped.err.contains(
                "kept the names of 2 people (Alice, Bruno); --strip people removes them"),
            "\(piped.err)")
        let stripped = cropkit([
            "crop", source, "--pixels", "0,0,600,500", "-o", out, "--force", "--strip", "people",
            "--json",
        ])
        try #require(stripped.status == 0, "\(stripped.err)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(stripped.out.utf8)) as? [String: Any])
        #expect((report["keptPeople"] as? [Any])?.isEmpty == true, "\(stripped.out)")
        #expect(stripped.out.contains("removed 3 MWG region(s) of people (--strip people)"))
        let tags = try ExifTool.tags(out, groups: "-G1")
        let people = tags.keys.filter {
            $0.hasPrefix("XMP-mwg-rs:") || $0.hasPrefix("XMP-MP:") || $0.contains("PersonInImage")
        }
        #expect(people.isEmpty, "\(people)")
        // The regions that are not people stay (IPTC's named objects).
        #expect(tags["XMP-iptcExt:ImageRegionName"] != nil)
    }

    /// A Lightroom crop (`crs:HasCrop`, `crs:Crop*`) describes a crop of
    /// the uncropped photo: kept, Lightroom would crop the crop again. The
    /// crop removes it and says so (written here by exiftool into a copy).
    @Test func anAdobeCropIsRemoved() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("lightroom.jpg").path
        try FileManager.default.copyItem(
            atPath: TestData.path("regions/canon_t3i_o1.jpg"), toPath: source)
        let tool = try #require(ExifTool.path)
        let write = Process()
        write.executableURL = URL(fileURLWithPath: tool)
        write.arguments = [
            "-q", "-overwrite_original", "-XMP-crs:HasCrop=True", "-XMP-crs:CropTop=0.1",
            "-XMP-crs:CropLeft=0.2", "-XMP-crs:CropBottom=0.9", "-XMP-crs:CropRight=0.8", source,
        ]
        try write.run()
        write.waitUntilExit()
        #expect(try ExifTool.tags(source, groups: "-G1")["XMP-crs:CropTop"] != nil)
        let out = folder.appendingPathComponent("crop.jpg").path
        let run = cropkit(["crop", source, "--pixels", "10,10,300,200", "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(run.out.contains("Adobe crs: crop settings removed"), "\(run.out)")
        let left = try ExifTool.tags(out, groups: "-G1").keys.filter { $0.hasPrefix("XMP-crs:") }
        #expect(left.isEmpty, "\(left)")
    }

    /// Microsoft's people regions (`MPReg:Rectangle`, top-left x, y, w, h
    /// normalized; read as MWG's, on the stored image), on the upright
    /// files that carry them: each kept one equals the source's clipped to
    /// the crop, each removed one is named.
    @Test(arguments: [
        ("canon_t3i_o1.jpg", 1152, 768, "jpg"), ("canon_t3i_o1.jpg", 1152, 768, "webp"),
        ("fujifilm_s2pro_o1.webp", 600, 400, "jpg"), ("fujifilm_s2pro_o1.png", 600, 400, "png"),
    ])
    func microsoftRegionsMoveWithTheCrop(file: String, width: Int, height: Int, output: String)
        throws
    {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("regions/\(file)")
        func regions(_ path: String) throws -> [(String, [Double])] {
            let tags = try ExifTool.tags(path, groups: "-G1")
            let names = Self.list(tags["XMP-MP:RegionPersonDisplayName"]).map { "\($0)" }
            let rects = Self.list(tags["XMP-MP:RegionRectangle"]).map {
                "\($0)".split(separator: ",").compactMap {
                    Double($0.trimmingCharacters(in: .whitespaces))
                }
            }
            return Array(zip(names, rects))
        }
        let before = try regions(source)
        try #require(before.count == 3)
        for (fx, fy, fw, fh) in Self.fractions {
            let rect = (
                x: Int(fx * Double(width)), y: Int(fy * Double(height)), w: Int(fw * Double(width)),
                h: Int(fh * Double(height))
            )
            let out = folder.appendingPathComponent("crop.\(output)").path
            let run = cropkit([
                "crop", source, "--pixels", "\(rect.x),\(rect.y),\(rect.w),\(rect.h)", "-o", out,
                "--force",
            ])
            try #require(run.status == 0, "\(run.err)")
            let after = try regions(out)
            for (name, r) in before {
                let x0 = max(r[0] * Double(width), Double(rect.x)) - Double(rect.x)
                let y0 = max(r[1] * Double(height), Double(rect.y)) - Double(rect.y)
                let x1 =
                    min((r[0] + r[2]) * Double(width), Double(rect.x + rect.w)) - Double(rect.x)
                let y1 =
                    min((r[1] + r[3]) * Double(height), Double(rect.y + rect.h)) - Double(rect.y)
                let what = "\(file) \(rect) \(name)"
                guard x1 > x0, y1 > y0 else {
                    #expect(!after.contains { $0.0 == name }, "\(what): kept outside the crop")
                    #expect(run.out.contains("\(name) (outside the crop)"), "\(what): \(run.out)")
                    continue
                }
                let got = try #require(after.first { $0.0 == name }?.1, "\(what): removed")
                try #require(got.count == 4)
                let tolerance = 0.5e-6 * Double(max(rect.w, rect.h)) + 1e-9
                #expect(abs(got[0] * Double(rect.w) - x0) <= tolerance, "\(what)")
                #expect(abs(got[1] * Double(rect.h) - y0) <= tolerance, "\(what)")
                #expect(abs(got[2] * Double(rect.w) - (x1 - x0)) <= 2 * tolerance, "\(what)")
                #expect(abs(got[3] * Double(rect.h) - (y1 - y0)) <= 2 * tolerance, "\(what)")
            }
        }
    }

    /// Google's focal point (`GFocus:FocalPointX`, `Y`, normalized, of a
    /// Lens Blur depth photo) moves with the crop: read back by exiftool
    /// and taken back to the photo, it is the source's within the six
    /// decimals written; a crop that leaves it out removes it and says so.
    @Test func googlesFocalPointMovesWithTheCrop() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("camera/android_depthmap_xmp.jpg")
        let before = try ExifTool.tags(source, groups: "-G1")
        let (fx, fy) = (
            try #require(before["XMP-GFocus:FocalPointX"] as? Double),
            try #require(before["XMP-GFocus:FocalPointY"] as? Double)
        )
        for (rect, output) in [((100, 200, 500, 600), "jpg"), ((37, 411, 601, 333), "png")] {
            let out = folder.appendingPathComponent("crop.\(output)").path
            let run = cropkit([
                "crop", source, "--pixels", "\(rect.0),\(rect.1),\(rect.2),\(rect.3)", "-o", out,
                "--force",
            ])
            try #require(run.status == 0, "\(run.err)")
            #expect(run.out.contains("GFocus focal point mapped to"), "\(run.out)")
            let after = try ExifTool.tags(out, groups: "-G1")
            let x = try #require(after["XMP-GFocus:FocalPointX"] as? Double)
            let y = try #require(after["XMP-GFocus:FocalPointY"] as? Double)
            #expect(
                abs(x * Double(rect.2) + Double(rect.0) - fx * 768) <= 0.5e-6 * Double(rect.2)
                    + 1e-9)
            #expect(
                abs(y * Double(rect.3) + Double(rect.1) - fy * 1024) <= 0.5e-6 * Double(rect.3)
                    + 1e-9)
        }
        let out = folder.appendingPathComponent("corner.jpg").path
        let run = cropkit(["crop", source, "--pixels", "0,0,100,100", "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains("GFocus focal point removed: it lies outside the crop"), "\(run.out)")
        #expect(try ExifTool.tags(out, groups: "-G1")["XMP-GFocus:FocalPointX"] == nil)
    }

    /// A batch's report lines say which names of people each output kept
    /// (`keptPeople`), for a plain line and for each variant; `--strip
    /// people` in the line's options empties them.
    @Test func batchReportsSayWhichNamesAreKept() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("regions/canon_t3i_o1.jpg")
        let manifest = folder.appendingPathComponent("manifest.jsonl").path
        try Data(
            """
            {"input":"\(source)","output":"plain.jpg","pixels":{"x":0,"y":0,"width":600,"height":500}}
            {"input":"\(source)","pixels":{"x":0,"y":0,"width":600,"height":500},"variants":[{"output":"small.png","width":300},{"output":"right.jpg","pixels":{"x":700,"y":500,"width":452,"height":268}}]}

            """.utf8
        ).write(to: URL(fileURLWithPath: manifest))
        let report = folder.appendingPathComponent("report.jsonl").path
        let run = cropkit(["batch", manifest, "--report", report])
        try #require(run.status == 0, "\(run.err)")
        let lines = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n")
            .compactMap {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        try #require(lines.count == 2, "\(lines)")
        let plain = lines.first { $0["variants"] == nil }
        #expect(plain?["keptPeople"] as? [String] == ["Alice", "Bruno"], "\(lines)")
        let variants = lines.first { $0["variants"] != nil }?["variants"] as? [[String: Any]] ?? []
        #expect(
            variants.map { $0["keptPeople"] as? [String] ?? ["?"] } == [
                ["Alice", "Bruno"], ["Chen"],
            ], "\(variants)")
    }

    /// Region lists that would cost unbounded work, in a real photo's XMP
    /// (a PNG's iTXt, which can hold megabytes): a million items, and a
    /// list nested 10⁴ deep. Each is removed whole with a clear line,
    /// counted without being walked, the rest of the packet kept, and the
    /// crop written.
    @Test(arguments: [("million", 1_000_000), ("deep", 10_000)])
    func hostileRegionListsStillCrop(kind: String, count: Int) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list =
            kind == "million"
            ? String(repeating: "<rdf:li/>", count: count)
            : String(
                repeating: "<rdf:li rdf:parseType='Resource'><mwg-rs:RegionList><rdf:Bag>",
                count: count)
                + String(repeating: "</rdf:Bag></mwg-rs:RegionList></rdf:li>", count: count)
        let xmp =
            "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'><rdf:Description rdf:about='' xmlns:dc='http://purl.org/dc/elements/1.1/' xmlns:mwg-rs='http://www.metadataworkinggroup.com/schemas/regions/'><dc:format>image/png</dc:format><mwg-rs:Regions rdf:parseType='Resource'><mwg-rs:RegionList><rdf:Bag>"
            + list
            + "</rdf:Bag></mwg-rs:RegionList></mwg-rs:Regions></rdf:Description></rdf:RDF></x:xmpmeta>"
        let data = Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(xmp.utf8)
        let body = Array("iTXt".utf8) + data
        func be(_ v: UInt32) -> [UInt8] {
            [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        let chunk = be(UInt32(data.count)) + body + be(TestData.crc32(body))
        let png = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: TestData.path("regions/fujifilm_s2pro_o1.png"))))
        let source = folder.appendingPathComponent("hostile.png").path
        try Data(Array(png[..<33]) + chunk + Array(png[33...])).write(
            to: URL(fileURLWithPath: source))
        let out = folder.appendingPathComponent("crop.png").path
        let run = cropkit(["crop", source, "--pixels", "10,10,300,200", "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains(
                "MWG regions removed: \(count) items, more than the 1000 CropKit maps"),
            "\(run.out)")
        let tags = try ExifTool.tags(out, groups: "-G1")
        #expect(tags["XMP-mwg-rs:RegionName"] == nil && tags["XMP-mwg-rs:RegionAreaX"] == nil)
        #expect(tags["XMP-dc:Format"] as? String == "image/png", "\(tags.keys.sorted())")
    }

    /// A straightened and resized crop: each kept MWG region is the box of
    /// its turned region cut to the output, nothing more: its corners taken
    /// through the crop's transform (CropGeometry's `PlaceMapping`, tested
    /// against the orientation table and by round trips), clipped here to
    /// the output by the convex intersection, boxed, and compared within
    /// the six written decimals.
    @Test func aStraightenedResizedCropBoxesTheTurnedRegions() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("regions/canon_t3i_o1.jpg")
        let out = folder.appendingPathComponent("turned.png").path
        let run = cropkit([
            "crop", source, "--pixels", "100,50,800,600", "--angle", "10", "--width", "400", "-o",
            out,
        ])
        try #require(run.status == 0, "\(run.err)")
        let crop = try StraightenedCrop(
            frame: StraightenedFrame(imageSize: PixelSize(width: 1152, height: 768), angle: 10),
            rect: PixelRect(x: 100, y: 50, width: 800, height: 600),
            outputSize: PixelSize(width: 400, height: 300))
        let mapping = PlaceMapping(crop)
        let before = try ExifTool.tags(source, groups: "-G1")
        let after = try ExifTool.tags(out, groups: "-G1")
        #expect(after["XMP-mwg-rs:RegionAppliedToDimensionsW"] as? Int == 400)
        let names = Self.list(before["XMP-mwg-rs:RegionName"]).map { "\($0)" }
        let areas = ["X", "Y", "W", "H"].map {
            Self.list(before["XMP-mwg-rs:RegionArea\($0)"]).compactMap { $0 as? Double }
        }
        let outNames = Self.list(after["XMP-mwg-rs:RegionName"]).map { "\($0)" }
        let outAreas = ["X", "Y", "W", "H"].map {
            Self.list(after["XMP-mwg-rs:RegionArea\($0)"]).compactMap { $0 as? Double }
        }
        var kept = 0
        for (n, name) in names.enumerated() {
            let (x, y, w, h) = (
                areas[0][n] * 1152, areas[1][n] * 768, areas[2][n] * 1152, areas[3][n] * 768
            )
            let quad = [
                (x - w / 2, y - h / 2), (x + w / 2, y - h / 2), (x + w / 2, y + h / 2),
                (x - w / 2, y + h / 2),
            ].map {
                let p = mapping.outputPoint(of: Point(x: $0.0, y: $0.1))
                return (x: p.x, y: p.y)
            }
            let points = IPTCRegionTests.intersectionPoints(quad, 0, 0, 400, 300)
            guard IPTCRegionTests.hullArea(points) > 0 else {
                #expect(!outNames.contains(name), "\(name) kept outside the crop")
                continue
            }
            let k = try #require(outNames.firstIndex(of: name), "\(name) removed")
            kept += 1
            let (x0, x1) = (points.map(\.x).min()!, points.map(\.x).max()!)
            let (y0, y1) = (points.map(\.y).min()!, points.map(\.y).max()!)
            let got = [
                outAreas[0][k] * 400, outAreas[1][k] * 300, outAreas[2][k] * 400,
                outAreas[3][k] * 300,
            ]
            let want = [(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0]
            #expect(zip(got, want).allSatisfy { abs($0 - $1) <= 1e-3 }, "\(name): \(got) \(want)")
        }
        #expect(kept >= 1)
    }
}
