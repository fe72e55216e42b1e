import CropGeometry
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

@Suite(.announcesSkips) struct MapCommandTests {
    static let scenario = [
        "map", "--source", "4000x3000", "--viewport", "300x300", "--selection", "75,75,150,150",
    ]

    @Test func humanOutputOfTheArticleScenario() {
        let run = cropkit(Self.scenario)
        #expect(run.status == 0)
        #expect(
            run.out == """
                pixels  1000,500,2000,2000   (x,y,width,height in the image as seen, 4000x3000)
                stored  1000,500,2000,2000   (in the file's pixel grid, 4000x3000, orientation 1)
                display 0,37.5,300,225   (image drawn in the 300x300 view, aspectFit)

                """)
        #expect(run.err.isEmpty)
    }

    @Test func jsonOutputIsAReplayableRecord() throws {
        let run = cropkit(
            Self.scenario + [
                "--json", "--orientation", "6", "--mode", "aspectFill", "--zoom", "2", "--offset",
                "10,-5",
            ])
        #expect(run.status == 0)
        let record = try CropRecord(jsonLine: run.out.trimmingCharacters(in: .newlines))
        let json = try JSONValue(parsing: run.out)
        let replayed = try record.replay().get()
        #expect(json["expected"] == replayed.json)
        #expect(json["result"] == nil)
        #expect(record.request.zoom == Zoom(scale: 2, offset: Vector(dx: 10, dy: -5)))
        #expect(json["expected"]?["stored"] != nil)
    }

    @Test func aspectFlagSnapsToTheRatio() throws {
        let run = cropkit(
            [
                "map", "--source", "4000x3000", "--viewport", "300x300", "--selection",
                "75.01,75.02,38.5,38.4", "--aspect", "1:1", "--json",
            ])
        let result = try #require(try JSONValue(parsing: run.out)["expected"])
        #expect(result["width"] == .number(514) && result["height"] == .number(514))
        let source = cropkit([
            "map", "--source", "4000x3000", "--viewport", "300x300", "--selection", "0,0,300,300",
            "--aspect", "source", "--json",
        ])
        #expect(try JSONValue(parsing: source.out)["expected"]?["width"] == .number(4000))
    }

    @Test func rejectionPrintsTheReasonAndExitsOne() {
        let run = cropkit([
            "map", "--source", "4000x3000", "--viewport", "300x300", "--selection", "0,0,300,30",
        ])
        #expect(run.status == 1)
        #expect(run.out.hasPrefix("rejected (noImagePixels): the selection covers no image pixel"))
        let nan = cropkit([
            "map", "--source", "4000x3000", "--viewport", "300x300", "--selection", "nan,0,300,30",
            "--json",
        ])
        #expect(nan.status == 1)
        #expect(nan.out.contains("\"expected\":null,\"reason\":{\"code\":\"nonFinite\""))
        let negative = cropkit([
            "map", "--source", "4000x3000", "--viewport", "300x300", "--selection", "10,10,-5,5",
        ])
        #expect(negative.status == 1)
        #expect(negative.out.contains("selectionSizeNotPositive"))
    }

    @Test(arguments: [
        (
            ["map", "--viewport", "300x300", "--selection", "0,0,1,1"],
            "error: missing --source WxH"
        ),
        (
            ["map", "--source", "4000", "--viewport", "300x300", "--selection", "0,0,1,1"],
            "error: --source must be WxH, not '4000'"
        ),
        (
            [
                "map", "--source", "4x3", "--viewport", "3x3", "--selection", "0,0,1,1", "--mode",
                "fit",
            ], "error: unknown --mode 'fit'"
        ),
        (
            [
                "map", "--source", "4x3", "--viewport", "3x3", "--selection", "0,0,1,1",
                "--orientation", "9",
            ], "error: --orientation must be a whole number from 1 to 8, not '9'"
        ),
        (
            [
                "map", "--source", "4x3", "--viewport", "3x3", "--selection", "0,0,1,1", "--aspect",
                "1:0",
            ], "error: --aspect must be P:Q"
        ),
        (
            ["map", "--source", "4x3", "--source", "4x3"],
            "error: option '--source' given more than once"
        ),
        (["map", "--bogus"], "error: unknown option '--bogus'"),
        (["frobnicate"], "error: unknown subcommand 'frobnicate'"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) {
        let run = cropkit(arguments)
        #expect(run.status == 64)
        #expect(run.err.hasPrefix(message), "\(run.err)")
        #expect(run.out.isEmpty)
    }

    /// Help text is part of the interface: tested byte for byte.
    @Test func mapHelpIsExact() {
        let run = cropkit("map", "--help")
        #expect(run.status == 0)
        #expect(
            run.out == """
                Usage: cropkit map --source WxH --viewport WxH --selection X,Y,W,H [options]

                Maps a selection made in an image view (points) to the rectangle of source
                pixels it covers, exactly, by the mapping contract (MappingContract.md in
                Sources/CropGeometry/CropGeometry.docc): intersect with the visible image,
                convert to pixels, snap edges within 1e-6 px of an integer, round outward.
                Prints the rect in the image as seen and in the stored grid. A rejected
                input prints the rule it breaks and exits 1.

                --json prints the mapping as a test vector: the record's inputs and
                "expected", the contract's answer (null when it refuses, with
                "reason"), so that cropkit map ... --json >> vectors.jsonl adds a case
                that 'cropkit replay' checks (its schema: cropkit schema test-vector;
                "schemaVersion" first). In the record format "expected" is what
                the answer should be and "result" what an app computed: 'cropkit
                grade' compares the two.

                With --angle DEG (the image turned DEG degrees clockwise as seen, about
                the centre of its display rect): the output rect in the turned pixel
                frame (the selection moved into it and rounded outward, exactly), the
                four corners of that rect in the image, and the stored rect a bilinear
                decoder must read ("Straighten and resize" in the contract).

                With --companion WxH (a gain map, depth map or stereo eye of that size
                as displayed beside the photo): its cut, by the contract's companion
                rule ("Companion images"): its output size, the companion rect the
                crop covers, and whether that is an exact copy or sampled; --json adds
                "companion" to the vector and its cut under "expected".

                Options:
                  --source WxH         stored pixel size of the image, e.g. 4000x3000
                  --viewport WxH       size of the image view, in points
                  --selection X,Y,W,H  the selection, in the view's points
                  --mode MODE          content mode, as UIKit's (default aspectFit; the modes are listed below)
                  --image-scale S      pixels per point of natural size (unscaled modes; default 1)
                  --zoom Z             zoom scale (default 1)
                  --offset X,Y         zoom content offset, in points (default 0,0)
                  --orientation N      EXIF orientation 1-8 (default 1)
                  --aspect P:Q         snap to exactly this ratio, e.g. 1:1, 4:5, 16:9, or 'source'
                  --source-file FILE   take the source size and EXIF orientation from an image (instead of --source)
                  --block-grid WxH     say whether a JPEG crop is lossless on this block grid (8x8, 16x16, ...; default: a JPEG --source-file's)
                  --angle DEG          the image turned DEG degrees clockwise: print the straightened output rect
                  --companion WxH      a companion image (gain map, depth map) of this size as displayed: print its cut
                  -j, --json           print a ready test vector: the record with the contract's answer under "expected" (null when refused)
                  --help               show this help

                Modes (--mode), as UIKit's UIView.ContentMode:
                  aspectFit aspectFill scaleToFill center top bottom left right topLeft
                  topRight bottomLeft bottomRight

                """)
    }

    @Test func topLevelHelpListsEverySubcommand() {
        let run = cropkit("--help")
        #expect(run.status == 0)
        for name in ["map", "replay", "demo"] {
            #expect(run.out.contains("\n  \(name) "))
        }
        let bare = cropkit([])
        #expect(bare.status == 64)
        #expect(bare.err == run.out)
    }
}

