import CImagingShims
import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Carried chunks that break the PNG specification are dropped, with a
/// warning each, never copied into a crop byte for byte (Pillow could open
/// no such crop).
@Suite(.announcesSkips) struct ChunkValidationTests {
    /// One chunk: length, type, data, CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        let body = typeBytes + data
        let crc = body.withUnsafeBufferPointer { ck_crc32(0, $0.baseAddress, $0.count) }
        func be(_ v: UInt32) -> [UInt8] {
            [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        return be(UInt32(data.count)) + body + be(crc)
    }

    /// `png` with `chunks` put after its IHDR.
    static func inserting(_ chunks: [[UInt8]], into png: [UInt8]) -> [UInt8] {
        let afterHeader = 8 + 25
        return Array(png[..<afterHeader]) + chunks.flatMap { $0 } + Array(png[afterHeader...])
    }

    @Test func malformedChunksAreDroppedWithAWarning() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = Fixture.coordinates(width: 40, height: 30).cropped(
            to: PixelRect(x: 0, y: 0, width: 40, height: 30))
        var rgb8 = [UInt8]()
        for i in stride(from: 0, to: image.samples.count, by: 2) {
            rgb8.append(image.samples[i + 1])
        }
        let source = RasterImage(width: 40, height: 30, colorType: .rgb, bitDepth: 8, samples: rgb8)
        let png = try PNGEncoder(compressor: .zlib).encode(source)
        let bad = Self.inserting(
            [
                Self.chunk("gAMA", [1]), Self.chunk("cHRM", [1, 2, 3]), Self.chunk("sRGB", [0]),
                Self.chunk("tRNS", [9]),
                Self.chunk("iCCP", Array("name".utf8) + [0, 0, 1, 2, 3, 4]),
                Self.chunk("pHYs", [0, 0, 11, 19, 0, 0, 11, 19, 1]),
            ], into: png)
        let input = folder.appendingPathComponent("bad.png").path
        try Data(bad).write(to: URL(fileURLWithPath: input))
        let output = folder.appendingPathComponent("crop.png").path
        let report = try cropFile(
            input: input, stored: PixelRect(x: 1, y: 2, width: 10, height: 5), output: output)
        #expect(report.details(as: PNGWriteReport.self)?.keptChunks == ["sRGB", "pHYs"])
        let dropped = Set(report.details(as: PNGWriteReport.self)?.droppedChunks ?? [])
        #expect(dropped.isSuperset(of: ["gAMA", "cHRM", "tRNS", "iCCP"]))
        for (type, why) in [
            ("gAMA", "has 1 bytes, not 4"), ("cHRM", "has 3 bytes, not 32"),
            ("tRNS", "has 1 bytes, not 6"), ("iCCP", "holds a profile that does not inflate"),
        ] {
            #expect(
                report.warnings.contains("PNG chunk \(type) \(why); the chunk was dropped"),
                "\(report.warnings)")
        }
        #expect(try PNGFileInfo.read(path: output).carriedChunks.map(\.type) == ["sRGB", "pHYs"])
        #expect(
            try PNGDecoder.decode(path: output)
                == source.cropped(to: PixelRect(x: 1, y: 2, width: 10, height: 5)).with(
                    chunks: [
                        PNGChunk(type: "sRGB", data: [0]),
                        PNGChunk(type: "pHYs", data: [0, 0, 11, 19, 0, 0, 11, 19, 1]),
                    ]))
    }

    /// A chunk out of its place around PLTE (a tRNS before it, a gAMA after
    /// it) is one libpng ignores: it is dropped with a warning, not carried
    /// into a crop where its meaning would change.
    @Test func chunksOutOfPlaceAroundThePaletteAreDropped() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let colors: [UInt8] = [0, 0, 0, 255, 0, 0, 0, 255, 0]
        let source = RasterImage(
            width: 4, height: 2, colorType: .palette, bitDepth: 8,
            samples: [0, 1, 2, 0, 1, 2, 0, 1], chunks: [PNGChunk(type: "PLTE", data: colors)])
        let png = try PNGEncoder(compressor: .zlib).encode(source)
        // IHDR, tRNS, PLTE, gAMA, then the image data.
        let plte: [UInt8] = ChunkValidationTests.chunk("PLTE", colors)
        let start = 8 + 25
        let rest = Array(png[start...])
        let afterPalette: [UInt8] = rest.starts(with: plte) ? Array(rest[plte.count...]) : rest
        var shuffled = Array(png[..<start])
        shuffled += ChunkValidationTests.chunk("tRNS", [0])
        shuffled += plte
        shuffled += ChunkValidationTests.chunk("gAMA", [0, 0, 177, 143])
        shuffled += afterPalette
        let input = folder.appendingPathComponent("order.png").path
        try Data(shuffled).write(to: URL(fileURLWithPath: input))
        let report = try cropFile(
            input: input, stored: PixelRect(x: 0, y: 0, width: 4, height: 2),
            output: folder.appendingPathComponent("crop.png").path)
        #expect(report.details(as: PNGWriteReport.self)?.keptChunks == ["PLTE"])
        #expect(report.warnings.contains("PNG chunk tRNS comes before PLTE; the chunk was dropped"))
        #expect(report.warnings.contains("PNG chunk gAMA comes after PLTE; the chunk was dropped"))
    }
}

extension RasterImage {
    /// The same pixels with `chunks`.
    func with(chunks: [PNGChunk]) -> RasterImage {
        var copy = self
        copy.chunks = chunks
        return copy
    }

}
