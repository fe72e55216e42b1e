import CropGeometry
import CropRecords
import Foundation

/// The article's four export checks of one exported crop of a fixture, fed
/// the crop a row at a time, so an image of any size is checked without
/// holding it: the one implementation behind ``CropExportTest`` and
/// CropImaging's `ExportVerifier`.
///
/// - (a) **size**: the export is as wide and high as the crop seen
///   upright.
/// - (b) **corner markers**: each marker of the fixture appears exactly as
///   often as the crop overlaps it (a bottom-right crop holds no top-left
///   marker), and each corner of the export shows the fixture pixel
///   behind it.
/// - (c) **no transparency**: the fixture is opaque, so no pixel of the
///   export may be transparent (a full-image selection adds no border).
/// - (d) **coordinates**: every pixel of the export is the fixture pixel
///   behind it (the orientation applied).
///
/// ```swift
/// import CropGeometry
/// import CropTestKit
///
/// let crop = PixelRect<StoredPixels>(x: 2, y: 1, width: 3, height: 2)
/// let fixture = PixelSize<StoredPixels>(width: 8, height: 4)
/// var inspection = ExportInspection(
///     pattern: .rgbaCoordinates, fixtureSize: fixture, crop: crop, orientation: .up,
///     outputWidth: 3, outputHeight: 2)
/// for y in 0..<2 {
///     let row = (0..<3).flatMap {
///         FixturePattern.rgbaCoordinates.pixel(x: 2 + $0, y: 1 + y, size: fixture)
///     }
///     row.withUnsafeBufferPointer { inspection.add(row: $0.baseAddress!, y: y) }
/// }
/// print(inspection.checks.allSatisfy(\.passed))  // true
/// ```
public struct ExportInspection: Sendable {
    /// The fixture's pattern.
    public let pattern: FixturePattern
    /// The fixture's stored size.
    public let fixtureSize: PixelSize<StoredPixels>
    /// The crop's rect in the stored fixture.
    public let crop: PixelRect<StoredPixels>
    /// The exported crop's width.
    public let outputWidth: Int
    /// The exported crop's height.
    public let outputHeight: Int
    /// The size the export must have: the crop seen upright.
    public let expectedSize: PixelSize<ImagePixels>

    /// The stored pixel seen at `(X, Y)` is crop origin + origin +
    /// X·across + Y·down.
    private let origin: (x: Int, y: Int)
    private let across: (x: Int, y: Int)
    private let down: (x: Int, y: Int)
    private let markers: [FixtureMarker]
    private let markerWords: [UInt32]
    private var markerCounts: [Int]
    private var opacity: OpacityCount
    private var wrong = 0
    private var firstWrong = ""
    private var firstWrongMeasured: JSONValue = .null
    private var corner: String?
    private var cornerMeasured: JSONValue = .null
    private var rows = 0

    /// Checks for an export of `outputWidth`×`outputHeight` that should be
    /// `crop` of the `pattern` fixture of `fixtureSize`, turned upright by
    /// `orientation`.
    public init(
        pattern: FixturePattern, fixtureSize: PixelSize<StoredPixels>,
        crop: PixelRect<StoredPixels>, orientation: EXIFOrientation, outputWidth: Int,
        outputHeight: Int
    ) {
        self.pattern = pattern
        self.fixtureSize = fixtureSize
        self.crop = crop
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        let size = PixelSize<StoredPixels>(width: crop.width, height: crop.height)
        expectedSize = orientation.orientedSize(size)
        (origin, across, down) = orientation.storedWalk(storedSize: size)
        markers = pattern.markers(fixtureSize)
        markerCounts = [Int](repeating: 0, count: markers.count)
        markerWords = markers.map { marker in
            marker.color.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        }
        opacity = OpacityCount(
            bytesPerPixel: pattern.bytesPerPixel,
            alpha: pattern == .coordinates ? nil : (offset: 3, bytes: 1))
    }

    /// The bytes of one row of the export.
    public var rowBytes: Int { outputWidth * pattern.bytesPerPixel }

    /// Whether the export has the size the pixels are compared at.
    private var sized: Bool {
        outputWidth == expectedSize.width && outputHeight == expectedSize.height
    }

