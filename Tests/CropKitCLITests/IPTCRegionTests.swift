import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

/// IPTC image regions (`Iptc4xmpExt:ImageRegion`: a rectangle, a circle or
/// a polygon, in pixels or relative units) move with the crop: the upright
/// photos of `regions/` that carry them, cropped to five rects into their
/// own format and across, read back by exiftool. Each kept region equals
/// the source's cut to the crop, computed here independently (a circle
/// the crop cuts by the box of its part inside, from the circle's own
/// extremes, the rect's corners and where the edges cross it; a polygon by
/// the hull of its vertices inside, the rect's corners inside it and the
/// edges' crossings), within the six decimals written; each removed one is
/// named.
@Suite(
    .announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
    .enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)))
struct IPTCRegionTests {
    typealias P = (x: Double, y: Double)

    /// A region as exiftool reads it: its name, shape, unit and numbers.
    struct Region {
        var name: String
        var shape: String
        var relative: Bool
        var x = 0.0, y = 0.0, w = 0.0, h = 0.0, rx = 0.0
        var vertices: [P] = []

        init?(_ item: [String: Any]) {
            guard let name = item["Name"] as? String,
                let boundary = item["RegionBoundary"] as? [String: Any],
                let shape = boundary["RbShape"] as? String
            else { return nil }
            self.name = name
            self.shape = shape
            relative = boundary["RbUnit"] as? String == "relative"
            func number(_ key: String) -> Double {
                (boundary[key] as? NSNumber)?.doubleValue ?? .nan
            }
            (x, y, w, h, rx) = (
                number("RbX"), number("RbY"), number("RbW"), number("RbH"), number("RbRx")
            )
            let list = boundary["RbVertices"] as? [[String: Any]] ?? []
            vertices = list.map {
                (
                    ($0["RbX"] as? NSNumber)?.doubleValue ?? .nan,
                    ($0["RbY"] as? NSNumber)?.doubleValue ?? .nan
                )
            }
        }
    }

    static func regions(_ path: String) throws -> [Region] {
        try ExifTool.imageRegions(path).compactMap(Region.init)
    }

    /// The box of the part of the disc at `c` of radius `r` inside the
    /// rect `[x0, x1] × [y0, y1]`; `nil` when nothing is.
    static func discBox(_ c: P, _ r: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double)
        -> (Double, Double, Double, Double)?
    {
        var points: [P] = []
        func inRect(_ p: P) -> Bool {
            p.x >= x0 - 1e-9 && p.x <= x1 + 1e-9 && p.y >= y0 - 1e-9 && p.y <= y1 + 1e-9
        }
        for p in [(c.x - r, c.y), (c.x + r, c.y), (c.x, c.y - r), (c.x, c.y + r)] where inRect(p) {
            points.append(p)
        }
        for p in [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        where (p.0 - c.x) * (p.0 - c.x) + (p.1 - c.y) * (p.1 - c.y) <= r * r {
            points.append(p)
        }
        for x in [x0, x1] where abs(x - c.x) <= r {
            let d = (r * r - (x - c.x) * (x - c.x)).squareRoot()
            for p in [(x, c.y - d), (x, c.y + d)] where inRect(p) { points.append(p) }
        }
        for y in [y0, y1] where abs(y - c.y) <= r {
            let d = (r * r - (y - c.y) * (y - c.y)).squareRoot()
            for p in [(c.x - d, y), (c.x + d, y)] where inRect(p) { points.append(p) }
        }
        guard let minX = points.map(\.x).min(), let maxX = points.map(\.x).max(),
            let minY = points.map(\.y).min(), let maxY = points.map(\.y).max(), maxX > minX,
            maxY > minY
        else { return nil }
        return (minX, minY, maxX - minX, maxY - minY)
    }

    /// The points of the intersection of the convex polygon `poly` and the
    /// rect's boundary: its vertices inside, the rect's corners inside it,
    /// and where the edges cross.
    static func intersectionPoints(
        _ poly: [P], _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double
    )
        -> [P]
    {
        let rect: [P] = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        func cross(_ o: P, _ a: P, _ b: P) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        func inside(_ p: P, _ shape: [P]) -> Bool {
            let signs = shape.indices.map { cross(shape[$0], shape[($0 + 1) % shape.count], p) }
            return signs.allSatisfy { $0 >= -1e-9 } || signs.allSatisfy { $0 <= 1e-9 }
        }
        var points = poly.filter { inside($0, rect) } + rect.filter { inside($0, poly) }
        for i in poly.indices {
            let (a, b) = (poly[i], poly[(i + 1) % poly.count])
            for j in rect.indices {
                let (c, d) = (rect[j], rect[(j + 1) % rect.count])
                let denominator = (b.x - a.x) * (d.y - c.y) - (b.y - a.y) * (d.x - c.x)
                guard abs(denominator) > 1e-12 else { continue }
                let t = ((c.x - a.x) * (d.y - c.y) - (c.y - a.y) * (d.x - c.x)) / denominator
                let u = ((c.x - a.x) * (b.y - a.y) - (c.y - a.y) * (b.x - a.x)) / denominator
                if (0...1).contains(t), (0...1).contains(u) {
                    points.append((a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)))
                }
            }
        }
        return points
    }

