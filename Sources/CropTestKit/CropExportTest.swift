import CropGeometry
import CropRecords

/// An image of 8-bit RGBA samples, rows packed: what an exporter under test
/// receives and returns.
public struct RGBAImage: Hashable, Sendable {
    /// Its width in pixels.
    public var width: Int
    /// Its height in pixels.
    public var height: Int
    /// `width * height * 4` samples: R, G, B, A, row by row.
    public var pixels: [UInt8]

    /// An image of `pixels` (`width * height * 4` samples).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The failed size check of an image whose samples do not fill it
    /// (`width * height * 4`), for an export that should be `mapped`; nil
    /// when they do.
    func malformed(mapped: String) -> ExportCheck? {
        guard width < 0 || height < 0 || pixels.count != width * height * 4 else { return nil }
        return ExportCheck(
            name: "size", passed: false,
            detail:
                "exported \(width)x\(height) with \(pixels.count) samples, mapped \(mapped) (4 samples a pixel)",
            measured: [
                .init("exported", ExportCheck.size(width, height)),
                .init("samples", .number(pixels.count)),
            ])
    }

    /// The pixel at `(x, y)`.
    public func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let at = (y * width + x) * 4
        return Array(pixels[at..<at + 4])
    }
}

/// The article's export checks on an app's own export code: it is given
/// fixtures whose pixels say where they are (as the image is seen, the
/// ``FixturePattern/rgbaCoordinates`` pattern), stored with an EXIF
/// orientation, and a pixel rect of the image as seen; what it returns
/// must be that rect exactly. ``ExportInspection`` checks it: its size,
/// the fixture's corner pixels exactly where the rect covers them and the
/// export's corners where they belong, no transparent pixel, and every
/// pixel in place (the orientation applied).
///
/// ```swift
/// func myExport(
///     _ stored: RGBAImage, _ orientation: EXIFOrientation, _ rect: PixelRect<ImagePixels>
/// ) throws -> RGBAImage {
///     stored  // the app's export code: crop `rect` of the image as seen
/// }
/// let failed = CropExportTest.run(myExport).filter { !$0.passed }
/// print(failed.first?.detail ?? "all passed")
/// ```
public enum CropExportTest {
    /// The app's export: a stored image, its EXIF orientation, a rect in
    /// pixels of the image as seen; the exported pixels, upright.
    public typealias Exporter =
        (RGBAImage, EXIFOrientation, PixelRect<ImagePixels>) throws -> RGBAImage

    /// The fixtures: sizes as seen, and orientations.
    public static let fixtures: [(width: Int, height: Int, orientation: EXIFOrientation)] = [
        (61, 37, .up), (300, 200, .up), (37, 61, .right), (200, 300, .left), (61, 37, .down),
    ]

    /// The colour of a pixel seen at `(x, y)`: R = x & 255, G = y & 255,
    /// B = (x >> 8) << 4 | y >> 8, opaque (the
    /// ``FixturePattern/rgbaCoordinates`` pattern).
    public static func expected(_ x: Int, _ y: Int) -> [UInt8] {
        FixturePattern.rgbaCoordinates.pixel(
            x: x, y: y, size: PixelSize(width: x + 1, height: y + 1))
    }

    /// The fixture seen as `width`×`height`, stored with `orientation`.
    public static func fixture(width: Int, height: Int, orientation: EXIFOrientation)
        -> RGBAImage
    {
        let stored = orientation.storedSize(PixelSize(width: width, height: height))
        var pixels = [UInt8](repeating: 0, count: stored.width * stored.height * 4)
        for y in 0..<stored.height {
            for x in 0..<stored.width {
                let seen = orientation.orientedPoint(x: x, y: y, storedSize: stored)
                let at = (y * stored.width + x) * 4
                pixels.replaceSubrange(at..<at + 4, with: expected(seen.x, seen.y))
            }
        }
        return RGBAImage(width: stored.width, height: stored.height, pixels: pixels)
    }

    /// The rects each fixture is cut to: whole, inset by one, the last
    /// pixel, an odd part in the middle.
    static func rects(width: Int, height: Int) -> [PixelRect<ImagePixels>] {
        [
            PixelRect(x: 0, y: 0, width: width, height: height),
            PixelRect(x: 1, y: 1, width: width - 2, height: height - 2),
            PixelRect(x: width - 1, y: height - 1, width: 1, height: 1),
            PixelRect(x: width / 3, y: height / 4, width: width / 2 + 1, height: height / 2),
        ]
    }

    /// Every fixture cut to every rect by `exporter`: one result a check
    /// (size, corner markers, no transparency, coordinates) of each export.
    public static func run(_ exporter: Exporter) -> [ExportTestResult] {
        var results: [ExportTestResult] = []
        for (width, height, orientation) in fixtures {
            let image = fixture(width: width, height: height, orientation: orientation)
            for rect in rects(width: width, height: height) {
                let name = "\(width)x\(height) orientation \(orientation.rawValue), rect \(rect)"
                results += ExportTestResult.of(fixture: name) {
                    checks(
                        try exporter(image, orientation, rect), rect, seenSize: (width, height))
                }
            }
        }
        return results
    }

    /// The four checks of one export of `rect` of the fixture seen as
    /// `seenSize`: the fixture as seen is the pattern stored upright, so
    /// the rect is its crop and the export is checked with no turn.
    static func checks(
        _ output: RGBAImage, _ rect: PixelRect<ImagePixels>, seenSize: (width: Int, height: Int)
    ) -> [ExportCheck] {
        if let malformed = output.malformed(mapped: "\(rect.width)x\(rect.height)") {
            return [malformed]
        }
        var inspection = ExportInspection(
            pattern: .rgbaCoordinates,
            fixtureSize: PixelSize(width: seenSize.width, height: seenSize.height),
            crop: PixelRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height),
            orientation: .up, outputWidth: output.width, outputHeight: output.height)
        output.pixels.withUnsafeBufferPointer { pixels in
            guard let base = pixels.baseAddress else { return }
            for y in 0..<output.height { inspection.add(row: base + y * output.width * 4, y: y) }
        }
        return inspection.checks
    }
}

/// One check of one export.
public struct ExportTestResult: Hashable, Sendable {
    /// The fixture and rect.
    public var fixture: String
    /// `size`, `corner markers`, `no transparency`, `coordinates` (the
    /// names of ``ExportCheck/name``) or `export` (it threw).
    public var check: String
    /// Whether it held.
    public var passed: Bool
    /// What was found.
    public var detail: String
}

extension ExportTestResult {
    /// The result of `check` on the export of `fixture`.
    init(fixture: String, _ check: ExportCheck) {
        self.init(fixture: fixture, check: check.name, passed: check.passed, detail: check.detail)
    }

    /// The results of the checks `export` makes of an export of `fixture`,
    /// or one failed `export` result when the exporter threw.
    static func of(fixture: String, _ export: () throws -> [ExportCheck]) -> [ExportTestResult] {
        do {
            return try export().map { ExportTestResult(fixture: fixture, $0) }
        } catch {
            return [
                ExportTestResult(
                    fixture: fixture, check: "export", passed: false,
                    detail: "the exporter threw \(error)")
            ]
        }
    }
}
