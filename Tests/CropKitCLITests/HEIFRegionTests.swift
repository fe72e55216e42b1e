import CropKitTestSupport
import Foundation
import Testing

/// The system's Python, for scripts that use its standard library only.
enum SystemPython {
    static let path = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}

/// HEIF region items (`rgan`) move with a HEIC crop: a point, a rectangle,
/// an ellipse, a polygon, a polyline and a mask are added to the generated
/// lossless HEICs (a grid, one with a clean aperture and a reference space
/// twice the canvas, one turned by `irot`) by `scripts/heif-regions.py`,
/// the crops read back by the same script (standard-library Python,
/// independent of the Swift reader). Each kept geometry equals the
/// source's in canvas pixels moved by the crop and cut to it, computed
/// here; a polyline the crop cuts and a mask are removed and named; a
/// crop to another format names the item removed; a malformed item is
/// removed by name and the crop still written.
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: SystemPython.path != nil, "needs python3 (standard library only)"))
struct HEIFRegionTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/heif-regions.py").path

    /// Runs the script; its standard output.
    static func run(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SystemPython.path ?? "python3")
        process.arguments = [script] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "heif-regions.py \(arguments)")
        return data
    }

    /// The file's primary canvas, clean aperture and region items.
    static func read(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: run(["read", path])) as? [String: Any])
    }

    /// `source` with one region item of `spec` added, in `folder`.
    static func withRegions(_ source: String, _ spec: String, in folder: URL) throws -> String {
        let specPath = folder.appendingPathComponent("spec.json").path
        try Data(spec.utf8).write(to: URL(fileURLWithPath: specPath))
        let out = folder.appendingPathComponent("regions.heic").path
        _ = try run(["add", TestData.path(source), out, specPath])
        return out
    }

    static func ints(_ value: Any?) -> [Int] { (value as? [Any])?.compactMap { $0 as? Int } ?? [] }

    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        /// The reference space's size as a multiple of the canvas.
        var scale: Int
        /// Seen rects to crop.
        var rects: [(Int, Int, Int, Int)]
        var testDescription: String { file }
    }

    static let cases = [
        Case(
            file: "heif/generated/coords_1001x777_grid512_lossless.heic", scale: 1,
            rects: [
                (200, 150, 520, 600), (0, 0, 1001, 777), (512, 0, 489, 512), (37, 511, 700, 266),
            ]
        ),
        Case(
            file: "heif/generated/coords_1001x777_clap_lossless.heic", scale: 2,
            rects: [(200, 150, 520, 600), (0, 0, 400, 300)]),
        Case(
            file: "heif/generated/coords_orient6_700x1100_grid512_lossless.heic", scale: 1,
            rects: [(100, 200, 500, 600), (0, 0, 700, 1100)]),
    ]

    @Test(arguments: cases)
    func regionItemsMoveWithTheCrop(_ c: Case) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = try Self.read(TestData.path(c.file))
        let canvas = Self.ints(original["canvas"])
        let sourceClap = Self.ints(original["clap"])
        let (ow, oh) = sourceClap.count == 4 ? (sourceClap[0], sourceClap[1]) : (0, 0)
        let stored = sourceClap.count == 4 ? (sourceClap[2], sourceClap[3]) : (canvas[0], canvas[1])
        let turned = (original["transforms"] as? [[Any]])?.contains { "\($0[0])" == "irot" } == true
        // In canvas pixels: a rectangle, an ellipse, a polygon, a polyline,
        // a point and a mask, written at `scale` reference units a pixel.
        let s = c.scale
        let spec = """
            {"reference": [\(canvas[0] * s), \(canvas[1] * s)], "geometries": [
             ["point", \(500 * s), \(400 * s)], ["rectangle", \(100 * s), \(100 * s), \(300 * s), \(200 * s)],
             ["ellipse", \(640 * s), \(430 * s), \(80 * s), \(50 * s)],
             ["polygon", [[\(50 * s), \(600 * s)], [\(400 * s), \(550 * s)], [\(450 * s), \(690 * s)], [\(80 * s), \(700 * s)]]],
             ["polyline", [[\(600 * s), \(100 * s)], [\(700 * s), \(150 * s)]]], ["mask", 5]]}
            """
        let source = try Self.withRegions(c.file, spec, in: folder)
        for rect in c.rects {
            let out = folder.appendingPathComponent("crop.heic").path
            let run = cropkit([
                "crop", source, "--pixels", "\(rect.0),\(rect.1),\(rect.2),\(rect.3)", "-o", out,
                "--force",
            ])
            try #require(run.status == 0, "\(rect): \(run.err)")
            let what = "\(c.file) \(rect)"
            #expect(run.out.contains("a mask, which is not cut yet"), "\(what): \(run.out)")
            // The crop's stored rect on the source's canvas (orientation 6:
            // display = stored turned a quarter clockwise).
            let r =
                turned
                ? (rect.1, stored.1 - rect.0 - rect.2, rect.3, rect.2)
                : (rect.0, rect.1, rect.2, rect.3)
            let (x0, y0) = (Double(r.0 + ow), Double(r.1 + oh))
            let (x1, y1) = (x0 + Double(r.2), y0 + Double(r.3))
            let written = try Self.read(out)
            let clap = Self.ints(written["clap"])
            let (cx, cy) = clap.count == 4 ? (Double(clap[0]), Double(clap[1])) : (0, 0)
            let outCanvas = Self.ints(written["canvas"])
            let regions = written["regions"] as? [[String: Any]] ?? []
            try #require(regions.count == 1, "\(what): \(written)")
            #expect(Self.ints(regions[0]["reference"]) == outCanvas, "\(what)")
            #expect(regions[0]["primary"] as? Bool == true)
            var geometries = regions[0]["geometries"] as? [[Any]] ?? []
            // The crop's report gives each region kept where it went, as
            // values: what the independent reader finds in the file.
            let reported = cropkit([
                "crop", source, "--pixels", "\(rect.0),\(rect.1),\(rect.2),\(rect.3)", "-o",
                folder.appendingPathComponent("again.heic").path, "--force", "--json",
            ])
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(reported.out.utf8)) as? [String: Any])
            let entries = (report["written"] as? [String: Any])?["metadata"] as? [[String: Any]]
            let rgan = try #require(
                entries?.first { ($0["segment"] as? String)?.hasPrefix("rgan") == true },
                "\(what): \(reported.out)")
            let mapped = (rgan["changes"] as? [[String: Any]] ?? []).filter {
                $0["outcome"] as? String == "mapped"
            }.map { "\($0["field"] ?? "") \(Self.ints($0["values"]))" }
            let read = geometries.map { geometry -> String in
                let values = geometry.dropFirst().flatMap { value -> [Int] in
                    if let number = value as? Int { return [number] }
                    return (value as? [[Int]] ?? []).flatMap { $0 }
                }
                return "\(geometry[0]) \(values)"
            }
            #expect(!mapped.isEmpty && mapped == read, "\(what): \(mapped) \(read)")
            func take(_ kind: String) -> [Any]? {
                guard let at = geometries.firstIndex(where: { "\($0[0])" == kind }) else {
                    return nil
                }
                return geometries.remove(at: at)
            }
            // Canvas pixels of the source to the output's canvas.
            func moved(_ x: Double, _ y: Double) -> (Double, Double) { (x - x0 + cx, y - y0 + cy) }
            // The point: pixel 500,400's centre.
            if 500.5 >= x0, 500.5 < x1, 400.5 >= y0, 400.5 < y1 {
                let p = try #require(take("point"), "\(what): the point removed")
                let m = moved(500, 400)
                #expect(p[1] as? Int == Int(m.0) && p[2] as? Int == Int(m.1), "\(what): \(p)")
            } else {
                #expect(take("point") == nil, "\(what): a point outside kept")
            }
            // The rectangle, cut to the crop.
            let (a0, b0, a1, b1) = (max(100, x0), max(100, y0), min(400, x1), min(300, y1))
            if a1 > a0, b1 > b0 {
                let g = try #require(take("rectangle"), "\(what): the rectangle removed")
                let m = moved(a0, b0)
                #expect(
                    Self.ints(Array(g.dropFirst())) == [
                        Int(m.0), Int(m.1), Int(a1 - a0), Int(b1 - b0),
                    ],
                    "\(what): \(g)")
            }
            // The ellipse: moved whole, or the box of its part inside.
            if 640 - 80 >= x0, 640 + 80 <= x1, 430 - 50 >= y0, 430 + 50 <= y1 {
                let g = try #require(take("ellipse"), "\(what): the ellipse removed")
                let m = moved(640, 430)
                #expect(Self.ints(Array(g.dropFirst())) == [Int(m.0), Int(m.1), 80, 50], "\(what)")
            } else if 640 + 80 > x0, 640 - 80 < x1, 430 + 50 > y0, 430 - 50 < y1 {
                // Cut: a rectangle within half a pixel of the part's box
                // (its extremes, the crop's corners inside it, and where
                // the crop's edges cross it).
                var points: [(Double, Double)] = []
                for t in stride(from: 0.0, to: 2 * Double.pi, by: Double.pi / 20000) {
                    let (x, y) = (640 + 80 * cos(t), 430 + 50 * sin(t))
                    if x >= x0, x <= x1, y >= y0, y <= y1 { points.append((x, y)) }
                }
                for (x, y) in [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]
                where ((x - 640) / 80) * ((x - 640) / 80) + ((y - 430) / 50) * ((y - 430) / 50) <= 1
                {
                    points.append((x, y))
                }
                for x in [x0, x1] where abs(x - 640) <= 80 {
                    let d = 50 * (1 - ((x - 640) / 80) * ((x - 640) / 80)).squareRoot()
                    points += [(x, 430 - d), (x, 430 + d)].filter { $0.1 >= y0 && $0.1 <= y1 }
                }
                for y in [y0, y1] where abs(y - 430) <= 50 {
                    let d = 80 * (1 - ((y - 430) / 50) * ((y - 430) / 50)).squareRoot()
                    points += [(640 - d, y), (640 + d, y)].filter { $0.0 >= x0 && $0.0 <= x1 }
                }
                let boxes = take("rectangle")
                let g = try #require(boxes, "\(what): the cut ellipse removed")
                let (p, q) = (
                    moved(points.map(\.0).min()!, points.map(\.1).min()!),
                    moved(points.map(\.0).max()!, points.map(\.1).max()!)
                )
                let got = Self.ints(Array(g.dropFirst())).map(Double.init)
                let want = [p.0, p.1, q.0 - p.0, q.1 - p.1]
                #expect(
                    zip(got, want).allSatisfy { abs($0 - $1) <= 1.01 }, "\(what): \(got) \(want)")
            }
            // The polygon: its vertices on the intersection's corners
            // (whole pixels: within one), its area the intersection's.
            let polygon: [(x: Double, y: Double)] = [(50, 600), (400, 550), (450, 690), (80, 700)]
            let corners = IPTCRegionTests.intersectionPoints(polygon, x0, y0, x1, y1)
            let area = IPTCRegionTests.hullArea(corners)
            if area > 0 {
                let g = try #require(take("polygon"), "\(what): the polygon removed")
                let vertices = (g[1] as? [[Int]] ?? []).map { (x: Double($0[0]), y: Double($0[1])) }
                for v in vertices {
                    let back = (x: v.x + x0 - cx, y: v.y + y0 - cy)
                    #expect(
                        corners.contains { abs($0.x - back.x) <= 0.5 && abs($0.y - back.y) <= 0.5 },
                        "\(what): \(v)")
                }
                // Each vertex rounded to whole pixels moves the area by at
                // most half a pixel along the perimeter.
                let perimeter = vertices.indices.reduce(0.0) {
                    let (a, b) = (vertices[$1], vertices[($1 + 1) % vertices.count])
                    return $0 + ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
                }
                let got = IPTCRegionTests.area(vertices)
                #expect(abs(got - area) <= 0.5 * perimeter + 1, "\(what): \(got) \(area)")
            }
            // The polyline: kept only where the crop holds it whole.
            if 600 >= x0, 700 <= x1, 100 >= y0, 150 <= y1 {
                let g = try #require(take("polyline"), "\(what): the polyline removed")
                let m = [moved(600, 100), moved(700, 150)].map { [Int($0.0), Int($0.1)] }
                #expect(g[1] as? [[Int]] == m, "\(what)")
            } else {
                #expect(take("polyline") == nil)
                #expect(run.out.contains("a polyline the crop cuts or leaves out"), "\(what)")
            }
            #expect(geometries.isEmpty, "\(what): left \(geometries)")
        }
    }

    /// A crop to another format cannot hold a region item: it is removed
    /// and named. `info` lists the item's geometries.
    @Test func otherFormatsNameTheItemRemoved() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try Self.withRegions(
            "heif/generated/coords_1001x777_grid512_lossless.heic",
            #"{"reference": [1001, 777], "geometries": [["rectangle", 100, 100, 300, 200]]}"#,
            in: folder)
        let info = cropkit(["info", source])
        #expect(
            info.out.contains("rgan item 7: a rectangle 300x200 at 100,100 (reference 1001x777"),
            "\(info.out)")
        let out = folder.appendingPathComponent("crop.jpg").path
        let run = cropkit(["crop", source, "--pixels", "0,0,500,400", "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains(
                "dropped rgan item 7 (HEIF regions): HEIF regions, which this output cannot hold"),
            "\(run.out)")
    }

    /// A region item that lies (a polygon of 65535 points in a few bytes, a
    /// geometry type 9, an item cut short) is removed, saying it cannot be
    /// read, and the crop is written.
    @Test(arguments: [
        "00 00 03e9 0309 01 03 ffff 0001",
        "00 00 03e9 0309 01 09 0001 0002",
        "00 01 000003e9 00000309 01 00",
    ])
    func malformedItemsAreRemoved(hex: String) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try Self.withRegions(
            "heif/generated/coords_1001x777_grid512_lossless.heic",
            #"{"reference": [1001, 777], "geometries": [["point", 1, 1]]}"#, in: folder)
        // The item's 12 bytes replaced by 12 hostile ones, in place.
        var data = try Data(contentsOf: URL(fileURLWithPath: source))
        let good = Data([0, 0, 0x03, 0xE9, 0x03, 0x09, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01])
        let bad = Data(
            stride(from: 0, to: hex.filter { $0 != " " }.count, by: 2).map {
                let digits = Array(hex.filter { $0 != " " })
                return UInt8(String(digits[$0..<$0 + 2]), radix: 16)!
            })
        let at = try #require(data.range(of: good), "the item's bytes")
        try #require(bad.count == good.count)
        data.replaceSubrange(at, with: bad)
        try data.write(to: URL(fileURLWithPath: source))
        let out = folder.appendingPathComponent("crop.heic").path
        let run = cropkit(["crop", source, "--pixels", "0,0,500,400", "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(run.out.contains("it cannot be read as a region item: removed"), "\(run.out)")
        #expect((try Self.read(out)["regions"] as? [Any])?.isEmpty == true)
    }
}
