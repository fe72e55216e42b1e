import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Every file in testdata/corrupt/png-* (and the generated and fuzz-found
/// ones that are PNGs): no crash, and either a clean error or a decode that
/// matches libpng's.
@Suite(.announcesSkips) struct CorruptPNGTests {
    static let files: [String] = {
        let folders = [
            "corrupt/png-pngsuite-x", "corrupt/png-libpng-crashers", "corrupt/png-libpng-badpal",
            "corrupt/png-image-png-bugfixes", "corrupt/png-fuzz-seeds-image-png",
            "corrupt/png-pillow",
            "corrupt/found-by-fuzzing",
        ]
        return folders.flatMap { TestData.files(under: $0, extensions: nil) }
            + TestData.files(under: "corrupt/generated").filter {
                ($0 as NSString).lastPathComponent.hasPrefix("png")
            }
    }()

    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func everyCorruptFileEndsInADecodeOrACleanError() throws {
        #expect(Self.files.count > 1200)
        var decoded = 0
        var refused = 0
        var mismatched: [String] = []
        for file in Self.files {
            do {
                let image = try PNGDecoder.decode(path: TestData.path(file))
                decoded += 1
                if let expected = TestData.expectations[file], expected.status == "ok",
                    let hash = expected.hash,
                    RGBA8Oracle.fnv1a64(RGBA8Oracle.rgba8(image)) != hash
                {
                    mismatched.append(file)
                }
            } catch {
                refused += 1
                #expect(!error.description.isEmpty, "\(file)")
            }
        }
        print("corrupt PNG gauntlet: \(decoded) decoded, \(refused) refused")
        #expect(mismatched.isEmpty, "decoded differently from libpng: \(mismatched)")
        #expect(refused > 0 && decoded > 0)
    }

    /// The 57-byte files whose text chunk declares about 1 GB: refused by the
    /// chunk scan before libpng sees them, with a message naming the chunk.
    @Test(
        .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
        arguments: [
            "huge_tEXt_chunk.png", "huge_iTXt_chunk.png", "huge_zTXt_chunk.png",
            "huge_sPLT_chunk.png",
            "huge_pCAL_chunk.png",
        ])
    func hugeChunkIsRefusedBeforeLibpng(name: String) throws {
        let path = TestData.path("corrupt/png-libpng-crashers/" + name)
        #expect(FileManager.default.fileExists(atPath: path), "the corpus lacks \(name)")
        do {
            _ = try PNGFileInfo.read(path: path)
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.code == .corrupt)
            let type = String(name.dropFirst(5).prefix(4))
            #expect(error.description.contains("PNG chunk \(type)"), "\(error.description)")
        }
    }

    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func ztxtDeclaringNearlyAGigabyteIsRefused() throws {
        let path = TestData.path(
            "corrupt/found-by-fuzzing/png_ztxt_declared_973MB_oom_libpng1639.png")
        #expect(throws: ImagingError.self) { try PNGDecoder.decode(path: path) }
    }
}
