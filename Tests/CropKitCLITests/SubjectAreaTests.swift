import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

/// EXIF `SubjectArea` (a point, a circle or a rectangle by its centre) and
/// `SubjectLocation` are stored pixel indexes; a crop maps them with its
/// pixels or removes them (DESIGN.md, "Coordinates in metadata"). The real
/// photos of `regions/` carry each shape at orientations 1, 3, 6 and 8,
/// and the iPhone HEIC Apple's own rectangle. Every output, in its own
/// format and across formats, is read back by exiftool and compared with
/// the source's values taken through the orientation table and the crop,
/// in whole pixels (exact, but a clipped rectangle's centre, which may fall
/// between two pixels).
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)))
struct SubjectAreaTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        var output: String
        var testDescription: String { "\(file) -> \(output)" }
    }

    static let cases: [Case] = [
        Case(file: "regions/canon_t3i_o1.jpg", output: "jpg"),
        Case(file: "regions/canon_t3i_o1.jpg", output: "png"),
        Case(file: "regions/canon_t3i_o6.jpg", output: "jpg"),
        Case(file: "regions/canon_t3i_o6.jpg", output: "webp"),
        Case(file: "regions/casio_exs1_o3.jpg", output: "jpg"),
        Case(file: "regions/casio_exs1_o3.jpg", output: "png"),
        Case(file: "regions/casio_exs1_o8.jpg", output: "jpg"),
        Case(file: "regions/casio_exs1_o8.jpg", output: "png"),
        Case(file: "regions/fujifilm_s2pro_o1.webp", output: "webp"),
        Case(file: "regions/fujifilm_s2pro_o1.webp", output: "jpg"),
        Case(file: "regions/fujifilm_s2pro_o1.png", output: "png"),
        Case(file: "regions/fujifilm_s2pro_o1.png", output: "webp"),
        Case(file: "regions/pug_iphone13pro.heic", output: "heic"),
        Case(file: "regions/pug_iphone13pro.heic", output: "jpg"),
    ]

    /// Rects as fractions of the photo as seen: the whole photo, its
    /// centre, two corners and one off every grid.
    static let fractions: [(Double, Double, Double, Double)] = [
        (0, 0, 1, 1), (0.25, 0.25, 0.5, 0.5), (0, 0, 0.4, 0.4), (0.6, 0.6, 0.4, 0.4),
        (0.13, 0.29, 0.51, 0.37),
    ]

    /// The whole numbers of a tag as exiftool reads them (`-n`).
    static func numbers(_ value: Any?) -> [Int]? {
        switch value {
        case let n as Int: [n]
        case let s as String: s.split(separator: " ").compactMap { Int($0) }
        default: nil
        }
    }

    /// An inclusive box of pixel indexes.
    struct Box: Equatable {
        var x0, y0, x1, y1: Int
        func intersection(_ o: Box) -> Box? {
            let b = Box(x0: max(x0, o.x0), y0: max(y0, o.y0), x1: min(x1, o.x1), y1: min(y1, o.y1))
            return b.x0 <= b.x1 && b.y0 <= b.y1 ? b : nil
        }
    }

    /// The stored pixels a field names: a point, a circle's or a rect's
    /// box (odd sides: whole pixels round the centre).
    static func box(_ v: [Int]) -> Box {
        switch v.count {
        case 2: return Box(x0: v[0], y0: v[1], x1: v[0], y1: v[1])
        case 3:
            return Box(
                x0: v[0] - v[2] / 2, y0: v[1] - v[2] / 2, x1: v[0] + v[2] / 2, y1: v[1] + v[2] / 2)
        default:
            return Box(
                x0: v[0] - v[2] / 2, y0: v[1] - v[3] / 2, x1: v[0] + v[2] / 2, y1: v[1] + v[3] / 2)
        }
    }

    /// `box` (stored pixels) as seen, through the orientation table.
    static func seen(_ b: Box, _ o: EXIFOrientation, stored: PixelSize<StoredPixels>) -> Box {
        let p = o.orientedPoint(x: b.x0, y: b.y0, storedSize: stored)
        let q = o.orientedPoint(x: b.x1, y: b.y1, storedSize: stored)
        return Box(x0: min(p.x, q.x), y0: min(p.y, q.y), x1: max(p.x, q.x), y1: max(p.y, q.y))
    }

    @Test(arguments: cases)
    func subjectsMoveWithTheCrop(_ c: Case) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path(c.file)
        let tags = try ExifTool.tags(source, groups: "-G1")
        let orientation = EXIFOrientation(rawValue: tags["IFD0:Orientation"] as? Int ?? 1) ?? .up
        // The stored sizes (regions/SOURCES.md; the cameras' own
        // ExifImageSize is stale in some).
        let sizes: [String: (Int, Int)] = [
            "canon_t3i_o1.jpg": (1152, 768), "canon_t3i_o6.jpg": (768, 1152),
            "casio_exs1_o3.jpg": (640, 480), "casio_exs1_o8.jpg": (480, 640),
            "fujifilm_s2pro_o1.webp": (600, 400), "fujifilm_s2pro_o1.png": (600, 400),
            "pug_iphone13pro.heic": (4032, 3024),
        ]
        let (sw, sh) = try #require(sizes[URL(fileURLWithPath: c.file).lastPathComponent])
        let stored = PixelSize<StoredPixels>(width: sw, height: sh)
        let fields = [("SubjectArea", 0x9214), ("SubjectLocation", 0xA214)].compactMap {
            name, _ -> (String, [Int])? in
            Self.numbers(tags["ExifIFD:\(name)"]).map { (name, $0) }
        }
        try #require(!fields.isEmpty, "\(c.file) has neither field")
        let shown = orientation.orientedSize(stored)
        let fractions = c.file.hasSuffix(".heic") ? Array(Self.fractions.prefix(3)) : Self.fractions
        for (fx, fy, fw, fh) in fractions {
            let rect = PixelRect<ImagePixels>(
                x: Int(fx * Double(shown.width)), y: Int(fy * Double(shown.height)),
                width: Int(fw * Double(shown.width)), height: Int(fh * Double(shown.height)))
            let out = folder.appendingPathComponent("crop.\(c.output)").path
            let run = cropkit([
                "crop", source, "--pixels", "\(rect.x),\(rect.y),\(rect.width),\(rect.height)",
                "-o",
                out, "--force",
            ])
            try #require(run.status == 0, "\(rect): \(run.err)")
            let written = try ExifTool.tags(out, groups: "-G1")
            let outOrientation = written["IFD0:Orientation"] as? Int ?? 1
            // A lossless JPEG crop and a HEIC crop keep the stored grid
            // and its orientation; every other output is upright.
            let keepsGrid = outOrientation == orientation.rawValue && orientation != .up
            let storedRect = orientation.storedRect(rect, storedSize: stored)
            for (name, values) in fields {
                let sourceBox = Self.box(values)
                let expected: Box?
                if keepsGrid {
                    let s = Box(
                        x0: storedRect.x, y0: storedRect.y, x1: storedRect.maxX - 1,
                        y1: storedRect.maxY - 1)
                    expected = sourceBox.intersection(s).map {
                        Box(
                            x0: $0.x0 - s.x0, y0: $0.y0 - s.y0, x1: $0.x1 - s.x0, y1: $0.y1 - s.y0)
                    }
                } else {
                    let r = Box(x0: rect.x, y0: rect.y, x1: rect.maxX - 1, y1: rect.maxY - 1)
                    expected = Self.seen(sourceBox, orientation, stored: stored).intersection(r).map
                    {
                        Box(x0: $0.x0 - r.x0, y0: $0.y0 - r.y0, x1: $0.x1 - r.x0, y1: $0.y1 - r.y0)
                    }
                }
                let got = Self.numbers(written["ExifIFD:\(name)"])
                let what = "\(c.testDescription) \(rect) \(name) \(values)"
                // A circle whose box reaches the crop, but not the disc.
                var reaches = true
                if values.count == 3, expected != nil {
                    // Its centre and the crop, in one grid.
                    let crop =
                        keepsGrid
                        ? Box(
                            x0: storedRect.x, y0: storedRect.y, x1: storedRect.maxX - 1,
                            y1: storedRect.maxY - 1)
                        : Box(x0: rect.x, y0: rect.y, x1: rect.maxX - 1, y1: rect.maxY - 1)
                    let centreBox =
                        keepsGrid
                        ? Self.box([values[0], values[1]])
                        : Self.seen(Self.box([values[0], values[1]]), orientation, stored: stored)
                    let (cx, cy) = (Double(centreBox.x0) + 0.5, Double(centreBox.y0) + 0.5)
                    let nx = min(max(cx, Double(crop.x0)), Double(crop.x1 + 1))
                    let ny = min(max(cy, Double(crop.y0)), Double(crop.y1 + 1))
                    let r = Double(values[2]) / 2
                    reaches = (nx - cx) * (nx - cx) + (ny - cy) * (ny - cy) < r * r
                }
                guard let expected, reaches else {
                    #expect(got == nil, "\(what): \(got ?? []) kept, but it lies outside the crop")
                    #expect(
                        run.out.contains(
                            "\(name) \(values.map(String.init).joined(separator: ",")) removed: it lies outside the crop"
                        ),
                        "\(what): \(run.out)")
                    continue
                }
                let v = try #require(got, "\(what): removed, but \(expected) is inside")
                #expect(
                    run.out.contains("\(name) mapped to \(v[0]),\(v[1])"), "\(what): \(run.out)")
                let whole =
                    expected.x1 - expected.x0 == sourceBox.x1 - sourceBox.x0
                    && expected.y1 - expected.y0 == sourceBox.y1 - sourceBox.y0
                switch (values.count, whole) {
                case (2, _):
                    #expect(v == [expected.x0, expected.y0], "\(what): \(v) for \(expected)")
                case (3, true):
                    #expect(
                        v == [
                            (expected.x0 + expected.x1) / 2, (expected.y0 + expected.y1) / 2,
                            values[2],
                        ],
                        "\(what): \(v) for \(expected)")
                case (3, false):
                    // The box of the disc's part inside: within the
                    // clipped box of the whole circle.
                    try #require(v.count == 4, "\(what): \(v)")
                    #expect(
                        2 * v[0] - v[2] >= 2 * expected.x0 - 2
                            && 2 * v[0] + v[2] <= 2 * expected.x1 + 3
                            && 2 * v[1] - v[3] >= 2 * expected.y0 - 2
                            && 2 * v[1] + v[3] <= 2 * expected.y1 + 3,
                        "\(what): \(v) for \(expected)")
                default:
                    // The clipped rect: its size exact, its centre within
                    // half a pixel.
                    try #require(v.count == 4, "\(what): \(v)")
                    let (w, h) = (expected.x1 - expected.x0 + 1, expected.y1 - expected.y0 + 1)
                    #expect(v[2] == w && v[3] == h, "\(what): \(v) for \(expected)")
                    #expect(
                        abs(2 * v[0] - (expected.x0 + expected.x1)) <= 1
                            && abs(2 * v[1] - (expected.y0 + expected.y1)) <= 1,
                        "\(what): \(v) for \(expected)")
                }
            }
        }
    }

    /// A resized crop: the point lands on the output pixel whose sample
    /// position (``StraightenedCrop``, the pixels' own) is nearest the
    /// source's pixel centre: within half an output pixel each way.
    @Test func aResizedCropScalesThePoint() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("regions/canon_t3i_o6.jpg")
        let out = folder.appendingPathComponent("small.jpg").path
        let run = cropkit([
            "crop", source, "--pixels", "100,200,400,500", "--width", "150", "-o", out,
        ])
        try #require(run.status == 0, "\(run.err)")
        let written = try ExifTool.tags(out, groups: "-G1")
        let v = try #require(Self.numbers(written["ExifIFD:SubjectLocation"]))
        let size = PixelSize<StoredPixels>(width: 768, height: 1152)
        let crop = try StraightenedCrop(
            frame: StraightenedFrame(imageSize: EXIFOrientation.right.orientedSize(size), angle: 0),
            rect: PixelRect(x: 100, y: 200, width: 400, height: 500),
            outputSize: PixelSize(width: 150, height: 188))
        // The source's SubjectLocation 276,806 is seen at the centre of
        // the pixel the table names.
        let seen = EXIFOrientation.right.orientedPoint(x: 276, y: 806, storedSize: size)
        let q = crop.samplePosition(column: v[0], row: v[1])
        let step = (400.0 / 150, 500.0 / 188)
        #expect(abs(q.x - (Double(seen.x) + 0.5)) <= step.0 / 2 + 1e-9, "\(v): \(q)")
        #expect(abs(q.y - (Double(seen.y) + 0.5)) <= step.1 / 2 + 1e-9, "\(v): \(q)")
    }

    /// `info` lists each place with its values, shape and space.
    @Test func infoListsThePlaces() {
        let info = cropkit(["info", TestData.path("regions/casio_exs1_o8.jpg")])
        #expect(
            info.out.contains(
                "EXIF SubjectArea 249,332: a rectangle 145x225 by its centre (stored pixels; mapped by a crop); EXIF SubjectLocation 307,192: a point (stored pixels; mapped by a crop)"
            ), "\(info.out)")
    }

    /// `leaks` finds a SubjectArea left stale (its centre outside the
    /// image), as a crop made by another tool keeps it; a CropKit crop of
    /// the same rect is clean.
    @Test func aStaleSubjectAreaIsALeak() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("crop.jpg").path
        let run = cropkit([
            "crop", TestData.path("regions/canon_t3i_o1.jpg"), "--pixels", "0,0,512,384", "-o", out,
        ])
        try #require(run.status == 0, "\(run.err)")
        #expect(cropkit(["leaks", out]).out.contains("clean"))
        let tool = try #require(ExifTool.path)
        let stale = Process()
        stale.executableURL = URL(fileURLWithPath: tool)
        stale.arguments = ["-q", "-overwrite_original", "-SubjectArea=599 368 403 231", out]
        try stale.run()
        stale.waitUntilExit()
        let leaks = cropkit(["leaks", out])
        #expect(leaks.status != 0)
        #expect(
            leaks.out.contains("SubjectArea 599,368,403,231, its centre outside the 512x384 image"),
            "\(leaks.out)")
    }

    /// Apple's depth calibration, in the depth map's own XMP, is in the
    /// photo's stored pixels: a HEIC crop's depth map (cut by the companion
    /// rule) carries it moved by the crop's offset, its reference size the
    /// crop's; a resized crop's is removed, saying so. Read from the
    /// output's bytes.
    @Test func theDepthCalibrationMovesWithTheCrop() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("regions/pug_iphone13pro.heic")
        let out = folder.appendingPathComponent("crop.heic").path
        let run = cropkit(["crop", source, "--pixels", "1000,1000,1200,900", "-o", out])
        try #require(run.status == 0, "\(run.err)")
        #expect(run.out.contains("the depth calibration moved with the crop"), "\(run.out)")
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self)
        func element(_ name: String) -> String? {
            guard let open = text.range(of: "<depthData:\(name)>"),
                let close = text.range(
                    of: "</depthData:\(name)>", range: open.upperBound..<text.endIndex)
            else { return nil }
            return String(text[open.upperBound..<close.lowerBound])
        }
        #expect(element("IntrinsicMatrixReferenceWidth") == "1200")
        #expect(element("IntrinsicMatrixReferenceHeight") == "900")
        // regions/SOURCES.md: cx 1988.451, cy 1512.307, the distortion
        // centre x 1990.331, all moved by 1000.
        #expect(element("LensDistortionCenterOffsetX") == "990.331298828125")
        let matrix = try #require(element("IntrinsicMatrix"))
        let values = matrix.components(separatedBy: "<rdf:li>").dropFirst().compactMap {
            Double($0.components(separatedBy: "<").first ?? "")
        }
        try #require(values.count == 9, "\(matrix)")
        #expect(values[6] == 1988.450927734375 - 1000 && values[7] == 1512.30712890625 - 1000)
        #expect(values[0] == 3032.59423828125 && values[4] == 3032.59423828125)
    }
}
