import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

/// The turned frame, the output rect, the sample positions and the largest
/// rect inside, per "Straighten and resize" in the contract.
@Suite(.announcesSkips) struct StraightenTests {
    /// A request of a `sw×sh` image shown aspect-fit in a `vw×vh` view.
    func request(
        _ sw: Int, _ sh: Int, view vw: Double, _ vh: Double, selection: Rect<ViewPoints>,
        angle: Double, orientation: EXIFOrientation = .up
    ) -> CropRequest {
        CropRequest(
            sourceSize: Size(width: Double(sw), height: Double(sh)),
            viewport: Size(width: vw, height: vh), selection: selection, orientation: orientation,
            angle: angle)
    }

    @Test func anAngleOfZeroIsTheMappingContractUnchanged() throws {
        var generator = SeededGenerator(seed: 17)
        var compared = 0
        for _ in 0..<3000 {
            let request = MappingCase.random(using: &generator).request
            switch request.result() {
            case .success(let mapped):
                let crop = try request.straightened()
                #expect(crop.rect.x == mapped.rect.x && crop.rect.y == mapped.rect.y)
                #expect(crop.rect.size.width == mapped.rect.width)
                #expect(crop.rect.size.height == mapped.rect.height)
                #expect(crop.isLossless)
                #expect(crop.readRect(support: 0) == mapped.rect)
                compared += 1
            case .failure(let rejection):
                #expect(throws: rejection) { try request.straightened() }
            }
        }
        #expect(compared > 1000)
    }

    @Test func mapRefusesATurnedRequestAndNamesTheWayOut() {
        let turned = request(
            40, 30, view: 400, 300, selection: Rect(x: 0, y: 0, width: 10, height: 10), angle: 3.5)
        #expect(throws: CropRejection.turned(angle: 3.5)) { try turned.map() }
        var bad = turned
        bad.angle = .nan
        #expect(throws: CropRejection.nonFinite(field: "angle")) { try bad.straightened() }
        var stretched = turned
        stretched.mode = .scaleToFill
        stretched.viewport = Size(width: 400, height: 400)
        #expect(throws: CropRejection.nonUniformScaleCannotTurn) { try stretched.straightened() }
        // scaleToFill with the image's own aspect has one scale: it turns.
        stretched.viewport = Size(width: 400, height: 300)
        #expect(throws: Never.self) { try stretched.straightened() }
    }