    /// Checks row `y` of the export (``rowBytes`` bytes at `row`); rows come
    /// in order, each once.
    public mutating func add(row: UnsafePointer<UInt8>, y: Int) {
        rows += 1
        let bytes = pattern.bytesPerPixel
        opacity.add(row: row, y: y, width: outputWidth)
        if !markerWords.isEmpty {
            // Markers are 4-byte pixels: compared as words.
            let raw = UnsafeRawPointer(row)
            for x in 0..<outputWidth {
                let pixel = raw.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
                for k in 0..<markerWords.count where pixel == markerWords[k] {
                    markerCounts[k] += 1
                }
            }
        }
        // Pixels are traced back only in an export of the right size: in
        // another, they would be looked up outside the crop.
        guard sized, y < outputHeight else { return }
        let (pattern, fixture) = (self.pattern, fixtureSize)
        let rowX = crop.x + origin.x + y * down.x
        let rowY = crop.y + origin.y + y * down.y
        for x in 0..<outputWidth {
            let (sx, sy) = (rowX + x * across.x, rowY + x * across.y)
            let p = row + x * bytes
            let isCorner = (x == 0 || x == outputWidth - 1) && (y == 0 || y == outputHeight - 1)
            guard pattern != .corners || isCorner else { continue }
            guard !pattern.holds(p, x: sx, y: sy, size: fixture) else { continue }
            if isCorner, corner == nil {
                let shows = Array(UnsafeBufferPointer(start: p, count: bytes))
                let expected = pattern.pixel(x: sx, y: sy, size: fixture)
                corner = "the corner at (\(x), \(y)) shows \(shows), expected \(expected)"
                cornerMeasured = .object([
                    .init("at", ExportCheck.point(x, y)),
                    .init("samples", .array(shows.map { .number(Int($0)) })),
                    .init("expectedSamples", .array(expected.map { .number(Int($0)) })),
                ])
            }
            wrong += 1
            if wrong == 1 {
                // A pixel that names the right position is wrong in
                // another sample (its alpha, its blue): its samples are
                // shown.
                var measured: [JSONValue.Member] = [
                    .init("at", ExportCheck.point(x, y)),
                    .init("expectedSource", ExportCheck.point(sx, sy)),
                ]
                if let named = pattern.position(of: p), named != (sx, sy) {
                    firstWrong =
                        "output \(x),\(y) holds source \(named.x),\(named.y), expected \(sx),\(sy)"
                    measured.append(.init("source", ExportCheck.point(named.x, named.y)))
                } else {
                    let shows = Array(UnsafeBufferPointer(start: p, count: bytes))
                    let expected = pattern.pixel(x: sx, y: sy, size: fixture)
                    firstWrong =
                        "output \(x),\(y) holds \(shows), expected source \(sx),\(sy): \(expected)"
                    measured += [
                        .init("samples", .array(shows.map { .number(Int($0)) })),
                        .init("expectedSamples", .array(expected.map { .number(Int($0)) })),
                    ]
                }
                firstWrongMeasured = .object(measured)
            }
        }
    }

    /// (a) The size check.
    public var size: ExportCheck {
        Self.size(
            width: outputWidth, height: outputHeight,
            expected: (expectedSize.width, expectedSize.height))
    }

    /// (a) for an export of `width`×`height` that should be
    /// `expected.width`×`expected.height`.
    public static func size(width: Int, height: Int, expected: (width: Int, height: Int))
        -> ExportCheck
    {
        ExportCheck(
            name: "size", passed: width == expected.width && height == expected.height,
            detail: "exported \(width)x\(height), mapped \(expected.width)x\(expected.height)",
            measured: [
                .init("exported", ExportCheck.size(width, height)),
                .init("mapped", ExportCheck.size(expected.width, expected.height)),
            ])
    }

    /// (b) The corner-marker check, once every row is in.
    public var cornerMarkers: ExportCheck {
        var problems: [String] = []
        var counted: [JSONValue] = []
        for (index, (marker, count)) in zip(markers, markerCounts).enumerated() {
            // A marker shows where no later one covers it: in a fixture
            // smaller than two markers they overlap, the last painted wins.
            let overlap = Self.visibleArea(
                of: marker.rect, under: markers[(index + 1)...].map(\.rect), inside: crop)
            if count != overlap {
                problems.append("\(marker.name) marker: \(count) pixels, expected \(overlap)")
            }
            counted.append(
                .object([
                    .init("marker", .string(marker.name)), .init("pixels", .number(count)),
                    .init("expected", .number(overlap)),
                ]))
        }
        if let corner { problems.append(corner) }
        return .cornerMarkers(
            problems: problems,
            measured: [.init("markers", .array(counted)), .init("wrongCorner", cornerMeasured)])
    }

    /// The pixels of `rect` inside `crop` that none of `later` covers, by
    /// inclusion and exclusion over the later rects' intersections.
    static func visibleArea(
        of rect: PixelRect<StoredPixels>, under later: [PixelRect<StoredPixels>],
        inside crop: PixelRect<StoredPixels>
    ) -> Int {
        func intersection(_ a: PixelRect<StoredPixels>?, _ b: PixelRect<StoredPixels>)
            -> PixelRect<StoredPixels>?
        {
            guard let a else { return nil }
            let x = Swift.max(a.x, b.x)
            let y = Swift.max(a.y, b.y)
            let w = Swift.min(a.maxX, b.maxX) - x
            let h = Swift.min(a.maxY, b.maxY) - y
            return w > 0 && h > 0 ? PixelRect(x: x, y: y, width: w, height: h) : nil
        }
        let base = intersection(rect, crop)
        var area = 0
        for subset in 0..<(1 << later.count) {
            var part = base
            for (bit, other) in later.enumerated() where subset & (1 << bit) != 0 {
                part = intersection(part, other)
            }
            let size = part.map { $0.width * $0.height } ?? 0
            area += subset.nonzeroBitCount % 2 == 0 ? size : -size
        }
        return area
    }

