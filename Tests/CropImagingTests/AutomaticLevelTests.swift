import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// `CompressionLevel.automatic`: level 1 for bands of noise, 6 elsewhere,
/// and the pixels exact either way.
@Suite struct AutomaticLevelTests {
    /// 256x256 RGB, 64 rows a band: the top `noiseRows` rows noise (each
    /// byte random: filtered, still 8 bits a byte), the rest smooth (blurred
    /// noise with a little grain, as a soft photograph).
    static func image(noiseRows: Int) -> RasterImage {
        var samples = [UInt8](repeating: 0, count: 256 * 256 * 3)
        var state: UInt32 = 7
        for y in 0..<256 {
            for x in 0..<256 {
                for c in 0..<3 {
                    let i = (y * 256 + x) * 3 + c
                    if y < noiseRows {
                        state = state &* 1_103_515_245 &+ 12345
                        samples[i] = UInt8(truncatingIfNeeded: state >> 16)
                    } else {
                        // Blurred noise: random values 8 pixels apart,
                        // blended, with a little grain.
                        let (gx, gy) = (x / 8, y / 8)
                        let (fx, fy) = (x % 8, y % 8)
                        func grid(_ u: Int, _ v: Int) -> Int {
                            var h = UInt32(
                                truncatingIfNeeded: u &* 73_856_093 ^ v &* 19_349_663 ^ c
                                    &* 83_492_791)
                            h = (h ^ (h >> 13)) &* 1_274_126_177
                            return Int(h >> 24)
                        }
                        let top = grid(gx, gy) * (8 - fx) + grid(gx + 1, gy) * fx
                        let bottom = grid(gx, gy + 1) * (8 - fx) + grid(gx + 1, gy + 1) * fx
                        state = state &* 1_103_515_245 &+ 12345
                        samples[i] = UInt8(
                            min(255, (top * (8 - fy) + bottom * fy) / 64 + Int(state >> 30)))
                    }
                }
            }
        }
        return RasterImage(width: 256, height: 256, colorType: .rgb, bitDepth: 8, samples: samples)
    }

    static func encoder(_ level: CompressionLevel) -> PNGEncoder {
        PNGEncoder(compressor: .libdeflate, level: level, threads: 2)
            .withBands(ofRows: 64, rowBytes: 256 * 3)
    }

    @Test(
        .enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"),
        arguments: [(0, [6: 4]), (128, [1: 2, 6: 2]), (256, [1: 4])])
    func noisyBandsGetLevelOneAndTheRestSix(noiseRows: Int, expected: [Int: Int]) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = Self.image(noiseRows: noiseRows)
        let input = folder.appendingPathComponent("in.png").path
        try AtomicFile.write(
            PNGEncoder(compressor: .zlib).encode(image), to: input, replacing: false)
        let output = folder.appendingPathComponent("out.png").path
        let report = try cropFile(
            input: input, stored: PixelRect(x: 0, y: 0, width: 256, height: 256), output: output,
            encoder: Self.encoder(.automatic))
        #expect(report.level == .automatic)
        #expect(report.bandLevels == expected)
        #expect(try PNGDecoder.decode(path: output) == image)
        // A fixed level is used for every band.
        let fixed = try cropFile(
            input: input, stored: PixelRect(x: 0, y: 0, width: 256, height: 256), output: output,
            encoder: Self.encoder(.fixed(9)), replacing: true)
        #expect(fixed.bandLevels == [9: 4])
        #expect(try PNGDecoder.decode(path: output) == image)
    }

    /// A noisy photo with an even alpha channel is still noise: the choice
    /// looks at the noisiest byte of the pixel, not at all bytes together.
    @Test(.enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"))
    func noiseUnderAnEvenAlphaIsStillNoise() throws {
        // Six bits of noise a channel: over all bytes, with the alpha, the
        // band's entropy is about 0.75 * 6 + 0.8 = 5.3 bits, under the
        // threshold; the colour channels' own are 6.
        var samples = [UInt8](repeating: 255, count: 256 * 256 * 4)
        var state: UInt32 = 3
        for pixel in 0..<256 * 256 {
            for c in 0..<3 {
                state = state &* 1_103_515_245 &+ 12345
                samples[pixel * 4 + c] = UInt8(state >> 26)
            }
        }
        var image = RasterImage(
            width: 256, height: 256, colorType: .rgba, bitDepth: 8, samples: samples)
        let encoder = PNGEncoder(compressor: .libdeflate, level: .automatic, threads: 2)
            .withBands(ofRows: 64, rowBytes: 256 * 4)
        let copy = image
        let sink = Collector()
        #expect(try encoder.write(taking: &image, to: sink).bandLevels == [1: 4])
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("alpha.png")
        try Data(sink.bytes).write(to: path)
        #expect(try PNGDecoder.decode(path: path.path) == copy)
    }

    final class Collector: ByteSink {
        var bytes: [UInt8] = []

        func write(_ chunk: any ByteChunk) throws(ImagingError) {
            chunk.withChunkBytes { bytes.append(contentsOf: $0) }
        }
    }

    /// What the choice is for: on noise level 6 saves nothing over level 1;
    /// on smooth rows it does.
    @Test(.enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"))
    func theChoiceMatchesWhereLevelSixPays() throws {
        for (rows, sixPays) in [(256, false), (0, true)] {
            let image = Self.image(noiseRows: rows)
            let one = try Self.encoder(.fixed(1)).encode(image).count
            let six = try Self.encoder(.fixed(6)).encode(image).count
            let auto = try Self.encoder(.automatic).encode(image).count
            #expect(
                (Double(six) < 0.98 * Double(one)) == sixPays,
                "noise rows \(rows): \(one) vs \(six)")
            #expect(auto == (sixPays ? six : one))
        }
    }
}
