import CropGeometry
import CropImaging
import CropKitTestSupport
import CropTestKit
import Foundation
import Testing

/// The export checks on the article's scenario and the six input categories,
/// through the real file pipeline; and proof that each check can fail.
@Suite(.announcesSkips) struct ExportCheckTests {
    /// The article's scenario scaled to 400x300 (same geometry, faster), and
    /// one case per category, in square and non-square views.
    static let cases: [(String, CropRequest)] = {
        func request(
            _ source: (Double, Double), _ view: (Double, Double),
            _ s: (Double, Double, Double, Double),
            orientation: EXIFOrientation = .up
        ) -> CropRequest {
            CropRequest(
                sourceSize: Size(width: source.0, height: source.1),
                viewport: Size(width: view.0, height: view.1),
                selection: Rect(x: s.0, y: s.1, width: s.2, height: s.3), orientation: orientation)
        }
        return [
            ("article scenario", request((400, 300), (300, 300), (75, 75, 150, 150))),
            ("landscape", request((403, 302), (390, 844), (20, 300, 200, 150))),
            ("portrait", request((302, 403), (844, 390), (300, 20, 150, 200))),
            ("full selection", request((400, 300), (300, 300), (0, 0, 300, 300))),
            ("beyond an edge", request((400, 300), (300, 300), (250, 200, 100, 100))),
            ("fractional edges", request((400, 300), (300, 300), (10.01, 40.3, 33.33, 20.07))),
            ("bottom-right corner", request((400, 300), (300, 300), (200, 190, 100, 72.5))),
            (
                "rotated photo",
                request((300, 400), (300, 300), (75, 75, 150, 150), orientation: .right)
            ),
            (
                "mirrored photo",
                request((300, 400), (300, 300), (0, 0, 100, 300), orientation: .rightMirrored)
            ),
        ]
    }()

    @Test func everyCategoryPassesTheFourChecks() throws {
        var verifiers: [PixelSize<StoredPixels>: ExportVerifier] = [:]
        for (name, request) in Self.cases {
            let result = try request.map()
            let verifier =
                try verifiers[result.sourceSize] ?? ExportVerifier(sourceSize: result.sourceSize)
            verifiers[result.sourceSize] = verifier
            let checks = try verifier.check(result)
            #expect(checks.count == 4)
            for check in checks { #expect(check.passed, "\(name): \(check.name): \(check.detail)") }
        }
    }

    /// The article's own scenario at its own size: a 4000x3000 photo in a
    /// 300x300 view, the centre selection, exported and checked.
    @Test func articleScenarioAtFullSize() throws {
        let request = CropRequest(
            sourceSize: Size(width: 4000, height: 3000), viewport: Size(width: 300, height: 300),
            selection: Rect(x: 75, y: 75, width: 150, height: 150))
        let result = try request.map()
        #expect(result.rect == PixelRect(x: 1000, y: 500, width: 2000, height: 2000))
        let checks = try ExportVerifier(sourceSize: result.sourceSize).check(result)
        for check in checks { #expect(check.passed, "\(check.name): \(check.detail)") }
    }

    @Test func paddingOnlyHasNothingToExport() {
        let request = CropRequest(
            sourceSize: Size(width: 400, height: 300), viewport: Size(width: 300, height: 300),
            selection: Rect(x: 0, y: 0, width: 300, height: 30))
        #expect(throws: CropRejection.noImagePixels) { try request.map() }
    }

    /// Each check fails on the fault it exists to catch.
    @Test func checksCatchShiftedResizedAndPaddedExports() throws {
        let size = PixelSize<StoredPixels>(width: 40, height: 30)
        let corners = Fixture.corners(width: 40, height: 30)
        let coordinates = Fixture.coordinates(width: 40, height: 30)
        let right = PixelRect<StoredPixels>(x: 20, y: 10, width: 20, height: 20)
        // A crop shifted one pixel up and left ("the exported face is shifted up").
        let shifted = PixelRect<StoredPixels>(x: 19, y: 9, width: 20, height: 20)
        let shiftedCoordinates = coordinates.cropped(to: shifted)
        #expect(
            !ExportChecks.coordinates(in: shiftedCoordinates, stored: right, orientation: .up)
                .passed)
        let wholeCorners = corners.cropped(to: PixelRect(x: 0, y: 0, width: 40, height: 30))
        #expect(
            !ExportChecks.cornerMarkers(in: wholeCorners, stored: right, sourceSize: size).passed)
        // A 514x513-style size error.
        let oneShort = corners.cropped(to: PixelRect(x: 20, y: 10, width: 20, height: 19))
        #expect(
            !ExportChecks.size(of: oneShort, equals: PixelRect(x: 20, y: 10, width: 20, height: 20))
                .passed)
        // A coordinates export of the wrong size is a failed check, not a
        // read past the end of its pixels.
        let tooSmall = coordinates.cropped(to: PixelRect(x: 20, y: 10, width: 3, height: 2))
        let check = ExportChecks.coordinates(in: tooSmall, stored: right, orientation: .up)
        #expect(!check.passed)
        #expect(check.detail.contains("exported 3x2, expected 20x20"))
        // A transparent line at the edge.
        var padded = corners.cropped(to: PixelRect(x: 0, y: 0, width: 40, height: 30))
        for x in 0..<40 { padded.samples[(29 * 40 + x) * 4 + 3] = 0 }
        #expect(!ExportChecks.noTransparentPixels(in: padded).passed)
        // And the right crop passes all of them.
        let good = corners.cropped(to: PixelRect(x: 20, y: 10, width: 20, height: 20))
        #expect(ExportChecks.cornerMarkers(in: good, stored: right, sourceSize: size).passed)
        #expect(
            ExportChecks.coordinates(
                in: coordinates.cropped(to: PixelRect(x: 20, y: 10, width: 20, height: 20)),
                stored: right, orientation: .up
            ).passed)
    }

    @Test func fixturesHoldWhatTheySay() {
        let coordinates = Fixture.coordinates(width: 301, height: 7)
        #expect(coordinates.sample(x: 300, y: 6, channel: 0) == 300)
        #expect(coordinates.sample(x: 300, y: 6, channel: 1) == 6)
        #expect(coordinates.sample(x: 0, y: 0, channel: 2) == FixturePattern.coordinatesBlue)
        let corners = Fixture.corners(width: 80, height: 40)
        let side = FixturePattern.markerSide(width: 80, height: 40)
        #expect(side == 5)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] {
            (0..<4).map { UInt8(corners.sample(x: x, y: y, channel: $0)) }
        }
        #expect(pixel(0, 0) == FixturePattern.topLeft && pixel(79, 0) == FixturePattern.topRight)
        #expect(
            pixel(0, 39) == FixturePattern.bottomLeft && pixel(79, 39) == FixturePattern.bottomRight
        )
        #expect(pixel(40, 20) == FixturePattern.cross && pixel(5, 5) == FixturePattern.background)
    }

    /// A fixture compressed while its rows are made decodes to the same
    /// pixels as the fixture made whole, for both kinds, across many bands.
    @Test(.enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"))
    func streamedFixturesAreTheFixtures() throws {
        for kind in Fixture.Kind.allCases {
            for (width, height) in [(1, 1), (301, 977)] {
                let bytes = try Fixture.png(
                    kind, width: width, height: height,
                    encoder: PNGEncoder(level: 1, threads: 2).withBands(
                        ofRows: 7, rowBytes: width * 6))
                let decoded = try ImageSource(ImageInput(bytes: bytes)).decode().image
                #expect(
                    decoded == Fixture.make(kind, width: width, height: height), "\(kind) \(width)")
            }
        }
    }
}
