import CropGeometry
import CropKitTestSupport
import Foundation
import Testing

@testable import CropImaging

/// The JPEG route masks and flattens a resampled output a row at a time;
/// these check it row for row against the whole-image stages it replaced
/// (``RasterImage/maskedByEllipse()`` then
/// ``RasterImage/eightBitOpaque(warnings:)``), and through the pipeline,
/// against the PNG route's output of the same crop.
@Suite(.announcesSkips) struct JPEGBandFlattenerTests {
    /// Deterministic samples: every byte value, in an order no stage
    /// could guess.
    static func image(width: Int, height: Int, colorType: ColorType, bitDepth: Int)
        -> RasterImage
    {
        let count = width * height * colorType.channels * (bitDepth == 16 ? 2 : 1)
        var state: UInt32 = 0x9E37_79B9
        let samples = (0..<count).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        return RasterImage(
            width: width, height: height, colorType: colorType, bitDepth: bitDepth,
            samples: samples)
    }

    /// The image flattened row by row, and the translucent count.
    static func flattenedByRows(_ image: RasterImage, ellipse: Bool) -> ([UInt8], Int) {
        var flattener = JPEGBandFlattener(
            width: image.width, height: image.height, colorType: image.colorType,
            wide: image.bitDepth == 16, ellipse: ellipse)
        let rowBytes = flattener.renderedRowBytes
        var out = [UInt8](
            repeating: 0, count: image.width * image.height * flattener.outputChannels)
        image.samples.withUnsafeBufferPointer { samples in
            out.withUnsafeMutableBufferPointer { output in
                for row in 0..<image.height {
                    flattener.flatten(
                        row: row, from: samples.baseAddress! + row * rowBytes,
                        into: output.baseAddress! + row * image.width * flattener.outputChannels)
                }
            }
        }
        return (out, flattener.translucent)
    }

    /// Every direct colour type at 8 and 16 bits, each with and without
    /// the ellipse.
    static let cases: [(ColorType, Int, Bool)] = [ColorType.gray, .grayAlpha, .rgb, .rgba]
        .flatMap { type in
            [8, 16].flatMap { depth in [(type, depth, false), (type, depth, true)] }
        }

    @Test("rows masked and flattened equal the whole-image stages", arguments: cases)
    func rowsEqualWholeImage(colorType: ColorType, bitDepth: Int, ellipse: Bool) {
        let image = Self.image(width: 37, height: 23, colorType: colorType, bitDepth: bitDepth)
        var warnings: [String] = []
        let whole = (ellipse ? image.maskedByEllipse() : image).eightBitOpaque(
            warnings: &warnings)
        let (rows, translucent) = Self.flattenedByRows(image, ellipse: ellipse)
        #expect(rows == whole.samples)
        #expect(whole.colorType.channels == (colorType == .gray || colorType == .grayAlpha ? 1 : 3))
        #expect(
            warnings == [RasterImage.flatteningWarning(translucent: translucent)].compactMap { $0 })
        let opaque = !ellipse && (colorType == .gray || colorType == .rgb)
        #expect((translucent == 0) == opaque)
    }

    @Test("a circled JPEG counts the pixels the circled PNG leaves translucent")
    func circledJPEGAgreesWithPNG() throws {
        // An opaque 8-bit photo-like source: only the mask makes pixels
        // translucent, so the JPEG's count is the PNG's alpha below 255.
        let source = try ImageSource(
            ImageInput(
                bytes: try PNGEncoder().encode(
                    Self.image(width: 90, height: 70, colorType: .rgb, bitDepth: 8)),
                name: "opaque.png"))
        var job = CropJob(
            region: .pixels(PixelRect(x: 5, y: 3, width: 61, height: 47)), orientation: .up,
            format: .png(PNGEncoder()))
        job.resampling.ellipse = true
        let sink = MemorySink()
        _ = try job.plan(for: source).export(to: sink)
        let png = try ImageSource(ImageInput(bytes: sink.bytes, name: "circle.png")).decode(
            PixelRect(x: 0, y: 0, width: 61, height: 47)
        ).image
        #expect(png.colorType == .rgba)
        let expected = (0..<(61 * 47)).filter { png.samples[4 * $0 + 3] < 255 }.count
        #expect(expected > 0 && expected < 61 * 47)

        job.format = .jpeg(JPEGEncoder())
        let jpeg = try job.plan(for: source).export(to: MemorySink())
        #expect(
            jpeg.warnings
                == [RasterImage.flatteningWarning(translucent: expected)].compactMap { $0 })
        #expect(jpeg.size == PixelSize(width: 61, height: 47))
    }
}
