import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Bands compressed on several threads and joined into one zlib stream: the
/// joined stream must decode (through libpng and zlib, which share no code
/// with libdeflate) to exactly the pixels, for any band count, thread count
/// and content, whether the rows are all there at the start or arrive while
/// the crop is decoded.
@Suite(.announcesSkips) struct ParallelCompressionTests {
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

    @Test(
        .enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"),
        arguments: [2, 3, 16], [0, 1, 2])
    func bandsJoinIntoOneValidStream(threads: Int, pattern: Int) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 640x480 RGBA: 1.2 MB filtered, about sixteen bands a thread.
        let image = Self.image(width: 640, height: 480, pattern: pattern)
        for level in [1, 9] {
            let path = folder.appendingPathComponent("\(threads)-\(level).png")
            var encoder = PNGEncoder(
                compressor: .libdeflate, level: .fixed(level), threads: threads)
            // Bands of at least 64 KiB, not the default 512 KiB, so that a
            // 1.2 MB image is cut into many.
            encoder.minimumBandBytes = 1 << 16
            let bytes = try encoder.encode(image)
            try Data(bytes).write(to: path)
            #expect(
                try PNGDecoder.decode(path: path.path) == image,
                "\(threads) bands, level \(level), pattern \(pattern)")
            // One IDAT per band.
            let bandRows = encoder.bandRows(rowBytes: 640 * 4, height: 480)
            #expect(bandRows < 480 / threads)
            #expect(TestData.idatCount(bytes) == (480 + bandRows - 1) / bandRows)
        }
    }

    /// Bands of one row and of odd sizes, and more threads than bands.
    @Test(
        .enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"),
        arguments: [(1, 3), (7, 2), (479, 4), (480, 1), (5, 16)])
    func bandsOfAnySize(rows: Int, threads: Int) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = Self.image(width: 61, height: 480, pattern: 1)
        let rowBytes = 61 * 4
        let encoder = PNGEncoder(compressor: .libdeflate, level: 6, threads: threads)
            .withBands(ofRows: rows, rowBytes: rowBytes)
        #expect(encoder.bandRows(rowBytes: rowBytes, height: 480) == rows)
        let path = folder.appendingPathComponent("bands.png")
        try Data(encoder.encode(image)).write(to: path)
        #expect(try PNGDecoder.decode(path: path.path) == image)
    }

    /// A thread count below one, set on the public property, is one thread:
    /// it once reached the C layer as 0 and started a worker per band past
    /// the end of its 64-entry table (found under AddressSanitizer).
    @Test(
        .enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"),
        arguments: [0, -3, Int.min])
    func threadCountsBelowOneAreOneThread(threads: Int) throws {
        let image = Self.image(width: 61, height: 480, pattern: 1)
        var encoder = PNGEncoder(compressor: .libdeflate, level: .fixed(1))
            .withBands(ofRows: 1, rowBytes: 61 * 4)
        encoder.threads = threads
        #expect(encoder.threads == 1)
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("one-thread.png")
        try Data(encoder.encode(image)).write(to: path)
        #expect(try PNGDecoder.decode(path: path.path) == image)
    }
}
