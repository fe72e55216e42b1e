import CropGeometry
import CropTestKit
import Testing

/// The one implementation of the article's four export checks: each check
/// passes a right export in every orientation and fails the fault it exists
/// to catch, for each fixture pattern.
@Suite struct ExportInspectionTests {
    /// The upright crop `crop` of the `pattern` fixture of `size`, read as
    /// a person sees it after `orientation`: what a right exporter returns.
    static func uprightCrop(
        _ pattern: FixturePattern, size: PixelSize<StoredPixels>, crop: PixelRect<StoredPixels>,
        orientation: EXIFOrientation
    ) -> (width: Int, height: Int, pixels: [UInt8]) {
        let cropSize = PixelSize<StoredPixels>(width: crop.width, height: crop.height)
        let seen = orientation.orientedSize(cropSize)
        var pixels: [UInt8] = []
        for y in 0..<seen.height {
            for x in 0..<seen.width {
                let at = orientation.storedRect(
                    PixelRect(x: x, y: y, width: 1, height: 1), storedSize: cropSize)
                pixels += pattern.pixel(x: crop.x + at.x, y: crop.y + at.y, size: size)
            }
        }
        return (seen.width, seen.height, pixels)
    }

    /// `pixels` (rows of `width`) checked as `crop` of the fixture.
    static func inspect(
        _ pattern: FixturePattern, size: PixelSize<StoredPixels>, crop: PixelRect<StoredPixels>,
        orientation: EXIFOrientation, width: Int, height: Int, pixels: [UInt8], rows: Int? = nil
    ) -> ExportInspection {
        var inspection = ExportInspection(
            pattern: pattern, fixtureSize: size, crop: crop, orientation: orientation,
            outputWidth: width, outputHeight: height)
        pixels.withUnsafeBufferPointer { buffer in
            for y in 0..<(rows ?? height) {
                inspection.add(row: buffer.baseAddress! + y * inspection.rowBytes, y: y)
            }
        }
        return inspection
    }

    static let size = PixelSize<StoredPixels>(width: 64, height: 48)
    static let crop = PixelRect<StoredPixels>(x: 50, y: 3, width: 14, height: 9)

    @Test(arguments: FixturePattern.allCases, EXIFOrientation.allCases)
    func aRightExportPassesAllFour(pattern: FixturePattern, orientation: EXIFOrientation) {
        let out = Self.uprightCrop(
            pattern, size: Self.size, crop: Self.crop, orientation: orientation)
        let checks = Self.inspect(
            pattern, size: Self.size, crop: Self.crop, orientation: orientation, width: out.width,
            height: out.height, pixels: out.pixels
        ).checks
        #expect(checks.map(\.name) == ["size", "corner markers", "no transparency", "coordinates"])
        for check in checks { #expect(check.passed, "\(check.name): \(check.detail)") }
    }

    /// An export that forgot the orientation has the stored crop's pixels:
    /// every turned orientation fails (d), and (b) at a corner.
    @Test(arguments: EXIFOrientation.allCases.filter { $0 != .up })
    func anUnturnedExportFails(orientation: EXIFOrientation) {
        let square = PixelRect<StoredPixels>(x: 5, y: 7, width: 9, height: 9)
        let out = Self.uprightCrop(.coordinates, size: Self.size, crop: square, orientation: .up)
        let inspection = Self.inspect(
            .coordinates, size: Self.size, crop: square, orientation: orientation,
            width: out.width, height: out.height, pixels: out.pixels)
        #expect(inspection.size.passed)
        #expect(!inspection.coordinates.passed)
        let rgba = Self.uprightCrop(
            .rgbaCoordinates, size: Self.size, crop: square, orientation: .up)
        let corners = Self.inspect(
            .rgbaCoordinates, size: Self.size, crop: square, orientation: orientation,
            width: rgba.width, height: rgba.height, pixels: rgba.pixels
        ).cornerMarkers
        #expect(!corners.passed && corners.detail.contains("the corner at"))
    }

    /// A crop one pixel up and left ("the exported face is shifted up")
    /// shows the top-left marker where the crop does not overlap it.
    @Test func aShiftedCropFailsTheMarkersAndTheCoordinates() {
        let crop = PixelRect<StoredPixels>(x: 1, y: 1, width: 20, height: 20)
        let shifted = PixelRect<StoredPixels>(x: 0, y: 0, width: 20, height: 20)
        for pattern in [FixturePattern.corners, .rgbaCoordinates] {
            let out = Self.uprightCrop(pattern, size: Self.size, crop: shifted, orientation: .up)
            let inspection = Self.inspect(
                pattern, size: Self.size, crop: crop, orientation: .up, width: out.width,
                height: out.height, pixels: out.pixels)
            #expect(inspection.size.passed)
            #expect(!inspection.cornerMarkers.passed)
            #expect(inspection.cornerMarkers.detail.contains("top-left marker"))
            // The corners fixture's pixels are compared at the export's
            // corners only, which a one-pixel shift leaves inside the red
            // marker: its markers are what catch it.
            #expect(inspection.coordinates.passed == (pattern == .corners))
        }
    }

    /// A transparent pixel anywhere (not only at the border) fails (c); the
    /// coordinates check names the sample that differs.
    @Test func aTransparentPixelFailsTheOpacityCheck() {
        var out = Self.uprightCrop(
            .rgbaCoordinates, size: Self.size, crop: Self.crop, orientation: .up)
        out.pixels[(4 * out.width + 6) * 4 + 3] = 0
        let inspection = Self.inspect(
            .rgbaCoordinates, size: Self.size, crop: Self.crop, orientation: .up,
            width: out.width, height: out.height, pixels: out.pixels)
        #expect(!inspection.noTransparency.passed)
        #expect(inspection.noTransparency.detail == "1 non-opaque pixels, the first at 6,4")
        #expect(
            inspection.coordinates.detail.contains(
                "holds [56, 7, 0, 0], expected source 56,7: [56, 7, 0, 255]"))
        let opaque = Self.inspect(
            .coordinates, size: Self.size, crop: Self.crop, orientation: .up, width: 14,
            height: 9,
            pixels: Self.uprightCrop(
                .coordinates, size: Self.size, crop: Self.crop, orientation: .up
            )
            .pixels)
        #expect(opaque.noTransparency.detail == "no alpha channel")
    }

