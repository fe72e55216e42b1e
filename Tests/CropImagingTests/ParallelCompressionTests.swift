import CropImaging
import Foundation
import Testing

/// Bands compressed on several threads and joined into one zlib stream: the
/// joined stream must decode (through libpng and zlib, which share no code
/// with libdeflate) to exactly the pixels, for any band count and content.
@Suite struct ParallelCompressionTests {
    static func image(width: Int, height: Int, pattern: Int) -> RasterImage {
        var samples = [UInt8](repeating: 0, count: width * height * 4)
        var state: UInt32 = 12345
        for i in 0..<samples.count {
            switch pattern {
            case 0: samples[i] = 7  // constant: few, long blocks
            case 1:  // noise: many blocks
                state = state &* 1_103_515_245 &+ 12345
                samples[i] = UInt8(truncatingIfNeeded: state >> 16)
            default:  // gradients
                samples[i] = UInt8(truncatingIfNeeded: (i / 4) % width ^ (i / (4 * width)))
            }
        }
        return RasterImage(
            width: width, height: height, colorType: .rgba, bitDepth: 8, samples: samples)
    }

    @Test(arguments: [2, 3, 16], [0, 1, 2])
    func bandsJoinIntoOneValidStream(threads: Int, pattern: Int) throws {
        guard Compressor.isLibdeflateAvailable else {
            print("bandsJoinIntoOneValidStream: skipped: libdeflate not installed (bands need it)")
            return
        }
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 640x480 RGBA: 1.2 MB filtered, over the parallel threshold.
        let image = Self.image(width: 640, height: 480, pattern: pattern)
        for level in [1, 9] {
            let path = folder.appendingPathComponent("\(threads)-\(level).png")
            let bytes = try PNGEncoder(compressor: .libdeflate, level: level, threads: threads)
                .encode(image)
            try Data(bytes).write(to: path)
            #expect(
                try PNGDecoder.decode(path: path.path) == image,
                "\(threads) bands, level \(level), pattern \(pattern)")
            // One IDAT per band.
            var idats = 0
            var offset = 8
            while offset + 8 <= bytes.count {
                let length =
                    Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2])
                    << 8 | Int(bytes[offset + 3])
                if bytes[offset + 4..<offset + 8].elementsEqual("IDAT".utf8) { idats += 1 }
                offset += 12 + length
            }
            #expect(idats == threads)
        }
    }

    /// Large images go out a group of bands at a time; the groups must join
    /// into the same single stream.
    @Test(arguments: [2, 3])
    func groupsOfBandsJoinIntoOneValidStream(threads: Int) throws {
        guard Compressor.isLibdeflateAvailable else {
            print("groupsOfBandsJoinIntoOneValidStream: skipped: libdeflate not installed")
            return
        }
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = Self.image(width: 640, height: 480, pattern: 2)
        var encoder = PNGEncoder(compressor: .libdeflate, level: 6, threads: threads)
        encoder.maximumGroupBytes = 200_000  // 1.2 MB: seven groups
        let path = folder.appendingPathComponent("groups.png")
        try Data(encoder.encode(image)).write(to: path)
        #expect(try PNGDecoder.decode(path: path.path) == image)
    }
}
