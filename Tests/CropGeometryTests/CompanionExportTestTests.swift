import CropGeometry
import CropTestKit
import Foundation
import Testing

/// The test kit's companion check: an app's gain-map cut made with
/// CropGeometry's companion rule passes; the bugs real crop code ships
/// (the rect rounded outward, samples taken at pixel corners instead of
/// centres, truncated to the pixel below) fail, each on the check it
/// breaks.
@Suite struct CompanionExportTestTests {
    /// An app's cut: each output pixel sampled at `position(cut, i, j)`,
    /// bilinear or truncated, over an output of `size(cut)`.
    static func exporter(
        size: @escaping @Sendable (CompanionCut<ImagePixels>) -> PixelSize<ImagePixels> = \.size,
        shift: Double = 0, truncate: Bool = false
    ) -> CompanionExportTest.Exporter {
        { companion, photo, rect in
            guard
                let grid = CompanionGrid(
                    imageSize: photo,
                    companionSize: PixelSize(width: companion.width, height: companion.height))
            else { throw CocoaError(.featureUnsupported) }
            let cut = grid.cut(rect)
            let out = size(cut)
            var pixels: [UInt8] = []
            for j in 0..<out.height {
                for i in 0..<out.width {
                    let (px, py) = (
                        cut.sampleX(min(i, cut.size.width - 1)).value + shift,
                        cut.sampleY(min(j, cut.size.height - 1)).value + shift
                    )
                    func at(_ x: Int, _ y: Int) -> Double {
                        Double(
                            companion.pixel(
                                min(max(x, 0), companion.width - 1),
                                min(max(y, 0), companion.height - 1))[0])
                    }
                    let value: Double
                    if truncate {
                        value = at(Int(px.rounded(.down)), Int(py.rounded(.down)))
                    } else {
                        let (x0, y0) = (Int(px.rounded(.down)), Int(py.rounded(.down)))
                        let (tx, ty) = (px - Double(x0), py - Double(y0))
                        value =
                            (at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx) * (1 - ty)
                            + (at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx) * ty
                    }
                    let v = UInt8(value.rounded())
                    pixels += [v, v, v, 255]
                }
            }
            return RGBAImage(width: out.width, height: out.height, pixels: pixels)
        }
    }

    @Test func theRulePassesEveryCase() {
        let results = CompanionExportTest.run(Self.exporter())
        #expect(results.count >= 60)
        for result in results where !result.passed {
            Issue.record("\(result.fixture): \(result.check): \(result.detail)")
        }
    }

    /// The old `--gain-map crop`: the rect scaled and rounded outward.
    @Test func roundingOutwardFailsTheSize() {
        let outward = Self.exporter(size: { cut in
            let (m, p, r) = (cut.grid.companionSize, cut.grid.imageSize, cut.rect)
            let x1 = (r.maxX * m.width + p.width - 1) / p.width
            let y1 = (r.maxY * m.height + p.height - 1) / p.height
            return PixelSize(
                width: x1 - r.x * m.width / p.width, height: y1 - r.y * m.height / p.height)
        })
        let failed = CompanionExportTest.run(outward).filter { !$0.passed }
        #expect(failed.contains { $0.check == "size" })
    }

    /// Corners instead of centres (half a companion pixel off) and
    /// truncated coordinates (libultrahdr's) break the alignment.
    @Test func samplesOffTheRuleFailTheAlignment() {
        for wrong in [Self.exporter(shift: 0.5), Self.exporter(truncate: true)] {
            let failed = CompanionExportTest.run(wrong).filter { !$0.passed }
            #expect(failed.contains { $0.check == "alignment" })
            #expect(failed.allSatisfy { $0.check == "alignment" })
        }
    }
}
