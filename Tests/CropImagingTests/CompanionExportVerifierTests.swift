import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// The library's companion export check in each format whose crops carry a
/// gain map: a JPEG with an MPF map, a HEIC and an AVIF with an auxiliary
/// one. Each fixture is cut through the real pipeline; the map a crop
/// carries is read back by the format's reader and held to the rule.
@Suite struct CompanionExportVerifierTests {
    static let selections: [Rect<ViewPoints>] = [
        Rect(x: 10, y: 10, width: 200, height: 150),  // on the map's grid
        Rect(x: 101, y: 33, width: 77, height: 51),  // between its pixels
        Rect(x: 399, y: 299, width: 1, height: 1),  // the far corner
        Rect(x: 0, y: 0, width: 400, height: 300),  // the whole photo
    ]

    @Test(arguments: [ImageFormat.jpeg, .heif, .avif])
    func eachFormatsCropCarriesItsMapByTheRule(format: ImageFormat) throws {
        guard
            TestGate.holds(
                format == .jpeg || HEIFEncoder.canEncodeTiles,
                else: "without libheif that encodes HEVC and AV1")
        else { return }
        let verifier = try CompanionExportVerifier(
            sourceSize: PixelSize(width: 400, height: 300),
            companionSize: PixelSize(width: 200, height: 150), format: format)
        for selection in Self.selections {
            let result = try CropRequest(
                sourceSize: Size(width: 400, height: 300), viewport: Size(width: 400, height: 300),
                selection: selection
            ).map()
            let checks = try verifier.check(result)
            #expect(checks.map(\.name) == ["companion size", "companion alignment"])
            for check in checks {
                #expect(check.passed, "\(format.name) \(selection): \(check.name): \(check.detail)")
            }
            if result.rect.width == 400 {
                #expect(checks[1].detail.contains("an exact copy of 0,0,200,150"), "\(format.name)")
            }
        }
    }

    /// A format whose crops carry no gain map is refused by name.
    @Test func aFormatWithoutAPlaceForAMapIsRefused() {
        #expect {
            _ = try CompanionExportVerifier(
                sourceSize: PixelSize(width: 400, height: 300),
                companionSize: PixelSize(width: 200, height: 150), format: .webp)
        } throws: { error in
            "\(error)".contains("its crops carry no gain map: use jpeg, heic or avif")
        }
    }
}