/// cropkit explain: from flags or from one record of a file.
@Suite(.announcesSkips) struct ExplainCommandTests {
    @Test func drawsFromFlagsAndFromARecord() throws {
        let flags = cropkit(
            "explain", "--source", "4000x3000", "--viewport", "300x300", "--selection",
            "75,75,150,150")
        #expect(flags.status == 0)
        #expect(flags.out.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(
            flags.out.contains(
                "data-x=\"1000\" data-y=\"500\" data-width=\"2000\" data-height=\"2000\""))
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = folder.appendingPathComponent("records.jsonl")
        try Data(
            (#"{"source":{"width":40,"height":30},"viewport":{"width":30,"height":30},"selection":{"x":0,"y":0,"width":30,"height":30}}"#
                + "\n"
                + #"{"source":{"width":30,"height":40},"viewport":{"width":30,"height":30},"selection":{"x":0,"y":0,"width":30,"height":30},"orientation":6}"#
                + "\n").utf8
        ).write(to: records)
        let svg = folder.appendingPathComponent("two.svg").path
        let second = cropkit("explain", "--record", records.path + ":2", "-o", svg)
        #expect(second.status == 0, "\(second.err)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(text.contains("data-width=\"40\" data-height=\"30\" data-stored=\"0,0,30,40\""))
        #expect(cropkit("explain", "--record", records.path + ":3").status == 2)
        #expect(cropkit("explain", "--record", records.path).status == 64)
    }

    /// `map --angle`: the straightened output rect, its quad in the image
    /// and the stored rect a bilinear decoder reads; JSON as a turned
    /// record that replays to the same rect.
    @Test func turnedMappingPrintsTheOutputRect() throws {
        let run = cropkit(
            "map", "--source", "40x30", "--viewport", "400x300", "--selection", "50,0,300,300",
            "--angle", "90")
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("output  5,0,30,30"))
        #expect(run.out.contains("quad    (5, 30) (5, 0) (35, 0) (35, 30)"))
        #expect(run.out.contains("read    4,0,32,30"))
        let json = cropkit(
            "map", "--source", "40x30", "--viewport", "400x300", "--selection", "50,0,300,300",
            "--angle", "90", "--json")
        let replay = cropkit(["replay", "-"], input: json.out)
        #expect(replay.status == 0 && replay.out.contains("\"angle\":90"), "\(replay.err)")
        // With an aspect, the printed rect is what the record replays to.
        let square = cropkit(
            "map", "--source", "4000x3000", "--viewport", "400x300", "--selection",
            "10,10,300,200", "--angle", "3.5", "--aspect", "1:1", "--json")
        let squareReplay = cropkit(["replay", "-"], input: square.out)
        let squareLine = try JSONValue(parsing: square.out)
        #expect(squareLine["expected"]?["width"] == squareLine["expected"]?["height"])
        #expect(squareReplay.status == 0 && squareReplay.err.hasSuffix("0 failed\n"))
        let outside = cropkit(
            "map", "--source", "4000x3000", "--viewport", "400x300", "--selection",
            "500,0,10,10", "--angle", "3.5")
        #expect(outside.status == 1 && outside.out.hasPrefix("rejected (noImagePixels)"))
        let mixed = cropkit(
            "map", "--source", "40x30", "--viewport", "400x300", "--selection", "0,0,9,9",
            "--angle", "2", "--block-grid", "8x8")
        #expect(mixed.status == 64)
    }
}
