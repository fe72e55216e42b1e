import CropGeometry
import CropKitTestSupport
import Testing

@Suite(.announcesSkips) struct AspectRatioTests {
    let bounds = PixelSize<ImagePixels>(width: 4000, height: 3000)

    /// The table in `PixelRect.fitted(to:within:)`'s documentation.
    @Test(arguments: [
        ((10, 10, 514, 513), "1:1", (10, 9, 514, 514)),
        ((10, 10, 513, 500), "1:1", (10, 3, 513, 513)),
        ((0, 0, 4000, 3000), "1:1", (500, 0, 3000, 3000)),
        ((3900, 2900, 100, 101), "1:1", (3899, 2899, 101, 101)),
        ((100, 100, 1000, 1000), "16:9", (96, 316, 1008, 567)),
        ((0, 0, 4000, 3000), "4:3", (0, 0, 4000, 3000)),
    ])
    func documentedExamples(
        rect: (Int, Int, Int, Int), ratio: String, expected: (Int, Int, Int, Int)
    ) throws {
        let r = PixelRect<ImagePixels>(x: rect.0, y: rect.1, width: rect.2, height: rect.3)
        let aspect = try #require(AspectRatio(parsing: ratio))
        let fitted = try #require(r.fitted(to: aspect, within: bounds))
        #expect(
            [fitted.x, fitted.y, fitted.width, fitted.height] == [
                expected.0, expected.1, expected.2, expected.3,
            ])
    }

    /// Over many rects and ratios: the ratio is exact, the rect is inside, and
    /// no other size of that ratio is nearer by the documented measure.
    @Test func ratioIsExactAndNearest() throws {
        var generator = SeededGenerator(seed: 99)
        let ratios = ["1:1", "4:5", "16:9", "3:2", "2:3", "9:16", "4000:3000"].compactMap(
            AspectRatio.init(parsing:))
        for _ in 0..<5_000 {
            let x = Int.random(in: 0..<4000, using: &generator)
            let y = Int.random(in: 0..<3000, using: &generator)
            let rect = PixelRect<ImagePixels>(
                x: x, y: y, width: Int.random(in: 1...(4000 - x), using: &generator),
                height: Int.random(in: 1...(3000 - y), using: &generator))
            let ratio = ratios.randomElement(using: &generator)!
            let fitted = try #require(rect.fitted(to: ratio, within: bounds))
            #expect(fitted.width * ratio.height == fitted.height * ratio.width)
            #expect(fitted.isInside(bounds))
            let cost = abs(fitted.width - rect.width) + abs(fitted.height - rect.height)
            let largest = min(4000 / ratio.width, 3000 / ratio.height)
            for k in 1...largest {
                let other = abs(k * ratio.width - rect.width) + abs(k * ratio.height - rect.height)
                #expect(other > cost || (other == cost && k * ratio.width <= fitted.width))
            }
        }
    }

    @Test func squareRequestNeverComesOutUneven() throws {
        // The bug report: "a 1:1 crop came out 514×513".
        let request = CropRequest(
            sourceSize: Size(width: 4000, height: 3000), viewport: Size(width: 300, height: 300),
            selection: Rect(x: 75.01, y: 75.02, width: 38.5, height: 38.4))
        let plain = try request.map().rect
        #expect(plain.width == 514 && plain.height == 513)
        let square = try request.map(aspectRatio: .square).rect
        #expect(square.width == square.height)
    }

    @Test func ratioThatCannotFitIsRejected() {
        let request = CropRequest(
            sourceSize: Size(width: 10, height: 10), viewport: Size(width: 10, height: 10),
            selection: Rect(x: 0, y: 0, width: 10, height: 10))
        let ratio = AspectRatio(width: 1, height: 20)!
        #expect(throws: CropRejection.aspectRatioDoesNotFit(ratio)) {
            try request.map(aspectRatio: ratio)
        }
    }

    @Test func parsing() {
        #expect(AspectRatio(parsing: "4:6") == AspectRatio(width: 2, height: 3))
        #expect(AspectRatio(parsing: "0:1") == nil)
        #expect(AspectRatio(parsing: "-1:1") == nil)
        #expect(AspectRatio(parsing: "1:1:1") == nil)
        #expect(AspectRatio(parsing: "a:b") == nil)
    }
}
