import CropGeometry

/// The article's export checks, on crops of the fixtures. Pixels are compared,
/// never file bytes.
public enum ExportChecks {
    /// (a) The exported width and height equal the mapping's result.
    public static func size(of output: RasterImage, equals expected: PixelRect<ImagePixels>)
        -> ExportCheck
    {
        size(width: output.width, height: output.height, equals: expected)
    }

    /// (a) for an output of `width`×`height`.
    static func size(width: Int, height: Int, equals expected: PixelRect<ImagePixels>)
        -> ExportCheck
    {
        let passed = width == expected.width && height == expected.height
        return ExportCheck(
            name: "size", passed: passed,
            detail: "exported \(width)x\(height), mapped \(expected.width)x\(expected.height)")
    }

    /// (b) Each corner marker of the corners fixture appears in the crop
    /// exactly as often as the crop's stored rect overlaps it: a bottom-right
    /// crop holds no pixel of the top-left marker, and no marker is shifted.
    ///
    /// - Parameters:
    ///   - output: The exported crop (oriented as exported).
    ///   - stored: The crop's rect in the stored fixture.
    ///   - sourceSize: The fixture's stored size.
    public static func cornerMarkers(
        in output: RasterImage, stored: PixelRect<StoredPixels>, sourceSize: PixelSize<StoredPixels>
    ) -> ExportCheck {
        precondition(
            output.colorType == .rgba && output.bitDepth == 8, "the corners fixture is 8-bit RGBA")
        var markers = CornerMarkerRows(stored: stored, sourceSize: sourceSize)
        forEachRow(of: output) { markers.add(row: $1, width: output.width) }
        return markers.check
    }

    /// (c) No transparent pixel anywhere, border included: the fixture is
    /// opaque, so an export that pads or resamples shows up here.
    public static func noTransparentPixels(in output: RasterImage) -> ExportCheck {
        var opacity = OpacityRows(colorType: output.colorType, bitDepth: output.bitDepth)
        forEachRow(of: output) { opacity.add(row: $1, y: $0, width: output.width) }
        return opacity.check
    }

    /// (d) With the coordinates fixture, the exported pixel the person sees at
    /// `(i, j)` is the source pixel at the matching stored position: for
    /// orientation 1, `(x+i, y+j)`.
    public static func coordinates(
        in output: RasterImage, stored: PixelRect<StoredPixels>, orientation: EXIFOrientation
    ) -> ExportCheck {
        precondition(
            output.colorType == .rgb && output.bitDepth == 16,
            "the coordinates fixture is 16-bit RGB")
        let storedCrop = PixelSize<StoredPixels>(width: stored.width, height: stored.height)
        // The pixels are looked up by the expected size: an output of
        // another size fails here instead of being read out of bounds.
        let expected = orientation.orientedSize(storedCrop)
        guard output.width == expected.width, output.height == expected.height,
            output.samples.count >= output.width * output.height * 6
        else {
            return ExportCheck(
                name: "coordinates", passed: false,
                detail:
                    "exported \(output.width)x\(output.height), expected \(expected.width)x\(expected.height): pixels not compared"
            )
        }
        var coordinates = CoordinateRows(stored: stored, orientation: orientation)
        forEachRow(of: output) { coordinates.add(row: $1, y: $0) }
        return coordinates.check
    }

    /// Hands each row of `image` (as many as its samples hold) to `body`.
    private static func forEachRow(
        of image: RasterImage, _ body: (Int, UnsafePointer<UInt8>) -> Void
    ) {
        let rowBytes = image.width * image.bytesPerPixel
        guard rowBytes > 0 else { return }
        image.samples.withUnsafeBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            for y in 0..<min(image.height, samples.count / rowBytes) {
                body(y, base + y * rowBytes)
            }
        }
    }
}

/// Check (b), fed one row of the exported corners crop (8-bit RGBA) at a
/// time: how many pixels of each corner marker it holds.
struct CornerMarkerRows {
    private let markers: [(name: String, word: UInt32, rect: PixelRect<StoredPixels>)]
    private let stored: PixelRect<StoredPixels>
    private var counts: [Int]

    init(stored: PixelRect<StoredPixels>, sourceSize: PixelSize<StoredPixels>) {
        func word(_ color: [UInt8]) -> UInt32 {
            UInt32(color[0]) | UInt32(color[1]) << 8 | UInt32(color[2]) << 16
                | UInt32(color[3]) << 24
        }
        markers = Fixture.markers(sourceSize).map { ($0.name, word($0.color), $0.rect) }
        self.stored = stored
        counts = [Int](repeating: 0, count: markers.count)
    }

    /// Counts the markers' pixels in one row of `width` pixels.
    mutating func add(row: UnsafePointer<UInt8>, width: Int) {
        let raw = UnsafeRawPointer(row)
        for i in 0..<width {
            let pixel = raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)
            for k in 0..<markers.count where pixel == markers[k].word { counts[k] += 1 }
        }
    }

    /// The check, once every row is in.
    var check: ExportCheck {
        var problems: [String] = []
        for (index, marker) in markers.enumerated() {
            let overlap = overlapArea(stored, marker.rect)
            if counts[index] != overlap {
                problems.append(
                    "\(marker.name) marker: \(counts[index]) pixels, expected \(overlap)")
            }
        }
        return .cornerMarkers(problems: problems)
    }
}

