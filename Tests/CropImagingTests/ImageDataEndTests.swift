import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// The end of a PNG's image data: a crop that reaches the last row checks
/// the zlib stream's Adler-32 and never inflates what follows the image;
/// one that ends above the last row says it did not reach the checksum.
/// Both inflaters, each against the same files.
@Suite(.announcesSkips) struct ImageDataEndTests {
    /// The inflaters this machine has.
    static let inflaters: [Inflater] = Inflater.isISALAvailable ? [.zlib, .isal] : [.zlib]

    /// A PNG's chunks, in order.
    static func chunks(_ png: [UInt8]) -> [(type: String, data: [UInt8])] {
        var chunks: [(String, [UInt8])] = []
        var at = 8
        while at + 12 <= png.count {
            let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[at + 4..<at + 8], as: UTF8.self)
            chunks.append((type, Array(png[at + 8..<at + 8 + length])))
            at += 12 + length
        }
        return chunks
    }

    /// The PNG of `chunks`, each with its CRC computed.
    static func png(_ chunks: [(type: String, data: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        for (type, data) in chunks {
            let length = UInt32(data.count)
            out += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) }
            let body = Array(type.utf8) + data
            out += body
            let crc = TestData.crc32(body)
            out += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) }
        }
        return out
    }

    /// A 40×`height` RGB image's PNG whose zlib stream is `stream(zlib)`,
    /// cut into IDAT chunks of `piece` bytes, and which says it is
    /// `declaredHeight` rows tall.
    static func file(
        height: Int = 30, declaredHeight: Int = 30, piece: Int = 1 << 20,
        stream: ([UInt8]) -> [UInt8] = { $0 }
    ) throws -> (path: String, image: RasterImage, folder: URL) {
        let image = FormatRoundTripTests.randomImage(.rgb, 8, width: 40, height: height, seed: 7)
        let encoded = try PNGEncoder(compressor: .zlib).encode(image)
        let parts = chunks(encoded)
        let zlib = stream(parts.filter { $0.type == "IDAT" }.flatMap(\.data))
        var header = parts[0].data
        header.replaceSubrange(
            4..<8, with: [24, 16, 8, 0].map { UInt8(declaredHeight >> $0 & 0xFF) })
        var rebuilt: [(type: String, data: [UInt8])] = [("IHDR", header)]
        for start in stride(from: 0, to: zlib.count, by: piece) {
            rebuilt.append(("IDAT", Array(zlib[start..<min(start + piece, zlib.count)])))
        }
        rebuilt.append(("IEND", []))
        let folder = try TestData.temporaryFolder()
        let path = folder.appendingPathComponent("end.png").path
        try Data(png(rebuilt)).write(to: URL(fileURLWithPath: path))
        return (path, image, folder)
    }

    static func decode(_ path: String, rows: Range<Int>, width: Int = 40, inflater: Inflater)
        throws(ImagingError) -> DecodedImage
    {
        var source = try ImageSource.open(path: path)
        source.inflater = inflater
        return try source.decode(
            PixelRect(x: 0, y: rows.lowerBound, width: width, height: rows.count))
    }

    /// A stream that ends where the image does: the last row's crop checks
    /// the Adler-32, even when it lies across IDAT chunks of 3 bytes; a crop
    /// above it does not reach it.
    @Test(arguments: inflaters, [1 << 20, 3])
    func aCropOfTheLastRowVerifiesTheChecksum(inflater: Inflater, piece: Int) throws {
        let (path, image, folder) = try Self.file(piece: piece)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bottom = try Self.decode(path, rows: 29..<30, inflater: inflater)
        #expect(bottom.checksum == .verified)
        #expect(bottom.warnings.isEmpty)
        #expect(
            bottom.image.samples
                == image.cropped(to: PixelRect(x: 0, y: 29, width: 40, height: 1)).samples)
        let top = try Self.decode(path, rows: 0..<29, inflater: inflater)
        #expect(top.checksum == .notReached)
    }

    /// A wrong Adler-32 (chunk CRCs right) is corrupt data for a crop that
    /// reaches it, as zlib and Pillow say; a missing one is a truncation.
    @Test(arguments: inflaters)
    func aWrongOrMissingChecksumIsRefused(inflater: Inflater) throws {
        let wrong = try Self.file { stream in
            var stream = stream
            stream[stream.count - 1] ^= 1
            return stream
        }
        defer { try? FileManager.default.removeItem(at: wrong.folder) }
        #expect {
            try Self.decode(wrong.path, rows: 0..<30, inflater: inflater)
        } throws: { error in
            guard case ImagingError.corrupt(.png, let detail) = error else { return false }
            return detail.contains("Adler-32") || detail.contains("incorrect data check")
        }
        // Above the last row the checksum is not reached: the crop stands.
        #expect(
            try Self.decode(wrong.path, rows: 0..<10, inflater: inflater).checksum == .notReached)

        let missing = try Self.file { Array($0.dropLast(4)) }
        defer { try? FileManager.default.removeItem(at: missing.folder) }
        #expect(throws: ImagingError.self) {
            try Self.decode(missing.path, rows: 20..<30, inflater: inflater)
        }
    }

    /// A stream holding more rows than the header declares (a 60-row stream
    /// under a 30-row header): the crop of the last row is the image's, the
    /// rest is not inflated, and a warning and the checksum state say so.
    @Test(arguments: inflaters)
    func dataAfterTheLastRowIsNotInflated(inflater: Inflater) throws {
        let (path, image, folder) = try Self.file(height: 3000, declaredHeight: 30)
        defer { try? FileManager.default.removeItem(at: folder) }
        let decoded = try Self.decode(path, rows: 29..<30, inflater: inflater)
        #expect(
            decoded.image.samples
                == image.cropped(to: PixelRect(x: 0, y: 29, width: 40, height: 1)).samples)
        #expect(decoded.checksum == .extraDataNotInflated)
        #expect(decoded.warnings.contains { $0.contains("goes on after the last row") })
    }
}
