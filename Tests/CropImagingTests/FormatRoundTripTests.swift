import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Every colour type and bit depth PNG allows, through crop, encode and
/// decode, with both compressors: the samples and the format survive.
@Suite(.announcesSkips) struct FormatRoundTripTests {
    static let formats: [(ColorType, Int)] = ColorType.allCases.flatMap { type in
        type.allowedBitDepths.map { (type, $0) }
    }

    static func randomImage(
        _ type: ColorType, _ depth: Int, width: Int, height: Int, seed: UInt64
    ) -> RasterImage {
        var state = seed
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        let bytesPerSample = depth == 16 ? 2 : 1
        var samples = [UInt8](repeating: 0, count: width * height * type.channels * bytesPerSample)
        let paletteSize = type == .palette ? min(1 << depth, 7) : 0
        for i in 0..<samples.count {
            var value = next()
            if depth < 8 { value &= UInt8((1 << depth) - 1) }
            if type == .palette { value = value % UInt8(paletteSize) }
            samples[i] = value
        }
        var chunks: [PNGChunk] = [PNGChunk(type: "gAMA", data: [0, 0, 0xB1, 0x8F])]
        if type == .palette {
            chunks.append(PNGChunk(type: "PLTE", data: (0..<paletteSize * 3).map { _ in next() }))
            chunks.append(PNGChunk(type: "tRNS", data: Array([0, 128, 255].prefix(paletteSize))))
        } else if type == .gray {
            chunks.append(PNGChunk(type: "tRNS", data: [0, 1]))
        }
        return RasterImage(
            width: width, height: height, colorType: type, bitDepth: depth, samples: samples,
            chunks: chunks)
    }

    @Test(arguments: formats)
    func everyFormatRoundTrips(type: ColorType, depth: Int) throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 37 wide: sub-byte rows end mid-byte, and a crop at x = 3 starts mid-byte.
        let image = Self.randomImage(
            type, depth, width: 37, height: 23, seed: UInt64(type.rawValue) * 100 + UInt64(depth))
        let compressors: [Compressor] =
            Compressor.isLibdeflateAvailable ? [.libdeflate, .zlib] : [.zlib]
        if !Compressor.isLibdeflateAvailable {
            print("everyFormatRoundTrips: libdeflate not installed; zlib only")
        }
        for compressor in compressors {
            let source = folder.appendingPathComponent("\(compressor).png")
            try Data(PNGEncoder(compressor: compressor).encode(image)).write(to: source)
            let info = try PNGFileInfo.read(path: source.path)
            #expect(info.colorType == type && info.bitDepth == depth)
            #expect(info.carriedChunks == image.chunks)
            #expect(try PNGDecoder.decode(path: source.path) == image)
            let output = folder.appendingPathComponent("crop-\(compressor).png")
            _ = try cropFile(
                input: source.path, stored: PixelRect(x: 3, y: 5, width: 29, height: 11),
                output: output.path,
                encoder: PNGEncoder(compressor: compressor))
            #expect(
                try PNGDecoder.decode(path: output.path)
                    == image.cropped(to: PixelRect(x: 3, y: 5, width: 29, height: 11)))
        }
    }

    @Test func bothCompressorsAreReallyUsed() throws {
        let image = Fixture.coordinates(width: 64, height: 64)
        let zlib = try PNGEncoder(compressor: .zlib).encode(image)
        if Compressor.isLibdeflateAvailable {
            let libdeflate = try PNGEncoder(compressor: .libdeflate).encode(image)
            // The same pixels, different DEFLATE streams.
            #expect(zlib != libdeflate)
            #expect(Compressor.automatic.resolved == .libdeflate)
        } else {
            print(
                "bothCompressorsAreReallyUsed: libdeflate not installed; checking the zlib fallback only"
            )
            #expect(Compressor.automatic.resolved == .zlib)
            #expect(throws: ImagingError.self) {
                try PNGEncoder(compressor: .libdeflate).encode(image)
            }
        }
    }
}