    /// (c) The transparency check, once every row is in.
    public var noTransparency: ExportCheck { opacity.check }

    /// (d) The coordinates check, once every row is in (a
    /// ``FixturePattern/corners`` fixture's pixels are compared at the export's corners only).
    public var coordinates: ExportCheck {
        guard sized else {
            return ExportCheck(
                name: "coordinates", passed: false,
                detail:
                    "exported \(outputWidth)x\(outputHeight), expected \(expectedSize.width)x\(expectedSize.height): pixels not compared",
                measured: [
                    .init("compared", .bool(false)),
                    .init("exported", ExportCheck.size(outputWidth, outputHeight)),
                    .init("expected", ExportCheck.size(expectedSize.width, expectedSize.height)),
                ])
        }
        guard rows >= outputHeight else {
            return ExportCheck(
                name: "coordinates", passed: false,
                detail: "\(rows) of \(outputHeight) rows read: pixels not all compared",
                measured: [
                    .init("compared", .bool(false)), .init("rowsRead", .number(rows)),
                    .init("rows", .number(outputHeight)),
                ])
        }
        return ExportCheck(
            name: "coordinates", passed: wrong == 0,
            detail: wrong == 0
                ? "every pixel is the right source pixel" : "\(wrong) pixels wrong; \(firstWrong)",
            measured: [
                .init("compared", .bool(true)), .init("wrongPixels", .number(wrong)),
                .init("firstWrong", firstWrongMeasured),
            ])
    }

    /// The four checks, (a) to (d).
    public var checks: [ExportCheck] { [size, cornerMarkers, noTransparency, coordinates] }
}

/// Check (c) on its own, fed one row at a time: the pixels that are not
/// fully opaque, in an image of any layout.
public struct OpacityCount: Sendable {
    private let bytesPerPixel: Int
    private let alpha: (offset: Int, bytes: Int)?
    private var transparent = 0
    private var firstAt = ""
    private var first: JSONValue = .null

    /// Counts in pixels of `bytesPerPixel` bytes whose alpha sample, if
    /// any, is the `alpha.bytes` bytes (1 or 2) at `alpha.offset` (opaque
    /// when every one is 255).
    public init(bytesPerPixel: Int, alpha: (offset: Int, bytes: Int)?) {
        self.bytesPerPixel = bytesPerPixel
        self.alpha = alpha
    }

    /// Counts the non-opaque pixels of row `y`, `width` pixels.
    public mutating func add(row: UnsafePointer<UInt8>, y: Int, width: Int) {
        guard let alpha else { return }
        for i in 0..<width {
            let at = row + i * bytesPerPixel + alpha.offset
            if at[0] != 255 || (alpha.bytes == 2 && at[1] != 255) {
                if transparent == 0 {
                    firstAt = "\(i),\(y)"
                    first = ExportCheck.point(i, y)
                }
                transparent += 1
            }
        }
    }

    /// The check, once every row is in.
    public var check: ExportCheck {
        guard alpha != nil else {
            return ExportCheck(
                name: "no transparency", passed: true, detail: "no alpha channel",
                measured: [.init("alpha", .bool(false))])
        }
        return ExportCheck(
            name: "no transparency", passed: transparent == 0,
            detail: transparent == 0
                ? "every pixel opaque"
                : "\(transparent) non-opaque pixels, the first at \(firstAt)",
            measured: [
                .init("alpha", .bool(true)), .init("nonOpaquePixels", .number(transparent)),
                .init("first", first),
            ])
    }
}

extension ExportCheck {
    /// The corner-marker check's verdict: passed when there is no problem.
    public static func cornerMarkers(problems: [String], measured: [JSONValue.Member] = [])
        -> ExportCheck
    {
        ExportCheck(
            name: "corner markers", passed: problems.isEmpty,
            detail: problems.isEmpty
                ? "every marker where the crop overlaps it, and nowhere else"
                : problems.joined(separator: "; "),
            measured: measured)
    }
}

extension PixelRect<StoredPixels> {
    /// The width and height of this rect's overlap with `other` (0 by 0
    /// where they do not overlap).
    public func overlapSides(with other: Self) -> (width: Int, height: Int) {
        let w = Swift.min(maxX, other.maxX) - Swift.max(x, other.x)
        let h = Swift.min(maxY, other.maxY) - Swift.max(y, other.y)
        return w > 0 && h > 0 ? (w, h) : (0, 0)
    }

    /// How many pixels this rect shares with `other`.
    public func overlapArea(with other: Self) -> Int {
        let (w, h) = overlapSides(with: other)
        return w * h
    }
}
