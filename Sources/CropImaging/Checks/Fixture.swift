import CropGeometry
import CropTestKit

/// Test images of an exact pixel size whose pixels say where they came from.
public enum Fixture {
    /// The kinds of fixture.
    public enum Kind: String, CaseIterable, Sendable {
        /// The article's fixture: a different colour in each corner and a cross
        /// at the centre, on opaque gray (8-bit RGBA).
        case corners
        /// 16-bit RGB whose every pixel encodes its own position: R = x,
        /// G = y, B = `FixturePattern.coordinatesBlue`.
        case coordinates

        /// The pattern its pixels follow: CropTestKit's, where each
        /// fixture formula is stated once.
        public var pattern: FixturePattern {
            switch self {
            case .corners: .corners
            case .coordinates: .coordinates
            }
        }
    }

    /// The fixture of `kind` and exactly `width`×`height` pixels.
    public static func make(_ kind: Kind, width: Int, height: Int) -> RasterImage {
        switch kind {
        case .corners: corners(width: width, height: height)
        case .coordinates: coordinates(width: width, height: height)
        }
    }

    /// The corners fixture: markers of side `FixturePattern.markerSide` in
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
            kind.pattern.writeRows(width: width, height: height, rows: 0..<height, into: base)
            initialized = count
        }
        return RasterImage(
            width: width, height: height, colorType: layout.colorType, bitDepth: layout.bitDepth,
            samples: samples)
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
                kind.pattern.writeRows(
                    width: width, height: height, rows: start..<end, into: pixels)
                ready?(context, UInt32(end))
            }
            return 0
        }
        return sink.bytes
    }
}
