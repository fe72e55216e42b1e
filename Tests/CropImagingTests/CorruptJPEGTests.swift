import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Every file in testdata/corrupt/jpeg-* and the generated JPEGs: no crash,
/// and either a clean error or a decode; a lenient decode of a file libjpeg
/// decodes matches libjpeg's pixels (EXPECTED-*.tsv).
@Suite(.announcesSkips) struct CorruptJPEGTests {
    static let files: [String] =
        [
            "corrupt/jpeg-jpeg-decoder-crashtest", "corrupt/jpeg-fuzz-seeds-jpeg-decoder-afl",
            "corrupt/jpeg-pillow",
        ]
        .flatMap { TestData.files(under: $0, extensions: nil) }
        + TestData.files(under: "corrupt/generated", extensions: ["jpg"])

    /// The 8-bit gray or RGB `image` as RGBA (one array, filled in place:
    /// an array a pixel made this test 12 s in a debug build).
    static func rgba(_ image: RasterImage) -> [UInt8] {
        let count = image.width * image.height
        let gray = image.colorType == .gray
        return [UInt8](unsafeUninitializedCapacity: count * 4) { out, written in
            image.samples.withUnsafeBufferPointer { samples in
                for i in 0..<count {
                    let from = gray ? i : 3 * i
                    out[4 * i] = samples[from]
                    out[4 * i + 1] = samples[gray ? i : from + 1]
                    out[4 * i + 2] = samples[gray ? i : from + 2]
                    out[4 * i + 3] = 255
                }
            }
            written = count * 4
        }
    }

    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func everyCorruptJPEGEndsInADecodeOrACleanError() throws {
        #expect(Self.files.count > 200)
        var strictDecoded = 0
        var refused = 0
        var mismatched: [String] = []
        for file in Self.files {
            let path = TestData.path(file)
            do {
                _ = try JPEGDecoder.decode(path: path)
                strictDecoded += 1
            } catch {
                refused += 1
                #expect(!error.description.isEmpty, "\(file)")
            }
            // Leniently, a file libjpeg decodes must give libjpeg's pixels
            // (CMYK files use a conversion of their own: skipped here).
            if let expected = TestData.expectations[file], expected.status == "ok",
                let hash = expected.hash,
                let decoded = try? JPEGDecoder.decode(path: path, lenient: true).image,
                (try? JPEGFileInfo.read(path: path))?.components != 4,
                RGBA8Oracle.fnv1a64(Self.rgba(decoded)) != hash
            {
                mismatched.append(file)
            }
        }
        print("corrupt JPEG gauntlet: \(strictDecoded) decoded strictly, \(refused) refused")
        #expect(mismatched.isEmpty, "decoded differently from libjpeg: \(mismatched)")
        #expect(refused > 0 && strictDecoded > 0)
    }

    @Test(
        .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
        arguments: [
            ("jpeg_sof_65535x65535.jpg", ImagingError.Code.limit),
            ("jpeg_sof_65500x65500.jpg", .limit),
            ("jpeg_sof_30000x30000.jpg", .limit), ("jpeg_sof_227x0.jpg", .unsupported),
            ("jpeg_sof_0x149.jpg", .corrupt),
            ("jpeg_soi_eoi_only.jpg", .corrupt), ("jpeg_testorig_trunc0.jpg", .corrupt),
        ])
    func hostileHeadersAreRefusedBeforeDecoding(name: String, code: ImagingError.Code) throws {
        do {
            _ = try JPEGFileInfo.read(path: TestData.path("corrupt/generated/" + name))
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.code == code, "\(name): \(error.description)")
        }
    }

    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func truncatedProgressiveNeedsLenient() throws {
        let path = TestData.path("corrupt/generated/jpeg_progressive_trunc4134.jpg")
        #expect(
            throws: ImagingError.recoverableCorruption(
                format: .jpeg, detail: "Premature end of JPEG file (libjpeg)")
        ) { try JPEGDecoder.decode(path: path) }
        let lenient = try JPEGDecoder.decode(path: path, lenient: true)
        #expect(lenient.image.width == 227)
        #expect(lenient.warnings.contains { $0.contains("accepted as lenient") })
    }
}
