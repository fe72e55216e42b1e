import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// A plan says how its crop is made before anything is decoded, as its
/// output format's writer chose it, and `crop --json` reports it: a copy of
/// the coded data (a JPEG's coefficients, a HEIF's tiles) or pixels through
/// stages.
@Suite(.announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct StrategyTests {
    static func strategy(_ file: String, _ options: [String], output: String) throws -> String {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = cropkit(
            [
                "crop", TestData.path(file), "--json", "-o",
                folder.appendingPathComponent(output).path,
            ]
                + options)
        try #require(run.status == 0, "\(run.err)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        // The kind and grid as values, the phrase beside them.
        let strategy = try #require(report["strategy"] as? [String: Any])
        let summary = try #require(strategy["summary"] as? String)
        let kind = try #require(strategy["kind"] as? String)
        #expect(summary.hasPrefix(kind))
        if let grid = strategy["grid"] as? [String: Int] {
            #expect(summary == "\(kind) \(grid["width"] ?? 0)x\(grid["height"] ?? 0)")
        } else {
            #expect(
                summary == "pixels: "
                    + (strategy["stages"] as? [String] ?? []).joined(separator: ", "))
        }
        return summary
    }

    @Test func aJPEGCropOnItsGridCopiesCoefficients() throws {
        // canon_t3i.jpg is 4:2:0: its iMCU is 16x16.
        #expect(
            try Self.strategy("camera/canon_t3i.jpg", ["--pixels", "16,16,32,32"], output: "a.jpg")
                == "coefficientCopy 16x16")
        // Off the grid, or at a quality, the pixels are encoded again.
        #expect(
            try Self.strategy("camera/canon_t3i.jpg", ["--pixels", "3,5,41,37"], output: "b.jpg")
                == "pixels: decodeRegion, flatten, encode")
        #expect(
            try Self.strategy(
                "camera/canon_t3i.jpg", ["--pixels", "16,16,32,32", "--quality", "80"],
                output: "c.jpg") == "pixels: decodeRegion, flatten, encode")
    }

    /// A HEIC crop copies the tiles inside its rect; one that holds no
    /// whole tile is the rect encoded as one image, and says so (it said
    /// tileCopy before, and copied nothing).
    @Test func aHEICCropCopiesTiles() throws {
        #expect(
            try Self.strategy(
                "heif/pillow-heif/arrow.heic", ["--pixels", "100,200,1200,1100"], output: "a.heic")
                == "tileCopy 512x512")
        #expect(
            try Self.strategy(
                "heif/pillow-heif/arrow.heic", ["--pixels", "100,200,300,200"], output: "a.heic")
                == "pixels: decodeRegion, encode")
    }

    @Test func pixelsNameTheirStages() throws {
        // Turned 3 degrees from a photo seen turned a quarter (orientation 6).
        #expect(
            try Self.strategy(
                "camera/samsung_galaxys_orient6_gps.jpg", ["--angle", "3", "--inside"],
                output: "t.png") == "pixels: decodeRegion, orient, resample, encode")
        // A turned photo (EXIF orientation 6) to PNG: decoded, turned, encoded.
        #expect(
            try Self.strategy(
                "camera/samsung_galaxys_orient6_gps.jpg", ["--pixels", "3,5,41,37"],
                output: "a.png") == "pixels: decodeRegion, orient, encode")
        #expect(
            try Self.strategy(
                "pngsuite/generated/coords_rgba8_251x97.png",
                ["--pixels", "0,0,40,40", "--width", "20", "--circle"], output: "b.png")
                == "pixels: decodeRegion, resample, mask, encode")
        #expect(
            try Self.strategy(
                "pngsuite/generated/coords_rgba8_251x97.png", ["--angle", "3", "--inside"],
                output: "c.jpg") == "pixels: decodeRegion, resample, flatten, encode")
    }
}
