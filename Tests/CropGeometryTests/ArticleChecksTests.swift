import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

/// The article's five checks on its scenario (a 4000×3000 photo aspect-fit in a
/// 300×300 view), against the article's own signature `cropPixels`.
@Suite(.announcesSkips) struct ArticleChecksTests {
    let source = CGSize(width: 4000, height: 3000)
    let viewport = CGSize(width: 300, height: 300)

    @Test func centreSelectionMapsToTheCentrePixels() {
        let rect = cropPixels(
            source: source, viewport: viewport,
            selection: CGRect(x: 75, y: 75, width: 150, height: 150))
        #expect(rect == CGRect(x: 1000, y: 500, width: 2000, height: 2000))
    }

    @Test func fullSelectionIsTheWholeImage() {
        let rect = cropPixels(
            source: source, viewport: viewport,
            selection: CGRect(x: 0, y: 0, width: 300, height: 300))
        #expect(rect == CGRect(x: 0, y: 0, width: 4000, height: 3000))
    }

    @Test func selectionInThePaddingHasNoPixels() {
        #expect(
            cropPixels(
                source: source, viewport: viewport,
                selection: CGRect(x: 10, y: 0, width: 100, height: 37.5)) == nil)
        #expect(
            cropPixels(
                source: source, viewport: viewport,
                selection: CGRect(x: 0, y: 262.5, width: 300, height: 37.5)) == nil)
    }

    @Test func selectionBeyondAnEdgeIsClipped() {
        let rect = cropPixels(
            source: source, viewport: viewport,
            selection: CGRect(x: 250, y: 200, width: 100, height: 100))
        #expect(rect == CGRect(x: 3333, y: 2166, width: 667, height: 834))
    }

    @Test func fractionalEdgesRoundOutward() {
        // 10.01 pt is 133.47 px (down to 133); 43.34 pt is 577.87 px (up to 578).
        let rect = cropPixels(
            source: source, viewport: viewport,
            selection: CGRect(x: 10.01, y: 40.3, width: 33.33, height: 20.07))
        #expect(rect == CGRect(x: 133, y: 37, width: 445, height: 268))
    }
}

/// Inputs on which the article's plain-`Double` code is wrong, and CropKit is
/// not. Every expected value here was also checked against the Int128
/// reference (see `doubleTrapsAgreeWithTheReference`).
@Suite(.announcesSkips) struct DoubleTrapTests {
    /// An edge exactly on a pixel boundary that `Double` cannot represent:
    /// 0.15 pt and 150.15 pt are pixels 2 and 2002 (0.075 pt per pixel).
    @Test func edgeOnAnUnrepresentableBoundaryDoesNotGrowTheCrop() {
        let source = CGSize(width: 4000, height: 3000)
        let viewport = CGSize(width: 300, height: 300)
        let selection = CGRect(x: 0.15, y: 75, width: 150, height: 150)
        let article = articleCropPixels(source: source, viewport: viewport, selection: selection)
        let exact = cropPixels(source: source, viewport: viewport, selection: selection)
        #expect(article == CGRect(x: 2, y: 500, width: 2001, height: 2000))
        #expect(exact == CGRect(x: 2, y: 500, width: 2000, height: 2000))
    }

    /// A selection wholly in the top padding, ending exactly where the image
    /// starts (y = 125): no pixels, not a one-pixel row.
    @Test(arguments: [
        (2924.0, 731.0, 760.0, 440.0, 120.0),
        (910, 2730, 146, 472, 12),
        (1414, 3535, 196, 604, 52),
    ])
    func selectionEndingAtThePaddingHasNoPixels(
        sw: Double, sh: Double, vw: Double, vh: Double, y: Double
    ) {
        let selection = CGRect(x: 0, y: y, width: vw, height: 5)
        let source = CGSize(width: sw, height: sh)
        let viewport = CGSize(width: vw, height: vh)
        let article = articleCropPixels(source: source, viewport: viewport, selection: selection)
        #expect(article == CGRect(x: 0, y: 0, width: sw, height: 1))
        #expect(cropPixels(source: source, viewport: viewport, selection: selection) == nil)
    }

    @Test func doubleTrapsAgreeWithTheReference() throws {
        let cases = [
            MappingCase(
                sw: 4000, sh: 3000, vw: 300, vh: 300, x: 0.15, y: 75, w: 150, h: 150,
                mode: .aspectFit,
                imageScale: 1, z: 1, ox: 0, oy: 0, orientation: .up),
            MappingCase(
                sw: 2924, sh: 731, vw: 760, vh: 440, x: 0, y: 120, w: 760, h: 5, mode: .aspectFit,
                imageScale: 1, z: 1, ox: 0, oy: 0, orientation: .up),
        ]
        let expected: [[Int]?] = [[2, 500, 2002, 2500], nil]
        for (c, want) in zip(cases, expected) {
            let reference = try referenceMapping(c)
            #expect(reference.map { [$0.0, $0.1, $0.2, $0.3] } == want, "\(c)")
        }
    }
}