    @Test func quarterTurnsAreExact() {
        for (angle, expected) in [
            (90.0, (0.0, 1.0)), (-90, (0, -1)), (180, (-1, 0)), (-180, (-1, 0)), (270, (0, -1)),
            (360, (1, 0)), (450, (0, 1)), (-720, (1, 0)), (0, (1, 0)),
        ] {
            let (c, s) = StraightenedFrame.cosineAndSine(degrees: angle)
            #expect(c == expected.0 && s == expected.1, "\(angle)°")
        }
        for angle in [3.5, 1e-9, 44.999, 45, 89.9, 135, 200.25] {
            let (c, s) = StraightenedFrame.cosineAndSine(degrees: angle)
            let (mc, ms) = StraightenedFrame.cosineAndSine(degrees: -angle)
            #expect(mc == c && ms == -s, "mirror of \(angle)°")
            #expect(
                abs(c - cos(angle * .pi / 180)) < 1e-15 && abs(s - sin(angle * .pi / 180)) < 1e-15)
        }
    }

    /// A quarter turn clockwise: the output's top-left pixel is the image's
    /// bottom-left, and every sample position is a pixel centre.
    @Test func aQuarterTurnSamplesPixelCentres() throws {
        // 40×30 image shown at 10 points a pixel; turned, it stands 300 wide
        // and 400 high about the view's centre; select its middle 300×300.
        let turned = request(
            40, 30, view: 400, 300, selection: Rect(x: 50, y: 0, width: 300, height: 300), angle: 90
        )
        let crop = try turned.straightened()
        #expect(crop.rect == PixelRect(x: 5, y: 0, width: 30, height: 30))
        #expect(crop.frame.isInside(crop.rect))
        #expect(crop.readRect(support: 0) == PixelRect(x: 5, y: 0, width: 30, height: 30))
        #expect(crop.quad.map { [$0.x, $0.y] } == [[5, 30], [5, 0], [35, 0], [35, 30]])
        for row in 0..<30 {
            for column in 0..<30 {
                let q = crop.samplePosition(column: column, row: row)
                // Clockwise: output column i reads image row 29 − i... turned.
                #expect(q.x == Double(5 + row) + 0.5 && q.y == Double(29 - column) + 0.5)
            }
        }
    }

    @Test func halfTurnReadsTheImageUpsideDown() throws {
        let turned = request(
            8, 6, view: 80, 60, selection: Rect(x: 0, y: 0, width: 80, height: 60), angle: 180)
        let crop = try turned.straightened()
        #expect(crop.rect == PixelRect(x: 0, y: 0, width: 8, height: 6))
        #expect(crop.samplePosition(column: 0, row: 0) == Point(x: 7.5, y: 5.5))
        #expect(crop.frame.largestRectInside() == PixelRect(x: 0, y: 0, width: 8, height: 6))
    }

    @Test func aTinyAngleKeepsTheRectAndReadsAtMostAPixelMore() throws {
        let selection = Rect<ViewPoints>(x: 101, y: 57, width: 150, height: 120)
        let flat = try request(4000, 3000, view: 400, 300, selection: selection, angle: 0).map()
            .rect
        for angle in [1e-9, -1e-9, 1e-300, Double.leastNonzeroMagnitude] {
            let crop = try request(4000, 3000, view: 400, 300, selection: selection, angle: angle)
                .straightened()
            #expect(crop.rect.x == flat.x && crop.rect.y == flat.y && crop.rect.width == flat.width)
            #expect(!crop.isLossless)
            let read = try #require(crop.readRect(support: 0))
            #expect(read.x >= flat.x - 1 && read.y >= flat.y - 1)
            #expect(read.maxX <= flat.maxX + 1 && read.maxY <= flat.maxY + 1)
            #expect(read.x <= flat.x && read.maxX >= flat.maxX)
        }
    }

    /// A corner at the image's centre stays there whatever the angle: the
    /// read rect's edge is that pixel boundary exactly, not one beyond.
    @Test func aCornerOnAPixelBoundaryIsNotGrown() throws {
        let frame = try StraightenedFrame(imageSize: PixelSize(width: 40, height: 30), angle: 30)
        let rect = PixelRect<StraightenedPixels>(x: 20, y: 15, width: 10, height: 10)
        #expect(frame.quad(of: rect)[0] == Point(x: 20, y: 15))
        let read = try #require(frame.readRect(for: rect, support: 0))
        // At 30° clockwise the rect's top-left corner is the quad's leftmost
        // point (the image turns the other way under it): x starts at 20.
        #expect(read.x == 20 && read.y == 10)
        let grown = try #require(frame.readRect(for: rect, support: 1))
        #expect(grown.x == 19 && grown.y == 9)
    }

    /// Random angles, sizes and selections: `O` rounds the selection
    /// outward, every sample lies inside the read rect with the bilinear
    /// support, the affine transform agrees with the per-pixel formula, and
    /// the overlay's view rect maps back to `O`.
    @Test func randomTurnedRequestsKeepTheContract() throws {
        var g = SeededGenerator(seed: 2026)
        var checked = 0
        for trial in 0..<400 {
            let sw = Int.random(in: 1...5000, using: &g)
            let sh = Int.random(in: 1...5000, using: &g)
            let (vw, vh) = (
                Double(Int.random(in: 50...900, using: &g)),
                Double(Int.random(in: 50...900, using: &g))
            )
            let angles: [Double] = [
                Double.random(in: -180...180, using: &g), 90, -90, 180, 1e-9,
                Double.random(in: -2...2, using: &g),
            ]
            let angle = angles[trial % angles.count]
            let x = Double.random(in: -50...vw, using: &g)
            let y = Double.random(in: -50...vh, using: &g)
            let selection = Rect<ViewPoints>(
                x: x, y: y, width: Double.random(in: 0.5...vw, using: &g),
                height: Double.random(in: 0.5...vh, using: &g))
            var turned = request(sw, sh, view: vw, vh, selection: selection, angle: angle)
            turned.orientation = EXIFOrientation(rawValue: 1 + trial % 8)!
            turned.zoom =
                trial % 3 == 0 ? Zoom(scale: 2, offset: Vector(dx: 30, dy: 10)) : .identity
            guard case .success(let crop) = Result(catching: { try turned.straightened() }) else {
                continue
            }
            checked += 1
            // O rounds the clipped selection outward (in Double, to 1e-6).
            let display = try turned.displayRect()
            let oriented = turned.orientation.orientedSize(PixelSize(width: sw, height: sh))
            let s = display.width / Double(oriented.width)
            let left = (max(x, 0) - display.x) / s
            let right = (min(x + selection.width, vw) - display.x) / s
            #expect(Double(crop.rect.x) <= left + 1e-5 && Double(crop.rect.x) > left - 1 - 1e-5)
            #expect(
                Double(crop.rect.maxX) >= right - 1e-5 && Double(crop.rect.maxX) < right + 1 + 1e-5)
            // Samples stay inside the bilinear read rect.
            let read = crop.readRect(support: 1)
            let transform = crop.sampleTransform
            for (column, row) in [
                (0, 0), (crop.outputSize.width - 1, crop.outputSize.height - 1),
                (crop.outputSize.width / 2, 0),
            ] {
                let q = crop.samplePosition(column: column, row: row)
                let affine = transform.apply(Point(x: Double(column) + 0.5, y: Double(row) + 0.5))
                let scale = Double(max(sw, sh)) * 1e-12 + 1e-9
                #expect(abs(q.x - affine.x) < scale && abs(q.y - affine.y) < scale)
                if q.x >= 0, q.y >= 0, q.x < Double(oriented.width), q.y < Double(oriented.height) {
                    let read = try #require(read)
                    let (px, py) = (
                        Int((q.x - 0.5).rounded(.down)), Int((q.y - 0.5).rounded(.down))
                    )
                    #expect(
                        px + 1 >= read.x && px < read.maxX && py + 1 >= read.y && py < read.maxY)
                }
            }
            // The overlay: O back to the view, and forward again.
            if Double(crop.rect.x) >= left - 0.5, selection.x >= 0, selection.y >= 0,
                selection.maxX <= vw, selection.maxY <= vh
            {
                let view = try turned.viewRect(forStraightened: crop.rect)
                let again = try turned.with(selection: view).straightened()
                #expect(again.rect == crop.rect, "\(turned)")
            }
        }
        #expect(checked > 250)
    }

    @Test(arguments: [3.5, -3.5, 10, 45, 89, 90, 91, 135, 179.5, 1e-9])
    func theLargestRectInsideFitsAndCannotGrow(angle: Double) throws {
        for (w, h) in [(4032, 3024), (3024, 4032), (41, 30), (7, 7), (1000, 10)] {
            let frame = try StraightenedFrame(
                imageSize: PixelSize(width: w, height: h), angle: angle)
            guard let rect = frame.largestRectInside() else {
                Issue.record("nothing fits in \(w)x\(h) at \(angle)°")
                continue
            }
            #expect(frame.isInside(rect))
            // Samples of every output pixel land in the image: no fill.
            let crop = try StraightenedCrop(frame: frame, rect: rect)
            for (i, j) in [
                (0, 0), (rect.width - 1, 0), (0, rect.height - 1),
                (rect.width - 1, rect.height - 1),
            ] {
                let q = crop.samplePosition(column: i, row: j)
                #expect(q.x > 0 && q.y > 0 && q.x < Double(w) && q.y < Double(h))
            }
            for ratio in [
                AspectRatio(width: 1, height: 1)!, AspectRatio(width: 4, height: 5)!,
                AspectRatio(width: 16, height: 9)!,
            ] {
                guard let fitted = frame.largestRectInside(aspect: ratio) else { continue }
                #expect(frame.isInside(fitted))
                #expect(fitted.width * ratio.height == fitted.height * ratio.width)
                let k = fitted.width / ratio.width + 1
                let bigger = PixelRect<StraightenedPixels>(
                    x: (w - k * ratio.width) / 2, y: (h - k * ratio.height) / 2,
                    width: k * ratio.width, height: k * ratio.height)
                #expect(
                    !frame.isInside(bigger) || (w - k * ratio.width) % 2 != 0
                        || (h - k * ratio.height) % 2 != 0)
            }
        }
    }

    /// Against a brute-force search over every centred width on small images.
    @Test func theLargestAreaIsTheBruteForceAnswer() throws {
        var g = SeededGenerator(seed: 5)
        for _ in 0..<40 {
            let (w, h) = (Int.random(in: 1...40, using: &g), Int.random(in: 1...40, using: &g))
            let angle = Double.random(in: -60...60, using: &g)
            let frame = try StraightenedFrame(
                imageSize: PixelSize(width: w, height: h), angle: angle)
            var best = 0
            for width in 1...(w + h) {
                for height in stride(from: w + h, through: 1, by: -1) {
                    let rect = PixelRect<StraightenedPixels>(
                        x: Int((Double(w - width) / 2).rounded(.down)),
                        y: Int((Double(h - height) / 2).rounded(.down)), width: width,
                        height: height)
                    if frame.isInside(rect) {
                        best = max(best, width * height)
                        break
                    }
                }
            }
            let found = frame.largestRectInside().map { $0.width * $0.height } ?? 0
            #expect(found == best, "\(w)x\(h) at \(angle)°")
        }
    }

    @Test func outputSizeRulesFollowTheTable() {
        let cases: [(OutputSizeRule, (Int, Int), (Int, Int)?)] = [
            (.exact(PixelSize(width: 512, height: 512)), (3000, 2000), (512, 512)),
            (.fit(PixelSize(width: 1080, height: 1080)), (3000, 2000), (1080, 720)),
            (.fit(PixelSize(width: 1080, height: 1080)), (2000, 3000), (720, 1080)),
            (.width(1080), (4032, 3024), (1080, 810)),
            (.height(100), (3, 1000), (1, 100)),
            (.width(3), (2, 1), (3, 2)),  // 1.5 rounds half up
            (.width(0), (2, 1), nil), (.fit(PixelSize(width: 0, height: 5)), (2, 1), nil),
            (.width(Int.max / 2), (1, 1 << 40), nil),
        ]
        for (rule, rect, expected) in cases {
            let size = rule.outputSize(for: PixelSize(width: rect.0, height: rect.1))
            #expect(
                size.map { [$0.width, $0.height] } == expected.map { [$0.0, $0.1] }, "\(rule)")
        }
    }

    @Test func aSizeEqualToTheRectIsLossless() throws {
        let flat = request(
            400, 300, view: 400, 300, selection: Rect(x: 10, y: 20, width: 100, height: 50),
            angle: 0)
        #expect(try flat.straightened(size: .exact(PixelSize(width: 100, height: 50))).isLossless)
        #expect(try !flat.straightened(size: .width(99)).isLossless)
        let crop = try flat.straightened(size: .width(50))
        #expect(crop.outputSize == PixelSize(width: 50, height: 25))
        #expect(crop.reduction == (x: 2, y: 2))
        #expect(crop.samplePosition(column: 0, row: 0) == Point(x: 11, y: 21))
    }

    @Test func theSessionStraightensToTheLargestRectInside() throws {
        var session = CropSession(
            source: .init(
                identity: "p", size: PixelSize(width: 4032, height: 3024), orientation: .up),
            viewport: Size(width: 403.2, height: 302.4))
        try session.select(Rect(x: 0, y: 0, width: 403.2, height: 302.4))
        try session.straighten(to: 3.5, aspect: AspectRatio(width: 4, height: 3))
        let selection = try #require(session.selection)
        let frame = try StraightenedFrame(
            imageSize: PixelSize(width: 4032, height: 3024), angle: 3.5)
        #expect(
            selection.straightened
                == frame.largestRectInside(aspect: AspectRatio(width: 4, height: 3)))
        let crop = try session.straightenedCrop(size: .width(1080))
        #expect(crop.rect == selection.straightened && crop.outputSize.width == 1080)
        #expect(throws: CropSession.Refusal.rejected(.turned(angle: 3.5))) { try session.crop() }
        // A new layout keeps the same output rect.
        session.layoutChanged(viewport: Size(width: 300, height: 700))
        #expect(session.selection?.straightened == selection.straightened)
        #expect(try session.straightenedCrop().rect == selection.straightened)
    }
}
