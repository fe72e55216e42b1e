import CropGeometry
import CropKitTestSupport
import Testing

/// A pixel rect mapped back to the view and forward again is the same rect.
@Suite(.announcesSkips) struct InverseMappingTests {
    @Test(arguments: ContentMode.allCases, EXIFOrientation.allCases)
    func inverseThenForwardIsTheIdentity(mode: ContentMode, orientation: EXIFOrientation) throws {
        let modeIndex = ContentMode.allCases.firstIndex(of: mode)!
        var generator = SeededGenerator(seed: UInt64(orientation.rawValue * 100 + modeIndex))
        var roundTrips = 0
        for trial in 0..<300 {
            let sw = Int.random(in: 1...6000, using: &generator)
            let sh = Int.random(in: 1...6000, using: &generator)
            let zoomed = trial % 3 == 0
            let request = CropRequest(
                sourceSize: Size(width: Double(sw), height: Double(sh)),
                viewport: Size(
                    width: Double(Int.random(in: 100...1000, using: &generator)),
                    height: Double(Int.random(in: 100...1000, using: &generator))),
                selection: Rect(x: 0, y: 0, width: 1, height: 1), mode: mode,
                imageScale: [1, 2, 3, 0.5][trial % 4],
                zoom: zoomed
                    ? Zoom(
                        scale: Double.random(in: 1...5, using: &generator),
                        offset: Vector(
                            dx: Double.random(in: 0...200, using: &generator),
                            dy: Double.random(in: 0...200, using: &generator))) : .identity,
                orientation: orientation)
            // A rect inside the visible part of the image: map the whole view
            // to find it, then pick a random sub-rectangle.
            guard
                let visible = try? request.with(
                    selection: Rect(
                        x: 0, y: 0, width: request.viewport.width, height: request.viewport.height)
                ).map().rect
            else {
                continue
            }
            let x0 = Int.random(in: visible.x..<visible.maxX, using: &generator)
            let y0 = Int.random(in: visible.y..<visible.maxY, using: &generator)
            let rect = PixelRect<ImagePixels>(
                x: x0, y: y0, width: Int.random(in: 1...(visible.maxX - x0), using: &generator),
                height: Int.random(in: 1...(visible.maxY - y0), using: &generator))
            // Skip rects whose border pixels are only partly visible.
            let view = try request.viewRect(for: rect)
            guard view.x >= 0, view.y >= 0, view.maxX <= request.viewport.width,
                view.maxY <= request.viewport.height
            else {
                continue
            }
            let back = try request.with(selection: view).map()
            #expect(back.rect == rect, "\(request) \(rect) via \(view)")
            roundTrips += 1
            // The stored form round-trips too.
            let storedView = try request.viewRect(forStored: back.stored)
            #expect(try request.with(selection: storedView).map().stored == back.stored)
        }
        #expect(roundTrips >= 100, "only \(roundTrips) rects were fully visible")
    }

    @Test func inverseOfTheArticleScenario() throws {
        let request = CropRequest(
            sourceSize: Size(width: 4000, height: 3000), viewport: Size(width: 300, height: 300),
            selection: Rect(x: 0, y: 0, width: 1, height: 1))
        let view = try request.viewRect(for: PixelRect(x: 1000, y: 500, width: 2000, height: 2000))
        #expect(abs(view.x - 75) < 1e-12 && abs(view.y - 75) < 1e-12)
        #expect(abs(view.width - 150) < 1e-12 && abs(view.height - 150) < 1e-12)
    }
}
