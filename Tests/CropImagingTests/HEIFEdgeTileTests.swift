import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// The edge tiles of a HEIC crop off the tile grid, on real iPhone photos:
/// encoded again at the default quality close to the source's own decode,
/// and read alike by Debian's libheif and by a current one (pillow-heif).
@Suite(
    .announcesSkips,
    .enabled(
        if: TestData.isPresent && HEIFDecoder.libheifVersion != nil && HEIFEncoder.canEncodeTiles,
        "needs testdata and libheif with its HEVC encoder"))
struct HEIFEdgeTileTests {
    /// The peak signal-to-noise ratio of `a` against `b`, 8-bit samples.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        var total = 0.0
        for (x, y) in zip(a, b) {
            let difference = Double(Int(x) - Int(y))
            total += difference * difference
        }
        return total == 0 ? .infinity : 10 * log10(255 * 255 * Double(a.count) / total)
    }

    @Test(
        "a 300x300 avatar across four tiles: the rect encoded again as one image, 45 dB or more against the source (the issue asks 40), read alike by libheif 1.15 and pillow-heif",
        arguments: [
            (
                "heif/pillow-heif/pug.heic",
                PixelRect<ImagePixels>(x: 1866, y: 1362, width: 300, height: 300)
            ),
            // The iPhone 16 photo: turned (irot), 640x896 tiles.
            (
                "heif/libvips/apple-heic-gainmap.heic",
                PixelRect(x: 2400, y: 2450, width: 300, height: 300)
            ),
        ])
    func avatarAcrossTiles(file: String, rect: PixelRect<ImagePixels>) throws {
        let (bytes, _, report) = try HEIFTests.heicCrop(file, rect, HEIFEncoder())
        let heif = try #require(report.details(as: HEIFWriteReport.self))
        // No tile to copy: the rect is one coded image, 300 grown to 304.
        #expect(heif.copiedTiles == 0 && heif.reencodedTiles == 1)
        #expect(heif.grid.hasPrefix("one image of 304x304"))
        let out = try ImageSource(ImageInput(bytes: bytes, name: "avatar.heic"))
        #expect(try LeakCheck.findings(in: out).isEmpty)
        let decoded = try HEIFTests.libheifWhole(bytes: bytes, width: 300, height: 300)
        let (source, _, _) = try HEIFTests.crop(file, rect)
        let quality = Self.psnr(decoded, source.samples)
        #expect(quality >= 45, "\(file): \(quality) dB at quality \(HEIFEncoder.defaultQuality)")
        // A current libheif reads the same file, and the same picture.
        guard let pillow = try Pillow.rgb(bytes) else { return }
        #expect(pillow.width == 300 && pillow.height == 300)
        #expect(HEIFTests.maxDifference(pillow.samples, decoded) <= 2)
    }
}
