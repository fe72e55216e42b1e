import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// HEIC through the command line: info's structure, crops to PNG and HEIC,
/// the lossless rules and their messages.
@Suite(
    .announcesSkips,
    .enabled(
        if: TestData.isPresent && HEIFDecoder.libheifVersion != nil, "needs testdata and libheif"))
struct HEIFCommandTests {
    static let arrow = TestData.path("heif/pillow-heif/arrow.heic")

    /// The JSON object `text` holds.
    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func infoShowsTheHEIFStructure() throws {
        let run = cropkit("info", Self.arrow, "--json")
        #expect(run.status == 0, "\(run.err)")
        let info = try Self.json(run.out)
        #expect(info["format"] as? String == "heif")
        #expect(info["orientation"] as? Int == 6)
        #expect(
            info["grid"] as? [String: Int]
                == ["columns": 8, "rows": 6, "tileWidth": 512, "tileHeight": 512])
        #expect(
            (info["transforms"] as? [[String: Any]])?.map { "\($0["box"]!) \($0["value"]!)" }
                == ["irot 270"])
        #expect(info["exifOrientation"] as? Int == 6)
        #expect(info["profile"] as? String == "Display P3 (on the tiles)")
        let thumbnail = try #require((info["thumbnails"] as? [[String: Any]])?.first)
        #expect(thumbnail["role"] as? String == "thumbnail")
        #expect(thumbnail["size"] as? [String: Int] == ["width": 320, "height": 240])
        let text = cropkit("info", TestData.path("heif/pillow-heif/pug.heic")).out
        #expect(text.contains("urn:com:apple:photo:2020:aux:hdrgainmap 2016x1512"))
    }

    @Test func cropToHEICReportsTilesAndMetadata() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("crop.heic").path
        let run = cropkit("crop", Self.arrow, "-o", out, "--pixels", "100,200,1200,1100", "--json")
        #expect(run.status == 0, "\(run.err)")
        let report = try Self.json(run.out)
        let written = try #require(report["written"] as? [String: Any])
        let heic = try #require(written["heic"] as? [String: Any])
        #expect(heic["method"] as? String == "lossless-edges-reencoded")
        #expect((heic["reencodedTiles"] as? Int ?? 0) > 0)
        #expect(
            (heic["transforms"] as? [[String: Any]])?.map { "\($0["box"]!) \($0["value"]!)" }
                == ["irot 270"])
        let metadata = try #require(written["metadata"] as? [[String: Any]])
        #expect(metadata.contains { ($0["segment"] as? String)?.hasPrefix("thumbnail") == true })
        #expect(cropkit("leaks", out).out.contains("clean"))
        let info = try Self.json(cropkit("info", out, "--json").out)
        #expect((info["oriented"] as? [String: Int]) == ["width": 1200, "height": 1100])

        // On the tile grid: every tile copied, and said so.
        let snapped = folder.appendingPathComponent("snapped.heic").path
        let grown = cropkit(
            "crop", Self.arrow, "-o", snapped, "--pixels", "100,200,640,480", "--snap-to-blocks")
        #expect(grown.status == 0, "\(grown.err)")
        #expect(grown.out.contains("HEIC (lossless:"))
        #expect(grown.err.contains("--snap-to-blocks: wrote pixels"))
    }

    @Test func losslessAndFormatMistakesAreNamed() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("crop.heic").path
        let refused = cropkit(
            "crop", Self.arrow, "-o", out, "--pixels", "100,200,640,480", "--lossless")
        #expect(refused.status == 1)
        #expect(refused.err.contains("512x512 block grid"))
        #expect(!FileManager.default.fileExists(atPath: out))
        // --gain-map (the old --companions) is for any output: a HEIC
        // crop's companions are dropped with their reasons, for now.
        let gainMap = cropkit(
            "crop", Self.arrow, "-o", out, "--pixels", "0,0,64,64", "--gain-map", "crop")
        #expect(gainMap.status == 0, "\(gainMap.err)")
        let fromPNG = cropkit(
            "crop", TestData.path("pngsuite/basn2c08.png"), "-o", out, "--pixels", "0,0,8,8")
        #expect(fromPNG.status == 2)
        #expect(fromPNG.err.contains("HEIC output is made from a HEIC source only"))
    }

    @Test func heicCropsToPNGAndJPEGUpright() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["crop.png", "crop.jpg"] {
            let out = folder.appendingPathComponent(name).path
            let run = cropkit("crop", Self.arrow, "-o", out, "--pixels", "10,20,300,200")
            #expect(run.status == 0, "\(run.err)")
            let info = try Self.json(cropkit("info", out, "--json").out)
            #expect((info["oriented"] as? [String: Int]) == ["width": 300, "height": 200])
            #expect(info["orientation"] as? Int == 1)
        }
    }

    @Test func theMemoryLimitCountsTheTilesBeingDecoded() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("crop.png").path
        let refused = cropkit(
            "crop", Self.arrow, "-o", out, "--pixels", "0,0,300,300", "--max-memory", "1M")
        #expect(refused.status == 2)
        #expect(refused.err.contains("the tiles being decoded"))
        #expect(!FileManager.default.fileExists(atPath: out))
        // 8 MiB for the crop, beside the program's 30 MiB.
        let allowed = cropkit(
            "crop", Self.arrow, "-o", out, "--pixels", "0,0,300,300", "--max-memory", "38M")
        #expect(allowed.status == 0, "\(allowed.err)")
    }
}