    /// An export of another size (514×513 for 514×514) fails (a), and (d)
    /// says its pixels were not compared instead of reading past them;
    /// rows never handed in fail (d) too.
    @Test func aWrongSizeOrMissingRowsFail() {
        let out = Self.uprightCrop(.coordinates, size: Self.size, crop: Self.crop, orientation: .up)
        let short = Self.inspect(
            .coordinates, size: Self.size, crop: Self.crop, orientation: .up, width: 14,
            height: 8, pixels: out.pixels)
        #expect(!short.size.passed && short.size.detail == "exported 14x8, mapped 14x9")
        #expect(short.coordinates.detail.hasSuffix("pixels not compared"))
        let missing = Self.inspect(
            .coordinates, size: Self.size, crop: Self.crop, orientation: .up, width: 14,
            height: 9, pixels: out.pixels, rows: 5)
        #expect(!missing.coordinates.passed && missing.coordinates.detail.hasPrefix("5 of 9 rows"))
    }

    /// The patterns write what they say, and each marker is where it is
    /// drawn.
    @Test func patternsAndMarkersAgree() {
        for pattern in FixturePattern.allCases {
            var rows = [UInt8](repeating: 0, count: 64 * 48 * pattern.bytesPerPixel)
            rows.withUnsafeMutableBufferPointer {
                pattern.writeRows(width: 64, height: 48, rows: 0..<48, into: $0.baseAddress!)
            }
            for (x, y) in [(0, 0), (63, 47), (32, 24), (7, 40)] {
                let at = (y * 64 + x) * pattern.bytesPerPixel
                #expect(
                    Array(rows[at..<at + pattern.bytesPerPixel])
                        == pattern.pixel(x: x, y: y, size: Self.size))
            }
            for marker in pattern.markers(Self.size) {
                #expect(
                    pattern.pixel(x: marker.rect.x, y: marker.rect.y, size: Self.size)
                        == marker.color)
            }
        }
        #expect(FixturePattern.corners.markers(Self.size).map(\.rect.width) == [6, 6, 6, 6])
        #expect(FixturePattern.coordinates.markers(Self.size).isEmpty)
        #expect(
            FixturePattern.coordinates.pixel(x: 300, y: 6, size: Self.size) == [
                1, 44, 0, 6, 0xC0, 0xDE,
            ])
    }
}
