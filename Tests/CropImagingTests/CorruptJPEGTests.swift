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

    static func rgba(_ image: RasterImage) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(image.width * image.height * 4)
        for i in 0..<image.width * image.height {
            if image.colorType == .gray {
                let g = image.samples[i]
                out += [g, g, g, 255]
            } else {
                out += [
                    image.samples[3 * i], image.samples[3 * i + 1], image.samples[3 * i + 2], 255,
                ]
            }
        }
        return out
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