    /// The area of the convex hull of `points` (monotone chain).
    static func hullArea(_ points: [P]) -> Double {
        let sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        guard sorted.count >= 3 else { return 0 }
        func cross(_ o: P, _ a: P, _ b: P) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var hull: [P] = []
        for pass in 0..<2 {
            let start = hull.count
            for p in pass == 0 ? sorted : sorted.reversed() {
                while hull.count >= start + 2,
                    cross(hull[hull.count - 2], hull[hull.count - 1], p) <= 0
                {
                    hull.removeLast()
                }
                hull.append(p)
            }
            hull.removeLast()
        }
        return area(hull)
    }

    /// A polygon's area (shoelace).
    static func area(_ poly: [P]) -> Double {
        abs(
            poly.indices.reduce(0.0) {
                let (a, b) = (poly[$1], poly[($1 + 1) % poly.count])
                return $0 + a.x * b.y - b.x * a.y
            }) / 2
    }

    @Test(arguments: [
        ("canon_t3i_o1.jpg", 1152, 768, "jpg"), ("canon_t3i_o1.jpg", 1152, 768, "webp"),
        ("fujifilm_s2pro_o1.webp", 600, 400, "jpg"), ("fujifilm_s2pro_o1.png", 600, 400, "png"),
        ("fujifilm_s2pro_o1.png", 600, 400, "jpg"),
    ])
    func imageRegionsMoveWithTheCrop(file: String, width: Int, height: Int, output: String) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("regions/\(file)")
        let before = try Self.regions(source)
        try #require(before.map(\.shape) == ["rectangle", "circle", "polygon"])
        let (sw, sh) = (Double(width), Double(height))
        for (fx, fy, fw, fh) in MWGRegionTests.fractions {
            let rect = (x: Int(fx * sw), y: Int(fy * sh), w: Int(fw * sw), h: Int(fh * sh))
            let out = folder.appendingPathComponent("crop.\(output)").path
            let run = cropkit([
                "crop", source, "--pixels", "\(rect.x),\(rect.y),\(rect.w),\(rect.h)", "-o", out,
                "--force",
            ])
            try #require(run.status == 0, "\(run.err)")
            let after = try Self.regions(out)
            let (x0, y0) = (Double(rect.x), Double(rect.y))
            let (x1, y1) = (x0 + Double(rect.w), y0 + Double(rect.h))
            let (ow, oh) = (Double(rect.w), Double(rect.h))
            // Six decimals of a pixel, or of a relative unit of the side.
            let tolerance = 1e-5 * max(ow, oh) + 1e-5
            for region in before {
                let what = "\(file) -> \(output) \(rect) \(region.name)"
                let (ux, uy) = region.relative ? (sw, sh) : (1, 1)
                let got = after.first { $0.name == region.name }
                // Where the region lands, in the output's pixels, or nil.
                switch region.shape {
                case "rectangle":
                    let (a0, b0) = (max(region.x * ux, x0), max(region.y * uy, y0))
                    let (a1, b1) = (
                        min((region.x + region.w) * ux, x1), min((region.y + region.h) * uy, y1)
                    )
                    guard a1 > a0, b1 > b0 else {
                        #expect(got == nil, "\(what): kept outside the crop")
                        #expect(run.out.contains("\(region.name) (outside the crop)"), "\(what)")
                        continue
                    }
                    let g = try #require(got, "\(what): removed")
                    let (gx, gy) = g.relative ? (ow, oh) : (1, 1)
                    #expect(g.shape == "rectangle" && g.relative == region.relative, "\(what)")
                    #expect(abs(g.x * gx - (a0 - x0)) <= tolerance, "\(what) x")
                    #expect(abs(g.y * gy - (b0 - y0)) <= tolerance, "\(what) y")
                    #expect(abs(g.w * gx - (a1 - a0)) <= tolerance, "\(what) w")
                    #expect(abs(g.h * gy - (b1 - b0)) <= tolerance, "\(what) h")
                case "circle":
                    let c = (region.x * ux, region.y * uy)
                    let r = region.rx * (region.relative ? sw : 1)
                    guard let box = Self.discBox(c, r, x0, y0, x1, y1) else {
                        #expect(got == nil, "\(what): kept outside the crop")
                        #expect(run.out.contains("\(region.name) (outside the crop)"), "\(what)")
                        continue
                    }
                    let g = try #require(got, "\(what): removed")
                    let (gx, gy) = g.relative ? (ow, oh) : (1, 1)
                    if c.0 - r >= x0, c.0 + r <= x1, c.1 - r >= y0, c.1 + r <= y1 {
                        // Held whole: the same circle, moved.
                        #expect(g.shape == "circle", "\(what)")
                        #expect(abs(g.x * gx - (c.0 - x0)) <= tolerance, "\(what) x")
                        #expect(abs(g.y * gy - (c.1 - y0)) <= tolerance, "\(what) y")
                        #expect(abs(g.rx * gx - r) <= tolerance, "\(what) r")
                    } else {
                        // Cut: the box of its part inside.
                        #expect(g.shape == "rectangle", "\(what)")
                        #expect(abs(g.x * gx - (box.0 - x0)) <= tolerance, "\(what) x")
                        #expect(abs(g.y * gy - (box.1 - y0)) <= tolerance, "\(what) y")
                        #expect(abs(g.w * gx - box.2) <= tolerance, "\(what) w")
                        #expect(abs(g.h * gy - box.3) <= tolerance, "\(what) h")
                    }
                default:
                    let poly = region.vertices.map { ($0.x * ux, $0.y * uy) }
                    let points = Self.intersectionPoints(poly, x0, y0, x1, y1)
                    let expected = Self.hullArea(points)
                    guard expected > 0 else {
                        #expect(got == nil, "\(what): kept outside the crop")
                        #expect(run.out.contains("\(region.name) (outside the crop)"), "\(what)")
                        continue
                    }
                    let g = try #require(got, "\(what): removed")
                    let (gx, gy) = g.relative ? (ow, oh) : (1, 1)
                    #expect(g.shape == "polygon", "\(what)")
                    let kept = g.vertices.map { ($0.x * gx + x0, $0.y * gy + y0) }
                    // Every vertex on the intersection's corners, and the
                    // same area.
                    for v in kept {
                        #expect(
                            points.contains {
                                abs($0.x - v.0) <= tolerance && abs($0.y - v.1) <= tolerance
                            },
                            "\(what): vertex \(v) not a corner of the intersection")
                    }
                    #expect(
                        abs(Self.area(kept) - expected) <= tolerance * max(ow, oh) * 4,
                        "\(what) area")
                }
            }
        }
    }

    /// A straightened crop turns each region: a rectangle becomes the
    /// turned polygon exactly (IPTC can hold one), each vertex taken back
    /// through the crop's inverse lands on the source rectangle's corner;
    /// a circle stays a circle of the same radius.
    @Test func aStraightenedCropTurnsTheRegions() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestData.path("regions/canon_t3i_o1.jpg")
        let out = folder.appendingPathComponent("turned.jpg").path
        let run = cropkit([
            "crop", source, "--pixels", "100,50,800,600", "--angle", "10", "-o", out,
        ])
        try #require(run.status == 0, "\(run.err)")
        let before = try Self.regions(source)
        let after = try Self.regions(out)
        let crop = try StraightenedCrop(
            frame: StraightenedFrame(imageSize: PixelSize(width: 1152, height: 768), angle: 10),
            rect: PixelRect(x: 100, y: 50, width: 800, height: 600))
        let mapping = PlaceMapping(crop)
        let sign = try #require(before.first { $0.name == "Sign" })
        let turned = try #require(after.first { $0.name == "Sign" })
        #expect(turned.shape == "polygon" && turned.vertices.count == 4, "\(turned)")
        let corners: [P] = [
            (sign.x, sign.y), (sign.x + sign.w, sign.y), (sign.x + sign.w, sign.y + sign.h),
            (sign.x, sign.y + sign.h),
        ]
        for v in turned.vertices {
            let back = mapping.imagePoint(of: Point(x: v.x, y: v.y))
            #expect(
                corners.contains { abs($0.x - back.x) <= 1e-4 && abs($0.y - back.y) <= 1e-4 },
                "\(v) -> \(back)")
        }
        let clock = try #require(before.first { $0.name == "Clock" })
        let round = try #require(after.first { $0.name == "Clock" })
        #expect(round.shape == "circle" && round.relative, "\(round)")
        #expect(abs(round.rx * 800 - clock.rx * 1152) <= 1e-3)
        let centre = mapping.imagePoint(of: Point(x: round.x * 800, y: round.y * 600))
        #expect(abs(centre.x - clock.x * 1152) <= 1e-3 && abs(centre.y - clock.y * 768) <= 1e-3)
    }

    /// `info` lists each IPTC region with its shape, values and unit;
    /// malformed ones are removed by name.
    @Test func infoListsImageRegions() {
        let info = cropkit(["info", TestData.path("regions/canon_t3i_o1.jpg")])
        #expect(
            info.out.contains(
                "XMP IPTC region Sign: a rectangle 173x92, top-left 634,77 (pixels of the stored image; mapped by a crop)"
            ), "\(info.out)")
        #expect(
            info.out.contains(
                "XMP IPTC region Roof: a polygon of 4 vertices 173,538 461,476 553,691 230,730"),
            "\(info.out)")
    }
}
