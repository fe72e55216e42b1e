import CropGeometry

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
    /// The blue sample of every coordinates-fixture pixel.
    public static let coordinatesBlue = 0xC0DE

    /// The side of each corner's square marker for an image of this size.
    public static func markerSide(width: Int, height: Int) -> Int {
        max(1, min(width, height) / 8)
    }

    /// The four corner markers of a fixture of `size`: each one's name,
    /// colour (RGBA) and square, top-left, top-right, bottom-left,
    /// bottom-right.
    static func markers(_ size: PixelSize<StoredPixels>)
        -> [(name: String, color: [UInt8], rect: PixelRect<StoredPixels>)]
    {
        let (w, h) = (size.width, size.height)
        let side = markerSide(width: w, height: h)
        func square(_ x: Int, _ y: Int) -> PixelRect<StoredPixels> {
            PixelRect(x: x, y: y, width: side, height: side)
        }
        return [
            ("top-left", topLeft, square(0, 0)), ("top-right", topRight, square(w - side, 0)),
            ("bottom-left", bottomLeft, square(0, h - side)),
            ("bottom-right", bottomRight, square(w - side, h - side)),
        ]
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
        make(.corners, width: width, height: height, layout: layout(.corners))
    }

    /// The coordinates fixture; each side at most 65,536 pixels.
    public static func coordinates(width: Int, height: Int) -> RasterImage {
        make(.coordinates, width: width, height: height, layout: layout(.coordinates))
    }

    /// The pixel format of `kind`: 8-bit RGBA corners, 16-bit RGB
    /// coordinates.
    static func layout(_ kind: Kind) -> (colorType: ColorType, bitDepth: Int, bytes: Int) {
        kind == .corners ? (.rgba, 8, 4) : (.rgb, 16, 6)
    }

    private static func make(
        _ kind: Kind, width: Int, height: Int,
        layout: (colorType: ColorType, bitDepth: Int, bytes: Int)
    ) -> RasterImage {
        let count = width * height * layout.bytes
        // Every byte is written before the count is set; the spare byte a
        // row lets the encoder filter in place.
        let samples = [UInt8](unsafeUninitializedCapacity: count + height) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            writeRows(kind, width: width, height: height, rows: 0..<height, into: base)
            initialized = count
        }
        return RasterImage(
            width: width, height: height, colorType: layout.colorType, bitDepth: layout.bitDepth,
            samples: samples)
    }

    /// Writes rows `rows` of the `kind` fixture of `width`×`height` to
    /// `target`, the whole fixture's buffer (row 0 at `target`): a band of
    /// rows at a time, so a fixture of any size can be compressed while it
    /// is made.
    static func writeRows(
        _ kind: Kind, width: Int, height: Int, rows: Range<Int>,
        into target: UnsafeMutablePointer<UInt8>
    ) {
        precondition(
            width > 0 && height > 0 && width <= 65536 && height <= 65536, "sides must be 1 to 65536"
        )
        switch kind {
        case .corners:
            let side = markerSide(width: width, height: height)
            let (cx, cy) = (width / 2, height / 2)
            let arm = min(width, height) / 4
            let bar = max(1, min(width, height) / 100)
            func word(_ color: [UInt8]) -> UInt32 {
                UInt32(color[0]) | UInt32(color[1]) << 8 | UInt32(color[2]) << 16
                    | UInt32(color[3]) << 24
            }
            // The cross first, so that markers win where they overlap; its
            // bars are a hundredth of the shorter side thick, so it shows
            // in a thumbnail too.
            let paints: [(UInt32, x: Int, y: Int, w: Int, h: Int)] = [
                (word(cross), cx - arm, cy - bar / 2, 2 * arm + 1, bar),
                (word(cross), cx - bar / 2, cy - arm, bar, 2 * arm + 1),
                (word(topLeft), 0, 0, side, side),
                (word(topRight), width - side, 0, side, side),
                (word(bottomLeft), 0, height - side, side, side),
                (word(bottomRight), width - side, height - side, side, side),
            ]
            let background = word(Fixture.background)
            // The bytes are seen as 32-bit pixels only inside this scope.
            UnsafeMutableRawPointer(target).withMemoryRebound(
                to: UInt32.self, capacity: width * height
            ) { pixels in
                for y in rows {
                    let row = pixels + y * width
                    row.update(repeating: background, count: width)
                    for paint in paints where y >= paint.y && y < paint.y + paint.h {
                        let from = max(0, paint.x)
                        let to = min(width, paint.x + paint.w)
                        if to > from { (row + from).update(repeating: paint.0, count: to - from) }
                    }
                }
            }
        case .coordinates:
            let blue = (UInt8(coordinatesBlue >> 8), UInt8(coordinatesBlue & 0xFF))
            for y in rows {
                let (yHigh, yLow) = (
                    UInt8(truncatingIfNeeded: y >> 8), UInt8(truncatingIfNeeded: y)
                )
                var out = target + y * width * 6
                for x in 0..<width {
                    out[0] = UInt8(truncatingIfNeeded: x >> 8)
                    out[1] = UInt8(truncatingIfNeeded: x)
                    out[2] = yHigh
                    out[3] = yLow
                    out[4] = blue.0
                    out[5] = blue.1
                    out += 6
                }
            }
        }
    }

    /// The PNG file of the `kind` fixture of `width`×`height`, compressed by
    /// `encoder` while its rows are made: with libdeflate only a window of
    /// rows is held at once, whatever the size (a 10000×10000 coordinates
    /// fixture is 600 MB of pixels and a 10 MB file); with zlib the whole
    /// image.
    ///
    /// - Throws: ``ImagingError`` when compression fails.
    public static func png(
        _ kind: Kind, width: Int, height: Int, encoder: PNGEncoder = PNGEncoder(level: 1)
    ) throws(ImagingError) -> [UInt8] {
        guard encoder.compressor.resolved == .libdeflate else {
            return try encoder.encode(make(kind, width: width, height: height))
        }
        let layout = layout(kind)
        let sink = MemorySink()
        let stream = try PNGRowStream(
            encoder: encoder, width: width, height: height, colorType: layout.colorType,
            bitDepth: layout.bitDepth, chunks: [], sink: sink)
        stream.releasesRows = true
        let rowBytes = width * layout.bytes
        let rowsAtOnce = max(1, min(height, (256 << 10) / rowBytes))
        _ = try decodeRows(size: rowBytes * height, rows: height, into: stream) {
            pixels, ready, context in
            for start in stride(from: 0, to: height, by: rowsAtOnce) {
                let end = min(start + rowsAtOnce, height)
                writeRows(kind, width: width, height: height, rows: start..<end, into: pixels)
                ready?(context, UInt32(end))
            }
            return 0
        }
        return sink.bytes
    }
}