/// Check (c), fed one row at a time: pixels that are not fully opaque.
struct OpacityRows {
    private let channels: Int
    private let bytesPerSample: Int
    private let hasAlpha: Bool
    private var transparent = 0
    private var firstAt = ""

    init(colorType: ColorType, bitDepth: Int) {
        channels = colorType.channels
        bytesPerSample = bitDepth == 16 ? 2 : 1
        hasAlpha = colorType == .rgba || colorType == .grayAlpha
    }

    /// Counts the non-opaque pixels of row `y`, `width` pixels.
    mutating func add(row: UnsafePointer<UInt8>, y: Int, width: Int) {
        guard hasAlpha else { return }
        let stride = channels * bytesPerSample
        for i in 0..<width {
            let alpha = i * stride + (channels - 1) * bytesPerSample
            let opaque = row[alpha] == 255 && (bytesPerSample == 1 || row[alpha + 1] == 255)
            if !opaque {
                if transparent == 0 { firstAt = "\(i),\(y)" }
                transparent += 1
            }
        }
    }

    /// The check, once every row is in.
    var check: ExportCheck {
        guard hasAlpha else {
            return ExportCheck(name: "no transparency", passed: true, detail: "no alpha channel")
        }
        return ExportCheck(
            name: "no transparency", passed: transparent == 0,
            detail: transparent == 0
                ? "every pixel opaque" : "\(transparent) non-opaque pixels, the first at \(firstAt)"
        )
    }
}

/// Check (d), fed one row of the exported coordinates crop (16-bit RGB, of
/// the size the orientation gives the stored rect) at a time: the pixel
/// seen at `(X, Y)` must encode the stored position behind it.
struct CoordinateRows {
    private let stored: PixelRect<StoredPixels>
    private let width: Int
    /// The stored crop point seen at (X, Y) is origin + X·across + Y·down.
    private let origin: (x: Int, y: Int)
    private let across: (x: Int, y: Int)
    private let down: (x: Int, y: Int)
    private var wrong = 0
    private var first = ""

    init(stored: PixelRect<StoredPixels>, orientation: EXIFOrientation) {
        self.stored = stored
        let crop = PixelSize<StoredPixels>(width: stored.width, height: stored.height)
        width = orientation.orientedSize(crop).width
        (origin, across, down) = orientation.storedWalk(storedSize: crop)
    }

    /// Compares row `y` of the output with the source pixels behind it.
    mutating func add(row: UnsafePointer<UInt8>, y: Int) {
        let blue = (UInt8(Fixture.coordinatesBlue >> 8), UInt8(Fixture.coordinatesBlue & 0xFF))
        for x in 0..<width {
            let sx = stored.x + origin.x + x * across.x + y * down.x
            let sy = stored.y + origin.y + x * across.y + y * down.y
            let p = row + x * 6
            if p[0] != UInt8(truncatingIfNeeded: sx >> 8) || p[1] != UInt8(truncatingIfNeeded: sx)
                || p[2] != UInt8(truncatingIfNeeded: sy >> 8)
                || p[3] != UInt8(truncatingIfNeeded: sy)
                || p[4] != blue.0 || p[5] != blue.1
            {
                wrong += 1
                if wrong == 1 {
                    let r = Int(p[0]) << 8 | Int(p[1])
                    let g = Int(p[2]) << 8 | Int(p[3])
                    first = "output \(x),\(y) holds source \(r),\(g), expected \(sx),\(sy)"
                }
            }
        }
    }

    /// The check, once every row is in.
    var check: ExportCheck {
        ExportCheck(
            name: "coordinates", passed: wrong == 0,
            detail: wrong == 0
                ? "every pixel is the right source pixel" : "\(wrong) pixels wrong; \(first)")
    }
}

func overlapArea(_ a: PixelRect<StoredPixels>, _ b: PixelRect<StoredPixels>) -> Int {
    let (w, h) = overlapSides(a, b)
    return w * h
}

/// The width and height of the overlap of `a` and `b` (0 where they do not
/// overlap).
func overlapSides(_ a: PixelRect<StoredPixels>, _ b: PixelRect<StoredPixels>) -> (Int, Int) {
    let w = min(a.maxX, b.maxX) - max(a.x, b.x)
    let h = min(a.maxY, b.maxY) - max(a.y, b.y)
    return w > 0 && h > 0 ? (w, h) : (0, 0)
}

extension ExportCheck {
    /// The corner-marker check's verdict: passed when there is no problem.
    static func cornerMarkers(problems: [String]) -> ExportCheck {
        ExportCheck(
            name: "corner markers", passed: problems.isEmpty,
            detail: problems.isEmpty
                ? "every marker where the crop overlaps it, and nowhere else"
                : problems.joined(separator: "; "))
    }
}
