import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// PngSuite and libpng's contrib sets, read in place from the shared corpora.
@Suite(.announcesSkips) struct PngSuiteTests {
    static let validFiles: [String] = TestData.files(under: "pngsuite").filter {
        !(($0 as NSString).lastPathComponent.hasPrefix("x"))
    }
    static let invalidFiles: [String] = TestData.files(under: "pngsuite").filter {
        ($0 as NSString).lastPathComponent.hasPrefix("x")
    }

    /// Every valid file decodes to samples whose libpng-style RGBA8 rendering
    /// hashes to what libpng 1.6.39 gives (EXPECTED-*.tsv).
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func fullDecodeMatchesLibpng() throws {
        var checked = 0
        for file in Self.validFiles {
            guard let expected = TestData.expectations[file], expected.status == "ok",
                let hash = expected.hash
            else {
                continue
            }
            let image = try PNGDecoder.decode(path: TestData.path(file))
            #expect(image.width == expected.width && image.height == expected.height, "\(file)")
            #expect(RGBA8Oracle.fnv1a64(RGBA8Oracle.rgba8(image)) == hash, "\(file)")
            checked += 1
        }
        #expect(checked >= 300)
    }

    /// Every valid file, cropped in full and to an inner rectangle, with both
    /// compressors: the written PNG decodes to exactly the source's samples,
    /// in the source's format, with its palette, tRNS and colour chunks.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func cropsRoundTripExactly() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var checked = 0
        let compressors: [Compressor] =
            Compressor.isLibdeflateAvailable ? [.libdeflate, .zlib] : [.zlib]
        for file in Self.validFiles {
            let path = TestData.path(file)
            let info = try PNGFileInfo.read(path: path)
            let full = try PNGDecoder.decode(path: path)
            let inner = PixelRect<StoredPixels>(
                x: info.width / 4, y: info.height / 4, width: max(1, info.width / 2),
                height: max(1, info.height / 2))
            let crop = try PNGDecoder.decode(path: path, rect: inner)
            // The crop-aware decode equals the same rect of a full decode.
            #expect(crop == full.cropped(to: inner), "\(file) crop-aware decode")
            for (index, compressor) in compressors.enumerated() {
                for source in [full, crop] {
                    let output = folder.appendingPathComponent("\(checked)-\(index).png")
                    try Data(PNGEncoder(compressor: compressor).encode(source)).write(to: output)
                    let back = try PNGDecoder.decode(path: output.path)
                    #expect(back.samples == source.samples, "\(file) via \(compressor)")
                    #expect(
                        back.colorType == info.colorType && back.bitDepth == info.bitDepth,
                        "\(file)")
                    #expect(back.chunks == info.carriedChunks, "\(file): chunks")
                    #expect(try PNGFileInfo.read(path: output.path).interlaced == false)
                }
            }
            checked += 1
        }
        #expect(checked >= 300)
    }

    /// PngSuite's x* files are broken on purpose: each errors cleanly.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func brokenFilesAreRefused() throws {
        #expect(Self.invalidFiles.count >= 14)
        for file in Self.invalidFiles {
            #expect(throws: ImagingError.self, "\(file)") {
                try PNGDecoder.decode(path: TestData.path(file))
            }
        }
    }
}
