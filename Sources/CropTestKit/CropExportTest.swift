import CropGeometry

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

    /// The pixel at `(x, y)`.
    public func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let at = (y * width + x) * 4
        return Array(pixels[at..<at + 4])
    }
}

/// The article's export checks on an app's own export code: it is given
/// fixtures whose pixels say where they are (as the image is seen), stored
/// with an EXIF orientation, and a pixel rect of the image as seen; what
/// it returns must be that rect exactly: its size, its four corner
/// markers, no transparent border, and every pixel in place (the
/// orientation applied).
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
    /// B = (x >> 8) << 4 | y >> 8, opaque.
    public static func expected(_ x: Int, _ y: Int) -> [UInt8] {
        [UInt8(x & 255), UInt8(y & 255), UInt8((x >> 8) << 4 | y >> 8), 255]
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
    /// (size, corners, border, pixels) of each export.
    public static func run(_ exporter: Exporter) -> [ExportTestResult] {
        var results: [ExportTestResult] = []
        for (width, height, orientation) in fixtures {
            let image = fixture(width: width, height: height, orientation: orientation)
            for rect in rects(width: width, height: height) {
                let name = "\(width)x\(height) orientation \(orientation.rawValue), rect \(rect)"
                do {
                    let output = try exporter(image, orientation, rect)
                    results += checks(output, rect, fixture: name)
                } catch {
                    results.append(
                        ExportTestResult(
                            fixture: name, check: "export", passed: false,
                            detail: "the exporter threw \(error)"))
                }
            }
        }
        return results
    }

    /// The four checks of one export.
    static func checks(_ output: RGBAImage, _ rect: PixelRect<ImagePixels>, fixture: String)
        -> [ExportTestResult]
    {
        func result(_ check: String, _ failure: String?) -> ExportTestResult {
            ExportTestResult(
                fixture: fixture, check: check, passed: failure == nil, detail: failure ?? "ok")
        }
        guard output.width == rect.width, output.height == rect.height,
            output.pixels.count == rect.width * rect.height * 4
        else {
            return [
                result(
                    "size",
                    "\(output.width)x\(output.height) (\(output.pixels.count) samples), expected \(rect.width)x\(rect.height)"
                )
            ]
        }
        var corners: String?
        for (x, y) in [
            (0, 0), (rect.width - 1, 0), (0, rect.height - 1), (rect.width - 1, rect.height - 1),
        ]
        where output.pixel(x, y) != expected(rect.x + x, rect.y + y) {
            corners =
                corners
                ?? "the corner at (\(x), \(y)) shows \(output.pixel(x, y)), expected \(expected(rect.x + x, rect.y + y))"
        }
        var border: String?
        var misplaced: String?
        var wrong = 0
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let pixel = output.pixel(x, y)
                if (x == 0 || y == 0 || x == rect.width - 1 || y == rect.height - 1)
                    && pixel[3] != 255
                {
                    border = border ?? "a transparent border pixel at (\(x), \(y))"
                }
                if pixel != expected(rect.x + x, rect.y + y) {
                    wrong += 1
                    misplaced =
                        misplaced
                        ?? "(\(x), \(y)) shows \(pixel), expected \(expected(rect.x + x, rect.y + y))"
                }
            }
        }
        return [
            result("size", nil),
            result("corners", corners),
            result("border", border),
            result(
                "pixels",
                misplaced.map {
                    "\(wrong) pixels out of place, first \($0) (is the orientation applied?)"
                }),
        ]
    }
}

/// One check of one export.
public struct ExportTestResult: Hashable, Sendable {
    /// The fixture and rect.
    public var fixture: String
    /// `size`, `corners`, `border`, `pixels` or `export` (it threw).
    public var check: String
    /// Whether it held.
    public var passed: Bool
    /// What was found.
    public var detail: String
}
