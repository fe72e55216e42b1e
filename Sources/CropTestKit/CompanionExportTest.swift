import CropGeometry
import CropRecords
import Foundation

/// The companion rule's check on an app's own code that cuts a gain map, a
/// depth map or a matte with its photo (DESIGN.md, "Companion images"): it
/// is given a companion fixture, its photo's size and a crop of the photo,
/// and what it returns must be the companion cut by the rule: its size
/// `W'`×`H'` exactly, and every pixel the bilinear sample the rule puts
/// there, to the goal of the alignment (mean error at most 0.6 codes, the
/// 99th percentile at most 3), exactly where the crop scales to whole
/// companion pixels.
///
/// ```swift
/// func myCut(
///     _ companion: RGBAImage, _ photo: PixelSize<ImagePixels>, _ rect: PixelRect<ImagePixels>
/// ) throws -> RGBAImage {
///     companion  // the app's code: the companion cut to the crop `rect` of the photo
/// }
/// let failed = CompanionExportTest.run(myCut).filter { !$0.passed }
/// print(failed.first?.detail ?? "all passed")
/// ```
public enum CompanionExportTest {
    /// The app's cut: the companion image, its photo's size, a crop of the
    /// photo (both as displayed); the cut companion.
    public typealias Exporter =
        (RGBAImage, PixelSize<ImagePixels>, PixelRect<ImagePixels>) throws -> RGBAImage

    /// The photos and their companions: Apple's quarter gain map, Ultra
    /// HDR's, a half-size depth map, a depth map of an odd fraction, a
    /// stereo eye, and a gain map larger than its photo.
    public static let grids: [(photo: PixelSize<ImagePixels>, companion: PixelSize<ImagePixels>)] =
        [
            (PixelSize(width: 403, height: 302), PixelSize(width: 101, height: 76)),
            (PixelSize(width: 408, height: 307), PixelSize(width: 102, height: 77)),
            (PixelSize(width: 300, height: 400), PixelSize(width: 150, height: 200)),
            (PixelSize(width: 403, height: 302), PixelSize(width: 77, height: 58)),
            (PixelSize(width: 64, height: 48), PixelSize(width: 64, height: 48)),
            (PixelSize(width: 56, height: 70), PixelSize(width: 349, height: 434)),
        ]

    /// The value of the companion fixture at `(x, y)`: a triangle wave of
    /// period 32 pixels, 30 to 222 (12 codes a pixel), steep enough that a
    /// cut shifted by a fraction of a companion pixel misses the goal.
    public static func value(_ x: Int, _ y: Int) -> UInt8 {
        let phase = (x + 2 * y) % 32
        return UInt8(30 + 12 * abs(phase - 16))
    }

    /// A smooth companion at `(x, y)`, as a real gain map is: a sine wave
    /// of period 48 pixels, 66 to 186 (up to 7.9 codes a pixel, so a
    /// quarter pixel's shift still costs about 2 codes where it is
    /// steepest). CropKit's own export check cuts it through JPEG, whose
    /// coding a triangle wave's folds would dominate.
    public static func smoothValue(_ x: Int, _ y: Int) -> UInt8 {
        let phase = Double((x + 2 * y) % 48) / 48
        return UInt8((126 + 60 * sin(2 * Double.pi * phase)).rounded())
    }

