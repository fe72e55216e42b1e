import CropGeometry
import CropImaging
import CropKitTestSupport
import CropRecords
import CropTestKit
import Foundation
import Testing

/// The companion rule from the command line: `map --companion` prints the
/// cut and writes it into the vector, `cases --companions` writes the
/// companion category, and `replay` and `grade` check them.
@Suite struct CompanionCommandTests {
    static let scenario = [
        "map", "--source", "4032x3024", "--viewport", "403.2x302.4", "--selection",
        "100,100,120,90",
    ]

    @Test func mapPrintsTheCompanionsCut() {
        let on = cropkit(Self.scenario + ["--companion", "1008x756"])
        #expect(on.status == 0)
        #expect(
            on.out.contains(
                "companion 300x225 of 1008x756 (scale 0.25 x 0.25): covers 250,250,300,225, an exact copy of 250,250,300,225"
            ), "\(on.out)")
        let off = cropkit(
            [
                "map", "--source", "4032x3024", "--viewport", "4032x3024", "--selection",
                "1001,1000,1200,900", "--companion", "1008x756",
            ])
        #expect(
            off.out.contains("covers 250.25,250,300,225, sampled (bilinear) from 250,250,301,225"),
            "\(off.out)")
    }

    @Test func mapJSONIsAVectorWithTheCut() throws {
        let run = cropkit(
            Self.scenario + ["--companion", "2016x1512", "--orientation", "6", "--json"])
        #expect(run.status == 0)
        let record = try CropRecord(jsonLine: run.out.trimmingCharacters(in: .newlines))
        #expect(record.companion == PixelSize(width: 2016, height: 1512))
        let expected = try #require(record.expectedCompanion)
        #expect(expected.outputWidth >= 1 && expected.outputHeight >= 1)
        #expect(record.mismatches(record.answer()).isEmpty)
        let replay = cropkit(["replay", "-"], input: run.out)
        #expect(replay.status == 0, "\(replay.out) \(replay.err)")
        #expect(replay.out.contains(#""check":"passed""#))
    }

    @Test func companionsThatLieAreUsageErrors() {
        for bad in ["0x10", "10", "10x-1", "axb", "2000000x10"] {
            let run = cropkit(Self.scenario + ["--companion", bad])
            #expect(run.status == 64, "\(bad)")
            #expect(run.err.contains("--companion must be WxH"), "\(bad): \(run.err)")
        }
        let turned = cropkit(Self.scenario + ["--companion", "10x10", "--angle", "3"])
        #expect(turned.status == 64 && turned.err.contains("drop --angle"))
    }

    /// `cases --companions` writes the category; the lines replay clean and
    /// an app that answers the rect but not the companion fails grading.
    @Test func casesWriteCompanionVectorsThatGradeChecks() throws {
        let cases = cropkit("cases", "--count", "120", "--companions", "--seed", "3")
        #expect(cases.status == 0)
        let lines = cases.out.split(separator: "\n").map(String.init)
        let companions = lines.filter { $0.contains(#""category":"companion""#) }
        #expect(companions.count >= 8)
        let replay = cropkit(["replay", "-"], input: cases.out)
        #expect(replay.status == 0, "\(replay.err)")
        // Answer each companion line with the expected rect alone.
        var answers = ""
        for line in companions {
            let json = try JSONValue(parsing: line)
            guard case .object(let members) = json, let expected = json["expected"],
                case .object(let rect) = expected
            else { continue }
            let result = JSONValue.object(
                rect.filter { $0.key != "companion" && $0.key != "stored" })
            answers += JSONValue.object(members + [.init("result", result)]).text + "\n"
        }
        let grade = cropkit(["grade", "-"], input: answers)
        #expect(grade.status == 1)
        #expect(grade.out.contains("companion"), "\(grade.out)")
        let plain = cropkit("cases", "--count", "40", "--seed", "3")
        #expect(!plain.out.contains("companion"))
    }

    /// `info` lists each companion on its grid: its size, its scale
    /// against the photo, and what a crop does with it.
    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func infoListsTheCompanions() {
        let ultra = cropkit("info", TestData.path("hdr/pixel6pro_ultrahdr.jpg"))
        #expect(
            ultra.out.contains(
                "companions   HDR gain map (MPF) 1020x768, scale 0.25 x 0.25: cut with a JPEG crop, resampled with a turned or resized one"
            ), "\(ultra.out)")
        let depth = cropkit("info", TestData.path("camera/android_depthmap_xmp.jpg"))
        #expect(
            depth.out.contains(
                "depth map (GDepth:Data) 768x1024, scale 1 x 1: cut with a JPEG crop, resampled with a turned or resized one"
            ), "\(depth.out)")
        let apple = cropkit("info", TestData.path("camera/iphone14promax_p3_hdrgainmap.jpg"))
        #expect(apple.out.contains("HDR gain map (MPF) 349x434, scale 6.232 x 6.2: cut with"))
        let heic = cropkit("info", TestData.path("heif/libvips/apple-heic-gainmap.heic"))
        #expect(
            heic.out.contains(
                "urn:com:apple:photo:2020:aux:hdrgainmap 2856x2142, scale 0.5 x 0.5: cut by a HEIC crop, carried into a JPEG crop; dropped by other outputs"
            ), "\(heic.out)")
        #expect(
            heic.out.contains(
                "tag:apple.com,2023:photo:aux:linearthumbnail 1024x768, scale 0.179 x 0.179: an image of the whole photo, removed by a crop"
            ), "\(heic.out)")
        #expect(heic.out.contains("an ISO 21496-1 HDR rendition (tmap item 122)"), "\(heic.out)")
        let stereo = cropkit("info", TestData.path("hdr/visionpro_spatial_stereo.heic"))
        #expect(
            stereo.out.contains(
                "the other eye (item 52), scale 1 x 1: cut by a HEIC crop; dropped by other outputs"
            ),
            "\(stereo.out)")
        let pair = cropkit("info", TestData.path("camera/nintendo3ds_stereo.mpo"))
        #expect(
            pair.out.contains("the other eye (MPF) 640x480, scale 1 x 1: cut with a JPEG crop"),
            "\(pair.out)")
        let plain = cropkit("info", TestData.path("camera/canon_t3i.jpg"))
        #expect(!plain.out.contains("companions"))
    }

    /// Apple's MakerNote stays (it holds no preview): a renderer reads the
    /// HDR headroom (tags 33 and 48) from it to show the kept gain map.
    /// exiftool reads the same headroom in the crop as in the photo, for a
    /// JPEG and a HEIC; another maker's note is still removed.
    @Test(
        .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)),
        .enabled(if: ExifTool.gate, Comment(rawValue: ExifTool.absent)))
    func applesHDRHeadroomStays() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (source, output, rect) in [
            ("camera/iphone14promax_p3_hdrgainmap.jpg", "a.jpg", "8,8,32,40"),
            ("heif/pillow-heif/pug.heic", "b.heic", "1000,1000,1200,900"),
        ] {
            let out = folder.appendingPathComponent(output).path
            let run = cropkit(["crop", TestData.path(source), "--pixels", rect, "-o", out])
            #expect(run.status == 0, "\(run.err)")
            #expect(run.out.contains("Apple's MakerNote kept"), "\(run.out)")
            let before = try ExifTool.tags(TestData.path(source), groups: "-G1")
            let after = try ExifTool.tags(out, groups: "-G1")
            for tag in ["Apple:HDRHeadroom", "Apple:MakerNoteVersion"] {
                #expect(before[tag] != nil, "\(source): \(tag)")
                #expect(
                    "\(after[tag] ?? "none")" == "\(before[tag] ?? "none")", "\(source): \(tag)")
            }
        }
        let casio = folder.appendingPathComponent("c.jpg").path
        let run = cropkit([
            "crop", TestData.path("camera/casio_exs1_makernote_preview.jpg"), "--pixels",
            "8,8,32,40", "-o", casio,
        ])
        #expect(run.out.contains("the MakerNote removed"))
        #expect(try ExifTool.tags(casio, groups: "-G1").keys.allSatisfy { !$0.hasPrefix("Casio") })
    }

    /// `verify --companion` cuts a gain-map JPEG fixture through the real
    /// pipeline and holds each crop's gain map to the rule: on and off its
    /// grids, whole, tiny, turned by an orientation.
    @Test(arguments: [1, 6, 3])
    func verifyChecksTheCompanion(orientation: Int) {
        let turned = orientation >= 5
        let run = cropkit([
            "verify", "--source", "1008x756", "--viewport", turned ? "75.6x100.8" : "100.8x75.6",
            "--selection", "3.2,1.6,30,22.5", "--selection", "10.01,10,30,22.5", "--selection",
            turned ? "0,0,75.6,100.8" : "0,0,100.8,75.6", "--selection", "3.3,7.7,33.3,22.2",
            "--selection", "62.5,50,0.8,0.6", "--orientation", String(orientation), "--companion",
            turned ? "189x252" : "252x189",
        ])
        #expect(run.status == 0, "\(run.out)\(run.err)")
        #expect(
            run.out.components(separatedBy: "ok   companion alignment").count == 6, "\(run.out)")
        #expect(run.out.contains("against an exact copy of 0,0,252,189"), "\(run.out)")
        #expect(run.err.contains("5 passed, 0 failed"))
    }

    /// With `--format avif` the fixture is an AVIF whose gain map is an
    /// auxiliary image, and each AVIF crop's map is read back by the AVIF
    /// reader and held to the rule (a HEIF companion's goal): on its grid,
    /// off it (an odd-sized map, coded at its exact size), 1x1 at the far
    /// corner, and the whole photo (copied, exact). Turned by an
    /// orientation, an AVIF from pixels is written upright and its map is
    /// not turned yet: the check fails and says why.
    @Test(.enabled(if: HEIFEncoder.canEncodeTiles, "needs libheif with an AV1 encoder"))
    func verifyChecksAnAVIFCompanion() {
        let run = cropkit([
            "verify", "--source", "400x300", "--viewport", "400x300",
            "--selection", "10,10,200,150", "--selection", "101,33,77,51", "--selection",
            "399,299,1,1", "--selection", "0,0,400,300", "--companion", "200x150", "--format",
            "avif",
        ])
        #expect(run.status == 0, "\(run.out)\(run.err)")
        #expect(
            run.out.components(separatedBy: "ok   companion alignment").count == 5, "\(run.out)")
        #expect(run.out.contains("99th percentile at most 4)"), "\(run.out)")
        #expect(run.out.contains("against an exact copy of 0,0,200,150"), "\(run.out)")
        #expect(run.err.contains("4 passed, 0 failed"))
        let turned = cropkit([
            "verify", "--source", "400x300", "--viewport", "300x400", "--orientation", "6",
            "--selection", "10,10,150,200", "--companion", "150x200", "--format", "avif",
        ])
        // A turned AVIF's crop is written as stored with its map, both
        // turned by the same `irot`.
        #expect(turned.status == 0, "\(turned.out)")
        #expect(turned.out.contains("ok   companion size: exported 100x75"), "\(turned.out)")
        #expect(turned.out.contains("ok   companion alignment"), "\(turned.out)")
    }

    @Test func verifyRefusesACompanionThatCannotBeChecked() {
        let misaligned = cropkit(
            "verify", "--source", "4032x3024", "--viewport", "403.2x302.4", "--selection",
            "100,100,120,90", "--companion", "1000x1000")
        #expect(misaligned.status == 2)
        #expect(misaligned.err.contains("is not aligned to a 4032x3024 photo"), "\(misaligned.err)")
        let turned = cropkit(
            "verify", "--source", "400x300", "--viewport", "400x300", "--selection",
            "10,10,100,100", "--companion", "100x75", "--angle", "2")
        #expect(turned.status == 64 && turned.err.contains("drop --angle and --size"))
    }
}
