import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

@Suite(.announcesSkips) struct JPEGDecodeTests {
    static let generated = TestData.files(under: "jpeg/generated", extensions: ["jpg"])

    /// A region decode equals, bit for bit, the same rect of a full decode,
    /// for every subsampling, coding and scan structure, on and off MCU
    /// boundaries (the margin that keeps the chroma upsampler exact).
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func regionDecodeEqualsTheSameRectOfAFullDecode() throws {
        #expect(Self.generated.count >= 15)
        for file in Self.generated {
            let path = TestData.path(file)
            let info = try JPEGFileInfo.read(path: path)
            let full = try JPEGDecoder.decode(path: path).image
            let (w, h) = (info.width, info.height)
            let rects = [
                (0, 0, w, h), (1, 1, 1, 1), (16, 16, 32, 32), (17, 15, 33, 31),
                (w - 5, h - 3, 5, 3),
                (w / 3, h / 4, w / 2, h / 2), (0, h - 1, w, 1), (w - 1, 0, 1, h), (7, 9, 100, 50),
            ]
            for (x, y, rw, rh) in rects where x + rw <= w && y + rh <= h {
                let region = try JPEGDecoder.decode(
                    path: path, rect: PixelRect(x: x, y: y, width: rw, height: rh)
                )
                .image
                #expect(
                    region == full.cropped(to: PixelRect(x: x, y: y, width: rw, height: rh)),
                    "\(file) at \(x),\(y),\(rw),\(rh)")
            }
        }
    }

    /// Every reference-test file libjpeg-turbo 2.1.5 supports decodes within
    /// 3/255 of its PNG reference (made by ImageMagick); unsupported ones
    /// (SOF3 lossless, the PNG with a .jpg name) error cleanly.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func referenceFilesDecodeWithinThreeLevels() throws {
        var compared = 0
        var refused = 0
        for file in TestData.files(under: "jpeg/jpeg-decoder-reftest", extensions: ["jpg"]) {
            let path = TestData.path(file)
            let referencePath = String(path.dropLast(4)) + ".png"
            let decoded: RasterImage
            do {
                decoded = try JPEGDecoder.decode(path: path, lenient: true).image
            } catch {
                refused += 1
                #expect(!error.description.isEmpty)
                continue
            }
            guard FileManager.default.fileExists(atPath: referencePath) else { continue }
            let reference = try PNGDecoder.decode(path: referencePath)
            guard reference.width == decoded.width, reference.height == decoded.height else {
                Issue.record(
                    "\(file): size \(decoded.width)x\(decoded.height), reference \(reference.width)x\(reference.height)"
                )
                continue
            }
            // The reference as RGBA8 whatever its PNG format (ImageMagick
            // writes palette, sub-byte gray or 16-bit as it sees fit).
            let expected = RGBA8Oracle.rgba8(reference)
            var worst = 0
            for y in 0..<decoded.height {
                for x in 0..<decoded.width {
                    for c in 0..<3 {
                        let got = decoded.sample(
                            x: x, y: y, channel: decoded.colorType == .gray ? 0 : c)
                        let want = Int(expected[(y * decoded.width + x) * 4 + c])
                        worst = max(worst, abs(got - want))
                    }
                }
            }
            #expect(worst <= 3, "\(file): differs from its reference by up to \(worst)")
            compared += 1
        }
        print("jpeg reftest: \(compared) compared, \(refused) refused")
        #expect(compared >= 30)
    }
}