    /// The companion fixture of `size`: gray (``value(_:_:)`` in R, G and
    /// B), opaque.
    public static func fixture(_ size: PixelSize<ImagePixels>) -> RGBAImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(size.width * size.height * 4)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let v = value(x, y)
                pixels += [v, v, v, 255]
            }
        }
        return RGBAImage(width: size.width, height: size.height, pixels: pixels)
    }

    /// The crops of a photo of `size`: whole, one pixel at each far
    /// corner, a part on the companion's grid where it has one, and parts
    /// off it.
    static func rects(_ size: PixelSize<ImagePixels>, companion: PixelSize<ImagePixels>)
        -> [PixelRect<ImagePixels>]
    {
        let (w, h) = (size.width, size.height)
        var rects = [
            PixelRect<ImagePixels>(x: 0, y: 0, width: w, height: h),
            PixelRect(x: 0, y: 0, width: 1, height: 1),
            PixelRect(x: w - 1, y: h - 1, width: 1, height: 1),
            PixelRect(x: w / 3 + 1, y: h / 4 + 1, width: w / 2 - 1, height: h / 2 + 1),
            PixelRect(x: w - w / 3, y: 0, width: w / 3, height: h - 1),
        ]
        // The photo's pixels a companion pixel spans, when whole.
        if w % companion.width == 0, h % companion.height == 0 {
            let (sx, sy) = (w / companion.width, h / companion.height)
            rects.append(PixelRect(x: 2 * sx, y: 3 * sy, width: 10 * sx, height: 7 * sy))
        }
        return rects
    }

    /// Every grid's companion cut to every crop by `exporter`: two results
    /// (`size`, `alignment`) an export, or one (`export`) where it threw.
    public static func run(_ exporter: Exporter) -> [ExportTestResult] {
        var results: [ExportTestResult] = []
        for (photo, companion) in grids {
            guard let grid = CompanionGrid(imageSize: photo, companionSize: companion) else {
                continue
            }
            let image = fixture(companion)
            for rect in rects(photo, companion: companion) {
                let name = "\(photo) photo, \(companion) companion, rect \(rect)"
                results += ExportTestResult.of(fixture: name) {
                    checks(try exporter(image, photo, rect), grid.cut(rect))
                }
            }
        }
        return results
    }

    /// The size and alignment checks of one cut companion.
    static func checks(_ output: RGBAImage, _ cut: CompanionCut<ImagePixels>) -> [ExportCheck] {
        if let malformed = output.malformed(mapped: "\(cut.size)") {
            return [
                malformed,
                ExportCheck(
                    name: "alignment", passed: false, detail: "pixels not compared: no image",
                    measured: [.init("compared", .bool(false))]),
            ]
        }
        return checks(
            width: output.width, height: output.height, cut: cut,
            value: { i, j in Double(output.pixel(i, j)[0]) }, source: { Double(value($0, $1)) })
    }

    /// The size and alignment checks of a companion cut to `cut`, of
    /// `width`×`height` pixels whose value at `(i, j)` is `output(i, j)`,
    /// against the rule's samples of the source companion whose value at
    /// `(x, y)` is `source(x, y)`: the checks of ``run(_:)``, for a cut made
    /// any way (CropKit's own export checks feed it a decoded gain map).
    ///
    /// With `exact` (by default, where the cut is a copy of whole pixels),
    /// every pixel must be the source's; a caller whose coding cannot copy
    /// them (a JPEG's blocks off its grid) passes `false` and the alignment
    /// goal holds instead: a mean error of at most `mean` codes and a 99th
    /// percentile of at most `p99` (by default a JPEG gain map's, 0.6 and
    /// 3; a HEIF companion's goal is 1 and 4).
    public static func checks<Space: PixelSpace>(
        width: Int, height: Int, cut: CompanionCut<Space>, exact: Bool? = nil,
        goal: (mean: Double, p99: Double) = (0.6, 3),
        value output: (Int, Int) -> Double, source: (Int, Int) -> Double
    ) -> [ExportCheck] {
        let size = ExportInspection.size(
            width: width, height: height, expected: (cut.size.width, cut.size.height))
        guard size.passed else {
            return [
                size,
                ExportCheck(
                    name: "alignment", passed: false,
                    detail: "pixels not compared: the cut is not \(cut.size)",
                    measured: [.init("compared", .bool(false))]),
            ]
        }
        var errors: [Double] = []
        errors.reserveCapacity(width * height)
        for j in 0..<height {
            for i in 0..<width {
                errors.append(abs(output(i, j) - cut.referenceSample(i, j, of: source)))
            }
        }
        errors.sort()
        let mean = errors.reduce(0, +) / Double(errors.count)
        let p99 = errors[min(errors.count - 1, errors.count * 99 / 100)]
        let largest = errors.last ?? 0
        let exact = exact ?? (cut.copyRect != nil)
        let passed = exact ? largest == 0 : mean <= goal.mean && p99 <= goal.p99
        let (goalMean, goalP99) = goal
        func text(_ v: Double) -> String { String((v * 100).rounded() / 100) }
        func whole(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : text(v) }
        let goal =
            exact
            ? "an exact copy of \(cut.copyRect.map { "\($0)" } ?? "")"
            : "the rule's bilinear samples (mean at most \(whole(goal.mean)) codes, 99th percentile at most \(whole(goal.p99)))"
        return [
            size,
            ExportCheck(
                name: "alignment", passed: passed,
                detail:
                    "mean error \(text(mean)), 99th percentile \(text(p99)), largest \(text(largest)) codes against \(goal)",
                measured: [
                    .init("compared", .bool(true)),
                    .init("meanError", .number((mean * 100).rounded() / 100)),
                    .init("p99Error", .number((p99 * 100).rounded() / 100)),
                    .init("largestError", .number((largest * 100).rounded() / 100)),
                    .init("exact", .bool(exact)),
                    .init(
                        "copyOf",
                        exact ? (cut.copyRect?.json ?? .null) : .null),
                    .init("goalMean", exact ? .null : .number(goalMean)),
                    .init("goalP99", exact ? .null : .number(goalP99)),
                ]
            ),
        ]
    }
}
