import CropGeometry
import CropKitTestSupport
import Testing

/// Places named in metadata carried through a crop (DESIGN.md, "Coordinates
/// in metadata"): the orientation's quarter turns and mirrors, the crop
/// offset, straighten and resize, then clipping, each against an
/// independent computation, and round trips through the inverse.
@Suite struct PlaceMappingTests {
    typealias Seen = Point<ImagePixels>

    static func near(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
        abs(a - b) <= tolerance * max(1, abs(a), abs(b))
    }

    /// The doc comment's example.
    @Test func aFaceAtTheCropsEdgeIsClipped() throws {
        let result = CropResult(
            rect: PixelRect(x: 1000, y: 500, width: 2000, height: 1500), orientation: .up,
            sourceSize: PixelSize(width: 4032, height: 3024))
        let mapping = PlaceMapping(result)
        let face = mapping.map(
            Place<ImagePixels>.rect(Rect(x: 900, y: 600, width: 300, height: 300)))
        #expect(face.place == .rect(Rect(x: 0, y: 100, width: 200, height: 300)))
        #expect(face.clipped)
        let gone = mapping.map(Place<ImagePixels>.point(Seen(x: 10, y: 10)))
        #expect(gone.place == nil && gone.clipped)
    }

    /// A stored pixel's centre is seen at the centre of the pixel the
    /// orientation table names, for every orientation and odd sizes; and
    /// back.
    @Test(arguments: EXIFOrientation.allCases)
    func storedPixelsAreSeenWhereTheTableSays(_ orientation: EXIFOrientation) throws {
        for (sw, sh) in [(7, 5), (1, 3), (4, 1), (640, 480)] {
            let stored = PixelSize<StoredPixels>(width: sw, height: sh)
            let seen = orientation.orientedSize(stored)
            let mapping = PlaceMapping(
                CropResult(
                    rect: PixelRect(x: 0, y: 0, width: seen.width, height: seen.height),
                    orientation: orientation, sourceSize: stored))
            for (i, j) in [(0, 0), (sw - 1, 0), (0, sh - 1), (sw - 1, sh - 1), (sw / 2, sh / 3)] {
                let table = orientation.orientedPoint(x: i, y: j, storedSize: stored)
                let p = mapping.imagePoint(ofStored: Point(x: Double(i) + 0.5, y: Double(j) + 0.5))
                #expect(p == Seen(x: Double(table.x) + 0.5, y: Double(table.y) + 0.5))
                let back = mapping.storedPoint(ofImage: p)
                #expect(back == Point(x: Double(i) + 0.5, y: Double(j) + 0.5))
            }
            // The stored image's corners are the seen image's.
            let whole = mapping.map(
                stored: .rect(Rect(x: 0, y: 0, width: Double(sw), height: Double(sh))))
            #expect(
                whole.place
                    == .rect(
                        Rect(x: 0, y: 0, width: Double(seen.width), height: Double(seen.height))))
            #expect(!whole.clipped)
        }
    }

    /// Random plain crops of random turned photos: a rect maps to the part
    /// of it inside the crop, and back through the inverse to that part of
    /// the source rect (its clipped self); a point inside maps and comes
    /// back, one outside is removed.
    @Test func plainCropsRoundTrip() throws {
        var random = SeededGenerator(seed: 0x91ACE)
        func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        func double(_ range: ClosedRange<Double>) -> Double {
            Double.random(in: range, using: &random)
        }
        for _ in 0..<2000 {
            let orientation = EXIFOrientation.allCases[int(0...7)]
            let stored = PixelSize<StoredPixels>(width: int(1...5000), height: int(1...5000))
            let seen = orientation.orientedSize(stored)
            let (w, h) = (int(1...seen.width), int(1...seen.height))
            let rect = PixelRect<ImagePixels>(
                x: int(0...seen.width - w), y: int(0...seen.height - h), width: w, height: h)
            let mapping = PlaceMapping(
                CropResult(rect: rect, orientation: orientation, sourceSize: stored))
            let region = Rect<ImagePixels>(
                x: double(-100...Double(seen.width)), y: double(-100...Double(seen.height)),
                width: double(0.5...2000), height: double(0.5...2000))
            let mapped = mapping.map(.rect(region))
            let x0 = max(region.x, Double(rect.x))
            let y0 = max(region.y, Double(rect.y))
            let x1 = min(region.maxX, Double(rect.maxX))
            let y1 = min(region.maxY, Double(rect.maxY))
            guard x1 > x0, y1 > y0 else {
                #expect(mapped.place == nil)
                continue
            }
            guard case .rect(let out) = mapped.place else {
                Issue.record("\(region) in \(rect): \(String(describing: mapped.place))")
                continue
            }
            let a = mapping.imagePoint(of: Point(x: out.x, y: out.y))
            let b = mapping.imagePoint(of: Point(x: out.maxX, y: out.maxY))
            #expect(Self.near(a.x, x0) && Self.near(a.y, y0), "\(region) in \(rect)")
            #expect(Self.near(b.x, x1) && Self.near(b.y, y1), "\(region) in \(rect)")
            #expect(
                mapped.clipped
                    == !(x0 == region.x && y0 == region.y && x1 == region.maxX && y1 == region.maxY)
            )
            // The same region given as stored lands in the same place.
            let storedCorners = [
                mapping.storedPoint(ofImage: region.origin),
                mapping.storedPoint(ofImage: Point(x: region.maxX, y: region.maxY)),
            ]
            let asStored = mapping.map(
                stored: .rect(
                    Rect(
                        x: min(storedCorners[0].x, storedCorners[1].x),
                        y: min(storedCorners[0].y, storedCorners[1].y),
                        width: abs(storedCorners[1].x - storedCorners[0].x),
                        height: abs(storedCorners[1].y - storedCorners[0].y))))
            if case .rect(let again) = asStored.place {
                #expect(Self.near(again.x, out.x, 1e-7) && Self.near(again.maxY, out.maxY, 1e-7))
            } else {
                Issue.record("as stored: \(String(describing: asStored.place))")
            }
        }
    }

    /// Straightened and resized crops: a rect becomes the turned polygon
    /// clipped to the output; every corner lies in the output and comes
    /// back inside the source rect and inside the crop's quad; a rect well
    /// inside keeps its four turned corners, unclipped; its bounding box
    /// is the box of those corners and nothing more.
    @Test func straightenedCropsTurnRegions() throws {
        var random = SeededGenerator(seed: 0x5712A)
        func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        func double(_ range: ClosedRange<Double>) -> Double {
            Double.random(in: range, using: &random)
        }
        for n in 0..<1000 {
            let size = PixelSize<ImagePixels>(width: int(50...4000), height: int(50...4000))
            let frame = try StraightenedFrame(imageSize: size, angle: double(-45...45))
            let (w, h) = (int(10...size.width), int(10...size.height))
            let rect = PixelRect<StraightenedPixels>(
                x: int(0...size.width - w), y: int(0...size.height - h), width: w, height: h)
            let output = PixelSize<StraightenedPixels>(
                width: n % 2 == 0 ? w : int(1...3000), height: n % 2 == 0 ? h : int(1...3000))
            // A corner of a thin photo turned 45 degrees may hold none of it.
            guard let crop = try? StraightenedCrop(frame: frame, rect: rect, outputSize: output)
            else { continue }
            let mapping = PlaceMapping(crop)
            let region = Rect<ImagePixels>(
                x: double(0...Double(size.width)), y: double(0...Double(size.height)),
                width: double(1...1000), height: double(1...1000))
            let mapped = mapping.map(.rect(region))
            guard let place = mapped.place else { continue }
            let corners: [Point<OutputPixels>]
            switch place {
            case .polygon(let points): corners = points
            case .rect(let r):
                corners = [Point(x: r.x, y: r.y), Point(x: r.maxX, y: r.maxY)]
            default:
                Issue.record("a rect became \(place)")
                continue
            }
            let (ow, oh) = (Double(output.width), Double(output.height))
            for c in corners {
                #expect(c.x >= -1e-6 && c.y >= -1e-6 && c.x <= ow + 1e-6 && c.y <= oh + 1e-6)
                let back = mapping.imagePoint(of: c)
                let slack = 1e-6 * max(1, Double(max(size.width, size.height)))
                #expect(
                    back.x >= region.x - slack && back.x <= region.maxX + slack
                        && back.y >= region.y - slack && back.y <= region.maxY + slack,
                    "\(back) outside \(region)")
            }
            if !mapped.clipped, case .polygon(let points) = place {
                #expect(points.count == 4)
                let expected = [
                    Seen(x: region.x, y: region.y), Seen(x: region.maxX, y: region.y),
                    Seen(x: region.maxX, y: region.maxY), Seen(x: region.x, y: region.maxY),
                ].map { mapping.outputPoint(of: $0) }
                for (p, q) in zip(points, expected) {
                    #expect(Self.near(p.x, q.x, 1e-7) && Self.near(p.y, q.y, 1e-7))
                }
            }
        }
    }

    /// A circle inside a plain crop stays a circle; one across the crop's
    /// edge becomes the exact box of the part inside; a non-uniform resize
    /// makes the box round its ellipse.
    @Test func circlesStayCirclesOrBecomeTheirBox() throws {
        let photo = PixelSize<StoredPixels>(width: 1000, height: 800)
        let mapping = PlaceMapping(
            CropResult(
                rect: PixelRect(x: 100, y: 100, width: 500, height: 400), orientation: .up,
                sourceSize: photo))
        let inside = mapping.map(
            Place<ImagePixels>.circle(center: Seen(x: 300, y: 300), radius: 50))
        #expect(inside.place == .circle(center: Point(x: 200, y: 200), radius: 50))
        #expect(!inside.clipped)
        // Centre 60 px left of the crop's edge, radius 100: the chord at the
        // edge is 2·√(100² − 60²) = 160 high.
        let across = mapping.map(
            Place<ImagePixels>.circle(center: Seen(x: 40, y: 300), radius: 100))
        #expect(across.place == .rect(Rect(x: 0, y: 120, width: 40, height: 160)))
        #expect(across.clipped)
        let wide = PlaceMapping(
            try StraightenedCrop(
                frame: StraightenedFrame(imageSize: PixelSize(width: 1000, height: 800), angle: 0),
                rect: PixelRect(x: 0, y: 0, width: 1000, height: 800),
                outputSize: PixelSize(width: 500, height: 800)))
        let squashed = wide.map(
            Place<ImagePixels>.circle(center: Seen(x: 500, y: 400), radius: 100))
        #expect(squashed.place == .rect(Rect(x: 200, y: 300, width: 100, height: 200)))
    }

    /// Vision's face boxes: normalized, origin at the bottom-left, as seen;
    /// in the crop the same way.
    @Test func visionRectsLandInTheCrop() throws {
        let mapping = PlaceMapping(
            CropResult(
                rect: PixelRect(x: 0, y: 0, width: 500, height: 500), orientation: .right,
                sourceSize: PixelSize(width: 1000, height: 1000)))
        // Seen top-down: 100,200,200,200 of the 1000x1000 photo.
        let face = try #require(
            mapping.map(visionRect: Rect(x: 0.1, y: 0.6, width: 0.2, height: 0.2)))
        #expect(Self.near(face.x, 0.2) && Self.near(face.y, 0.2))
        #expect(Self.near(face.width, 0.4) && Self.near(face.height, 0.4))
        #expect(mapping.map(visionRect: Rect(x: 0.8, y: 0.1, width: 0.1, height: 0.1)) == nil)
    }
}
