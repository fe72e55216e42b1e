import CropGeometry
import Foundation

/// The images the export checks cut: each pixel says where it lies, so a
/// crop's pixels can be traced back to the fixture. Every fixture formula
/// CropKit uses is here, once: ``CropExportTest`` hands an app the
/// ``rgbaCoordinates`` pattern, and `cropkit verify` cuts the ``corners``
/// and ``coordinates`` patterns through the real pipeline.
public enum FixturePattern: String, CaseIterable, Sendable {
    /// 8-bit RGBA, opaque: R = x & 255, G = y & 255,
    /// B = (x >> 8) << 4 | y >> 8. Every pixel differs up to
    /// 4096×4096; its corner pixels are its markers.
    case rgbaCoordinates
    /// 16-bit RGB: R = x, G = y, B = ``coordinatesBlue``, every sample
    /// big-endian. No markers.
    case coordinates
    /// The article's fixture, 8-bit RGBA: a different colour in each
    /// corner and a cross at the centre, on opaque gray.
    case corners

    /// Opaque gray, RGBA: the corners fixture's background.
    public static let background: [UInt8] = [128, 128, 128, 255]
    /// The top-left marker's colour: red.
    public static let topLeft: [UInt8] = [255, 0, 0, 255]
    /// The top-right marker's colour: green.
    public static let topRight: [UInt8] = [0, 255, 0, 255]
    /// The bottom-left marker's colour: blue.
    public static let bottomLeft: [UInt8] = [0, 0, 255, 255]
    /// The bottom-right marker's colour: yellow.
    public static let bottomRight: [UInt8] = [255, 255, 0, 255]
    /// The centre cross's colour: black.
    public static let cross: [UInt8] = [0, 0, 0, 255]
    /// The blue sample of every ``coordinates`` pixel.
    public static let coordinatesBlue = 0xC0DE

    /// Bytes a pixel: 4 (8-bit RGBA) or 6 (16-bit RGB).
    public var bytesPerPixel: Int { self == .coordinates ? 6 : 4 }

    /// The largest side whose pixels all differ (``corners`` has no such
    /// limit; its sides, like every pattern's, are at most 65,536).
    public var distinctSide: Int { self == .rgbaCoordinates ? 4096 : 65536 }

    /// The side of each corner's square marker of the corners fixture of
    /// this size.
    public static func markerSide(width: Int, height: Int) -> Int {
        max(1, min(width, height) / 8)
    }

