/// Test images of an exact pixel size whose pixels say where they came from.
public enum Fixture {
    /// The kinds of fixture.
    public enum Kind: String, CaseIterable, Sendable {
        /// The article's fixture: a different colour in each corner and a cross
        /// at the centre, on opaque gray (8-bit RGBA).
        case corners
        /// 16-bit RGB whose every pixel encodes its own position: R = x,
        /// G = y, B = ``coordinatesBlue``.
        case coordinates
    }

    /// Opaque colours of the corners fixture, RGBA.
    public static let background: [UInt8] = [128, 128, 128, 255]
    public static let topLeft: [UInt8] = [255, 0, 0, 255]
    public static let topRight: [UInt8] = [0, 255, 0, 255]
    public static let bottomLeft: [UInt8] = [0, 0, 255, 255]
    public static let bottomRight: [UInt8] = [255, 255, 0, 255]
    public static let cross: [UInt8] = [0, 0, 0, 255]
    /// The blue sample of every coordinates-fixture pixel.
    public static let coordinatesBlue = 0xC0DE

    /// The side of each corner's square marker for an image of this size.
    public static func markerSide(width: Int, height: Int) -> Int {
        max(1, min(width, height) / 8)
    }

    /// The fixture of `kind` and exactly `width`×`height` pixels.
    public static func make(_ kind: Kind, width: Int, height: Int) -> RasterImage {
        switch kind {
        case .corners: corners(width: width, height: height)
        case .coordinates: coordinates(width: width, height: height)
        }
    }

    /// The corners fixture: markers of side ``markerSide(width:height:)`` in
    /// each corner (top-left red, top-right green, bottom-left blue,
    /// bottom-right yellow) and a black cross through the centre pixel whose
    /// arms reach a quarter of the shorter side, leaving the markers clear;
    /// its bars are a hundredth of the shorter side thick (at least 1).
    public static func corners(width: Int, height: Int) -> RasterImage {
        precondition(width > 0 && height > 0, "a fixture has at least one pixel")
        let side = markerSide(width: width, height: height)
        let (cx, cy) = (width / 2, height / 2)
        let arm = min(width, height) / 4
        let samples = [UInt8](unsafeUninitializedCapacity: width * height * 4 + height) {
            buffer, count in
            // The bytes are seen as 32-bit pixels only inside this scope
            // (withMemoryRebound), and every one is written before the count
            // is set.
            UnsafeMutableRawBufferPointer(buffer).withMemoryRebound(to: UInt32.self) { words in
                guard let pixels = words.baseAddress else { return }
                func word(_ color: [UInt8]) -> UInt32 {
                    UInt32(color[0]) | UInt32(color[1]) << 8 | UInt32(color[2]) << 16
                        | UInt32(color[3]) << 24
                }
                pixels.initialize(repeating: word(background), count: width * height)
                func paint(_ color: [UInt8], x: Int, y: Int, w: Int, h: Int) {
                    let value = word(color)
                    for row in max(0, y)..<min(height, y + h) {
                        (pixels + row * width + max(0, x)).update(
                            repeating: value, count: max(0, min(width, x + w) - max(0, x)))
                    }
                }
                // The cross first, so that markers win where they overlap;
                // its bars are a hundredth of the shorter side thick, so it
                // shows in a thumbnail too.
                let bar = max(1, min(width, height) / 100)
                paint(cross, x: cx - arm, y: cy - bar / 2, w: 2 * arm + 1, h: bar)
                paint(cross, x: cx - bar / 2, y: cy - arm, w: bar, h: 2 * arm + 1)
                paint(topLeft, x: 0, y: 0, w: side, h: side)
                paint(topRight, x: width - side, y: 0, w: side, h: side)
                paint(bottomLeft, x: 0, y: height - side, w: side, h: side)
                paint(bottomRight, x: width - side, y: height - side, w: side, h: side)
            }
            count = width * height * 4
        }
        return RasterImage(
            width: width, height: height, colorType: .rgba, bitDepth: 8, samples: samples)
    }

    /// The coordinates fixture; each side at most 65,536 pixels.
    public static func coordinates(width: Int, height: Int) -> RasterImage {
        precondition(
            width > 0 && height > 0 && width <= 65536 && height <= 65536, "sides must be 1 to 65536"
        )
        var samples = [UInt8](repeating: 0, count: width * height * 6)
        samples.reserveCapacity(width * height * 6 + height)
        let blue = (UInt8(coordinatesBlue >> 8), UInt8(coordinatesBlue & 0xFF))
        samples.withUnsafeMutableBufferPointer { out in
            var i = 0
            for y in 0..<height {
                let (yHigh, yLow) = (
                    UInt8(truncatingIfNeeded: y >> 8), UInt8(truncatingIfNeeded: y)
                )
                for x in 0..<width {
                    out[i] = UInt8(truncatingIfNeeded: x >> 8)
                    out[i + 1] = UInt8(truncatingIfNeeded: x)
                    out[i + 2] = yHigh
                    out[i + 3] = yLow
                    out[i + 4] = blue.0
                    out[i + 5] = blue.1
                    i += 6
                }
            }
        }
        return RasterImage(
            width: width, height: height, colorType: .rgb, bitDepth: 16, samples: samples)
    }
}
