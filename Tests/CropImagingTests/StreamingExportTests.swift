import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Crops compressed while they are decoded (PNGRowStream): the output must be
/// exactly the crop however the rows are banded and threaded, and a decode or
/// write that fails part-way must leave no file and no thread behind.
@Suite(.announcesSkips) struct StreamingExportTests {
    /// An RGB image of noise over gradients: every band compresses differently.
    static func source(width: Int, height: Int) -> RasterImage {
        var samples = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt32 = 99
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1_103_515_245 &+ 12345
                let noise = Int(state >> 28)
                let i = (y * width + x) * 3
                samples[i] = UInt8(truncatingIfNeeded: x + noise)
                samples[i + 1] = UInt8(truncatingIfNeeded: y * 2 + noise)
                samples[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) + noise)
            }
        }
        return RasterImage(
            width: width, height: height, colorType: .rgb, bitDepth: 8, samples: samples)
    }

    /// The rect of `image`, cut by hand.
    static func cut(_ image: RasterImage, x: Int, y: Int, width: Int, height: Int) -> [UInt8] {
        let pixel = image.samples.count / (image.width * image.height)
        var out: [UInt8] = []
        for row in y..<y + height {
            let start = (row * image.width + x) * pixel
            out += image.samples[start..<start + width * pixel]
        }
        return out
    }

    /// An encoder whose bands are `rows` rows of a `rowBytes`-byte row.
    static func encoder(rows: Int, rowBytes: Int, threads: Int) -> PNGEncoder {
        PNGEncoder(compressor: .libdeflate, level: 6, threads: threads)
            .withBands(ofRows: rows, rowBytes: rowBytes)
    }

    /// Files left in `folder` (a failed export must leave none).
    static func leftovers(_ folder: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    }

    /// Blank bands (every filtered byte zero) go out as one compressed piece
    /// of zeros repeated, with their Adler-32 worked out: the stream decodes
    /// to the image, zlib's checksum included, whether the blank band is
    /// first, between others or last, on one thread or two.
    @Test(
        .enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"),
        arguments: [1, 2], [CompressionLevel.automatic, .fixed(1), .fixed(9)])
    func blankBandsStreamExactly(threads: Int, level: CompressionLevel) throws {
        let (width, height) = (16384, 40)  // 64 KiB a row: whole pieces and a partial one
        var samples = [UInt8](repeating: 0, count: width * 4 * height)
        for x in 0..<width * 4 { samples[20 * width * 4 + x] = UInt8(truncatingIfNeeded: x * 7) }
        let image = RasterImage(
            width: width, height: height, colorType: .rgba, bitDepth: 8, samples: samples)
        var encoder = PNGEncoder(compressor: .libdeflate, level: level, threads: threads)
        encoder = encoder.withBands(ofRows: 6, rowBytes: width * 4)
        let bytes = try encoder.encode(image)
        #expect(try ImageSource(ImageInput(bytes: bytes)).decode().image.samples == samples)
        // The decode of the last row reads the stream to its end and checks
        // the Adler-32.
        let checked = try ImageSource(ImageInput(bytes: bytes)).decode(
            PixelRect(x: 0, y: height - 1, width: 1, height: 1))
        #expect(checked.checksum == .verified)
    }

    /// A turned crop streams too: its turned rows are made a band at a time
    /// into a buffer the stream gives back, each orientation exactly the
    /// crop turned, however banded and threaded (one-row bands on one
    /// thread keep the window at three rows, so the maker waits on the
    /// compressor throughout).
    @Test(
        .enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"),
        arguments: EXIFOrientation.allCases, [(1, 1), (7, 2)])
    func turnedCropStreamsExactly(orientation: EXIFOrientation, bands: (rows: Int, threads: Int))
        throws
    {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = Self.source(width: 130, height: 90)
        let input = folder.appendingPathComponent("in.png").path
        try AtomicFile.write(
            PNGEncoder(compressor: .zlib).encode(image), to: input, replacing: false)
        let output = folder.appendingPathComponent("out.png").path
        let stored = PixelRect<StoredPixels>(x: 11, y: 5, width: 100, height: 80)
        _ = try cropFile(
            input: input, stored: stored, orientation: orientation, output: output,
            encoder: Self.encoder(rows: bands.rows, rowBytes: 100 * 3, threads: bands.threads))
        let expected = RasterImage(
            width: 100, height: 80, colorType: .rgb, bitDepth: 8,
            samples: Self.cut(image, x: 11, y: 5, width: 100, height: 80)
        ).oriented(orientation)
        #expect(try PNGDecoder.decode(path: output).samples == expected.samples)
    }

    @Test(
        .enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"),
        arguments: [(1, 1), (3, 2), (40, 3), (1000, 2)])
    func pngCropStreamsExactly(bandRows: Int, threads: Int) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = Self.source(width: 300, height: 220)
        let input = folder.appendingPathComponent("in.png").path
        try AtomicFile.write(
            PNGEncoder(compressor: .zlib).encode(image), to: input, replacing: false)
        let output = folder.appendingPathComponent("out.png").path
        let encoder = Self.encoder(rows: bandRows, rowBytes: 250 * 3, threads: threads)
        let report = try cropFile(
            input: input, stored: PixelRect(x: 17, y: 9, width: 250, height: 200), output: output,
            encoder: encoder)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(report.bytes == bytes.count)
        #expect(TestData.idatCount(bytes) == (200 + bandRows - 1) / bandRows)
        let cropped = try PNGDecoder.decode(path: output)
        #expect(cropped.width == 250 && cropped.height == 200)
        #expect(cropped.samples == Self.cut(image, x: 17, y: 9, width: 250, height: 200))
    }

    @Test(
        .enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"),
        .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
        arguments: [(1, 2), (8, 3), (500, 1)])
    func jpegCropStreamsExactly(bandRows: Int, threads: Int) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = TestData.path("jpeg/generated/q90_422.jpg")
        let full = try JPEGDecoder.decode(path: input).image
        let output = folder.appendingPathComponent("out.png").path
        let encoder = Self.encoder(rows: bandRows, rowBytes: 201 * 3, threads: threads)
        _ = try cropFile(
            input: input, stored: PixelRect(x: 13, y: 7, width: 201, height: 131),
            orientation: .up, output: output, encoder: encoder)
        let cropped = try PNGDecoder.decode(path: output)
        #expect(cropped.samples == Self.cut(full, x: 13, y: 7, width: 201, height: 131))
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(TestData.idatCount(bytes) == (131 + bandRows - 1) / bandRows)
    }

    /// Deflate data broken below the crop's first rows (with the chunk's CRC
    /// made right, so only libpng finds it): bands are already being
    /// compressed and written when the decode fails.
    @Test(.enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"))
    func pngDecodeFailingMidwayLeavesNothing() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var bytes = try PNGEncoder(compressor: .zlib, level: 0).encode(
            Self.source(width: 300, height: 220))
        // Level 0: stored blocks, so the filtered rows lie in the file as
        // they are; give row 150 an invalid filter type (9).
        let idat = 8 + 25
        let length =
            Int(bytes[idat]) << 24 | Int(bytes[idat + 1]) << 16 | Int(bytes[idat + 2]) << 8
            | Int(bytes[idat + 3])
        #expect(bytes[idat + 4..<idat + 8].elementsEqual("IDAT".utf8))
        #expect(length > 220 * 901)  // one IDAT
        var offset = idat + 8 + 2  // past the zlib header
        var filtered = 0  // filtered bytes before `offset`'s block
        let target = 150 * 901
        while true {
            #expect(bytes[offset] & 0b110 == 0, "a stored block")
            let size = Int(bytes[offset + 1]) | Int(bytes[offset + 2]) << 8
            if target < filtered + size {
                bytes[offset + 5 + target - filtered] = 9
                break
            }
            filtered += size
            offset += 5 + size
        }
        let crc = TestData.crc32(Array(bytes[idat + 4..<idat + 8 + length]))
        bytes[idat + 8 + length] = UInt8(crc >> 24)
        bytes[idat + 9 + length] = UInt8(crc >> 16 & 0xFF)
        bytes[idat + 10 + length] = UInt8(crc >> 8 & 0xFF)
        bytes[idat + 11 + length] = UInt8(crc & 0xFF)
        let input = folder.appendingPathComponent("broken.png").path
        try Data(bytes).write(to: URL(fileURLWithPath: input))
        let output = folder.appendingPathComponent("out.png").path
        #expect {
            _ = try cropFile(
                input: input, stored: PixelRect(x: 0, y: 0, width: 300, height: 220),
                output: output, encoder: Self.encoder(rows: 2, rowBytes: 900, threads: 2))
        } throws: { ($0 as? ImagingError)?.code == .corrupt }
        #expect(Self.leftovers(folder) == ["broken.png"])
    }

    @Test(
        .enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"),
        .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func jpegDecodeFailingMidwayLeavesNothing() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = try Data(
            contentsOf: URL(fileURLWithPath: TestData.path("jpeg/generated/q90_422.jpg")))
        let input = folder.appendingPathComponent("cut.jpg").path
        try whole.prefix(whole.count * 2 / 3).write(to: URL(fileURLWithPath: input))
        let output = folder.appendingPathComponent("out.png").path
        #expect {
            _ = try cropFile(
                input: input, stored: PixelRect(x: 0, y: 0, width: 227, height: 149),
                orientation: .up, output: output,
                encoder: Self.encoder(rows: 2, rowBytes: 227 * 3, threads: 2))
        } throws: { ($0 as? ImagingError)?.code == .corrupt }
        #expect(Self.leftovers(folder) == ["cut.jpg"])
    }

    /// A sink that fails on its third write: the sink's own error comes back.
    final class FailingSink: ByteSink {
        var writes = 0

        func write(_ chunk: any ByteChunk) throws(ImagingError) {
            writes += 1
            if writes == 3 { throw ImagingError.cannotWrite(path: "test", reason: "disk full") }
        }
    }

    @Test(
        .enabled(if: Compressor.isLibdeflateAvailable, "needs libdeflate (Debian: libdeflate0)"),
        arguments: [1, 2, 4])
    func writeFailureStopsTheStream(threads: Int) throws {
        var image = Self.source(width: 300, height: 220)
        let sink = FailingSink()
        #expect {
            _ = try Self.encoder(rows: 5, rowBytes: 900, threads: threads).write(
                taking: &image, to: sink)
        } throws: {
            ($0 as? ImagingError) == ImagingError.cannotWrite(path: "test", reason: "disk full")
        }
        #expect(sink.writes == 3)
    }
}