    /// The pattern's markers in a fixture of `size`: for ``corners`` its
    /// four squares, for ``rgbaCoordinates`` its four corner pixels (each a
    /// colour of its own), top-left, top-right, bottom-left, bottom-right;
    /// none for ``coordinates``.
    public func markers(_ size: PixelSize<StoredPixels>) -> [FixtureMarker] {
        let (w, h) = (size.width, size.height)
        let side: Int
        let colors: [[UInt8]]
        switch self {
        case .coordinates: return []
        case .corners:
            side = Self.markerSide(width: w, height: h)
            colors = [Self.topLeft, Self.topRight, Self.bottomLeft, Self.bottomRight]
        case .rgbaCoordinates:
            side = 1
            colors = [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)].map {
                pixel(x: $0.0, y: $0.1, size: size)
            }
        }
        let origins = [(0, 0), (w - side, 0), (0, h - side), (w - side, h - side)]
        return zip(["top-left", "top-right", "bottom-left", "bottom-right"], zip(colors, origins))
            .map { name, placed in
                FixtureMarker(
                    name: name, color: placed.0,
                    rect: PixelRect(x: placed.1.0, y: placed.1.1, width: side, height: side))
            }
    }

    /// The pixel at `(x, y)` of the fixture of `size`, `bytesPerPixel`
    /// bytes.
    public func pixel(x: Int, y: Int, size: PixelSize<StoredPixels>) -> [UInt8] {
        guard self == .corners else {
            return [UInt8](unsafeUninitializedCapacity: bytesPerPixel) { buffer, count in
                if let base = buffer.baseAddress { write(x: x, y: y, to: base) }
                count = bytesPerPixel
            }
        }
        let paint = Self.paints(width: size.width, height: size.height).last {
            x >= $0.x && x < $0.x + $0.w && y >= $0.y && y < $0.y + $0.h
        }
        return paint?.color ?? Self.background
    }

    /// The pixels at `xs` of row `y` of a coordinate pattern, `bytesPerPixel`
    /// bytes each, in one array: what a check that reads a whole crop back
    /// compares a row with, without an array a pixel.
    public func row(_ xs: Range<Int>, y: Int) -> [UInt8] {
        precondition(self != .corners, "the corners fixture has no formula by position alone")
        let bytes = bytesPerPixel
        return [UInt8](unsafeUninitializedCapacity: xs.count * bytes) { buffer, count in
            guard var out = buffer.baseAddress else { return }
            for x in xs {
                write(x: x, y: y, to: out)
                out += bytes
            }
            count = xs.count * bytes
        }
    }

    /// Writes a coordinate pattern's pixel at `(x, y)` to `out`: the one
    /// statement of its formula.
    @inline(__always)
    private func write(x: Int, y: Int, to out: UnsafeMutablePointer<UInt8>) {
        if self == .coordinates {
            out[0] = UInt8(truncatingIfNeeded: x >> 8)
            out[1] = UInt8(truncatingIfNeeded: x)
            out[2] = UInt8(truncatingIfNeeded: y >> 8)
            out[3] = UInt8(truncatingIfNeeded: y)
            out[4] = UInt8(Self.coordinatesBlue >> 8)
            out[5] = UInt8(Self.coordinatesBlue & 0xFF)
        } else {
            out[0] = UInt8(truncatingIfNeeded: x)
            out[1] = UInt8(truncatingIfNeeded: y)
            out[2] = UInt8(truncatingIfNeeded: (x >> 8) << 4 | y >> 8)
            out[3] = 255
        }
    }

    /// Whether the `bytesPerPixel` bytes at `p` are the pixel at `(x, y)`
    /// of the fixture of `size`: the checks' inner loop, without making an
    /// array for the coordinate patterns.
    @inline(__always)
    func holds(_ p: UnsafePointer<UInt8>, x: Int, y: Int, size: PixelSize<StoredPixels>) -> Bool {
        guard self != .corners else {
            let expected = pixel(x: x, y: y, size: size)
            return (0..<4).allSatisfy { p[$0] == expected[$0] }
        }
        // Up to 6 bytes of the expected pixel, made on the stack.
        var expected: UInt64 = 0
        return withUnsafeMutableBytes(of: &expected) { raw in
            let out = raw.bindMemory(to: UInt8.self)
            guard let base = out.baseAddress else { return false }
            write(x: x, y: y, to: base)
            return memcmp(base, p, bytesPerPixel) == 0
        }
    }

    /// The fixture position a coordinate pattern's pixel at `p` names
    /// (nil for ``corners``): what a misplaced pixel is reported as.
    func position(of p: UnsafePointer<UInt8>) -> (x: Int, y: Int)? {
        switch self {
        case .rgbaCoordinates:
            (Int(p[0]) | Int(p[2] >> 4) << 8, Int(p[1]) | Int(p[2] & 15) << 8)
        case .coordinates: (Int(p[0]) << 8 | Int(p[1]), Int(p[2]) << 8 | Int(p[3]))
        case .corners: nil
        }
    }

    /// The corners fixture as rectangles painted in order, each over the
    /// ones before on the gray background: a black cross through the
    /// centre pixel whose arms reach a quarter of the shorter side and
    /// whose bars are a hundredth of it thick (at least 1, so the cross
    /// shows in a thumbnail), then the four markers, which win where they
    /// overlap it.
    static func paints(width: Int, height: Int)
        -> [(color: [UInt8], x: Int, y: Int, w: Int, h: Int)]
    {
        let side = markerSide(width: width, height: height)
        let (cx, cy) = (width / 2, height / 2)
        let arm = min(width, height) / 4
        let bar = max(1, min(width, height) / 100)
        return [
            (cross, cx - arm, cy - bar / 2, 2 * arm + 1, bar),
            (cross, cx - bar / 2, cy - arm, bar, 2 * arm + 1),
            (topLeft, 0, 0, side, side),
            (topRight, width - side, 0, side, side),
            (bottomLeft, 0, height - side, side, side),
            (bottomRight, width - side, height - side, side, side),
        ]
    }

    /// Writes rows `rows` of the fixture of `width`×`height` to `target`,
    /// the whole fixture's buffer (row 0 at `target`): a band of rows at a
    /// time, so a fixture of any size can be compressed while it is made.
    public func writeRows(
        width: Int, height: Int, rows: Range<Int>, into target: UnsafeMutablePointer<UInt8>
    ) {
        precondition(
            width > 0 && height > 0 && width <= 65536 && height <= 65536, "sides must be 1 to 65536"
        )
        switch self {
        case .corners:
            func word(_ color: [UInt8]) -> UInt32 {
                UInt32(color[0]) | UInt32(color[1]) << 8 | UInt32(color[2]) << 16
                    | UInt32(color[3]) << 24
            }
            let paints = Self.paints(width: width, height: height).map {
                (word: word($0.color), $0.x, $0.y, $0.w, $0.h)
            }
            let background = word(Self.background)
            // The bytes are seen as 32-bit pixels only inside this scope.
            UnsafeMutableRawPointer(target).withMemoryRebound(
                to: UInt32.self, capacity: width * height
            ) { pixels in
                for y in rows {
                    let row = pixels + y * width
                    row.update(repeating: background, count: width)
                    for paint in paints where y >= paint.2 && y < paint.2 + paint.4 {
                        let from = max(0, paint.1)
                        let to = min(width, paint.1 + paint.3)
                        if to > from {
                            (row + from).update(repeating: paint.word, count: to - from)
                        }
                    }
                }
            }
        case .coordinates, .rgbaCoordinates:
            let bytes = bytesPerPixel
            for y in rows {
                var out = target + y * width * bytes
                for x in 0..<width {
                    write(x: x, y: y, to: out)
                    out += bytes
                }
            }
        }
    }
}

/// One marker of a fixture: a colour that the fixture shows in `rect` and
/// nowhere else, so a crop must show it exactly as often as it overlaps
/// `rect`.
public struct FixtureMarker: Hashable, Sendable {
    /// `top-left`, `top-right`, `bottom-left` or `bottom-right`.
    public var name: String
    /// Its colour, ``FixturePattern/bytesPerPixel`` bytes.
    public var color: [UInt8]
    /// Where the fixture shows it.
    public var rect: PixelRect<StoredPixels>
}
