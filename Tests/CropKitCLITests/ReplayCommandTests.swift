import CropGeometry
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

@Suite(.announcesSkips) struct ReplayCommandTests {
    static let passing = """
        {"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150},"mode":"aspectFit","expected":{"x":1000,"y":500,"width":2000,"height":2000}}
        """
    static let failing = """
        {"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":0.15,"y":75,"width":150,"height":150},"expected":{"x":2,"y":500,"width":2001,"height":2000}}
        """
    static let rejected = """
        {"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":0,"y":0,"width":300,"height":37.5},"expected":null}
        """

    @Test func oneOutputLinePerRecordAndASummary() throws {
        let input =
            [Self.passing, "", Self.failing, "not json", Self.rejected].joined(separator: "\n")
            + "\n"
        let run = cropkit(["replay", "-"], input: input)
        #expect(run.status == 1)
        let lines = run.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        let first = try JSONValue(parsing: lines[0])
        #expect(first["check"] == .string("passed"))
        #expect(first["result"]?["width"] == .number(2000))
        let second = try JSONValue(parsing: lines[1])
        #expect(second["check"] == .string("failed"))
        #expect(second["result"]?["width"] == .number(2000))
        let third = try JSONValue(parsing: lines[2])
        #expect(third["line"] == .number(4))
        let fourth = try JSONValue(parsing: lines[3])
        #expect(fourth["result"] == .null)
        #expect(fourth["reason"]?["code"] == .string("noImagePixels"))
        #expect(run.err.contains("line 3: failed: width: expected 2001, got 2000\n"))
        #expect(run.err.contains("line 4: not a valid record: not valid JSON"))
        #expect(run.err.hasSuffix("2 passed, 2 failed\n"))
    }

    @Test func turnedRecordsAreReplayedAndChecked() throws {
        let turned = """
            {"source":{"width":40,"height":30},"viewport":{"width":400,"height":300},\
            "selection":{"x":50,"y":0,"width":300,"height":300},"angle":90,\
            "expected":{"x":5,"y":0,"width":30,"height":30}}
            """
        let run = cropkit(
            ["replay", "-"],
            input: turned + "\n"
                + turned.replacingOccurrences(
                    of: "\"y\":0,\"width\":30", with: "\"y\":1,\"width\":30"))
        #expect(run.status == 1)
        #expect(run.err.hasSuffix("1 passed, 1 failed\n"))
        let first = try JSONValue(parsing: String(run.out.split(separator: "\n")[0]))
        #expect(first["result"]?["x"] == .number(5) && first["check"] == .string("passed"))
    }

    @Test func allPassingExitsZero() {
        let run = cropkit(["replay", "-"], input: Self.passing + "\n" + Self.rejected)
        #expect(run.status == 0)
        #expect(run.err == "2 passed, 0 failed\n")
    }

    @Test func recordsWithoutExpectedAreReplayedNotChecked() throws {
        let line = Self.passing.replacingOccurrences(
            of: ",\"expected\":{\"x\":1000,\"y\":500,\"width\":2000,\"height\":2000}", with: "")
        let run = cropkit(["replay", "-"], input: line)
        #expect(run.status == 0)
        #expect(try JSONValue(parsing: run.out)["check"] == nil)
        #expect(
            run.err
                == "1 record(s) had no \"expected\": replayed, not checked\n1 passed, 0 failed\n")
    }

    @Test func readsAFileAndReportsAMissingOne() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("records.jsonl")
        try (Self.passing + "\r\n" + Self.passing).write(
            to: file, atomically: true, encoding: .utf8)
        let run = cropkit(["replay", file.path])
        #expect(run.status == 0)
        #expect(run.err == "2 passed, 0 failed\n")
        let missing = cropkit(["replay", folder.appendingPathComponent("nope.jsonl").path])
        #expect(missing.status == 2)
        #expect(missing.err.contains("No such file"))
        let directory = cropkit(["replay", folder.path])
        #expect(directory.status == 2)
        #expect(cropkit(["replay"]).status == 64)
    }

    /// Every generated record round-trips: what `map --json` prints replays to
    /// the same result when given back as `expected`.
    @Test func mapOutputReplaysAsExpected() throws {
        var lines: [String] = []
        for (x, mode, orientation) in [
            (10.5, "aspectFit", "1"), (100, "aspectFill", "6"), (33.3, "center", "7"),
        ] {
            let run = cropkit(
                [
                    "map", "--source", "1234x987", "--viewport", "320x480", "--selection",
                    "\(x),50,120,90", "--mode", mode, "--orientation", orientation, "--json",
                ])
            // map --json prints a test vector: the answer under "expected".
            let json = try JSONValue(parsing: run.out)
            #expect(json["expected"] != nil && json["result"] == nil)
            lines.append(json.text)
        }
        let run = cropkit(["replay", "-"], input: lines.joined(separator: "\n"))
        #expect(run.status == 0)
        #expect(run.err == "3 passed, 0 failed\n")
    }
}

extension ReplayCommandTests {
    /// replay --export: each record's crop exported from fixtures of its size
    /// and checked, without the person's photo.
    @Test func exportChecksEveryRecordsCrop() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = [
            // The six categories, at sizes that keep the test quick.
            #"{"source":{"width":400,"height":300},"viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150}}"#,
            #"{"source":{"width":300,"height":400},"viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150},"orientation":6}"#,
            #"{"source":{"width":400,"height":300},"viewport":{"width":300,"height":300},"selection":{"x":0,"y":0,"width":300,"height":300}}"#,
            #"{"source":{"width":400,"height":300},"viewport":{"width":300,"height":300},"selection":{"x":0,"y":0,"width":300,"height":30}}"#,
            #"{"source":{"width":400,"height":300},"viewport":{"width":300,"height":300},"selection":{"x":250,"y":200,"width":100,"height":100}}"#,
            #"{"source":{"width":400,"height":300},"viewport":{"width":300,"height":300},"selection":{"x":10.01,"y":40.3,"width":33.33,"height":20.07},"mode":"aspectFill"}"#,
        ]
        let run = cropkit(
            ["replay", "-", "--export", folder.path], input: records.joined(separator: "\n"))
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.hasSuffix("6 passed, 0 failed\n"))
        let lines = run.out.split(separator: "\n").map { try? JSONValue(parsing: String($0)) }
        #expect(lines.count == 6)
        for (index, line) in lines.enumerated() where index != 3 {
            #expect(line?["export"]?["passed"] == .bool(true), "line \(index + 1)")
            #expect(
                FileManager.default.fileExists(
                    atPath: folder.appendingPathComponent("line-\(index + 1).png").path))
        }
        // The padding-only record has no pixels, so nothing to export.
        #expect(lines[3]?["export"] == nil)
    }

    /// The one-pixel vectors `cases` writes export and pass: in a fixture
    /// smaller than two markers the markers overlap, the last painted
    /// wins, and the check expects each where it shows (it expected all
    /// four in a 1x1 fixture's one pixel, and failed 40 of 44 vectors).
    @Test func tinyFixturesOverlappingMarkersPass() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let vectors = cropkit("cases", "--count", "400").out.split(separator: "\n")
            .filter { $0.contains(#""category":"one-pixel""#) }
        #expect(vectors.count >= 40)
        let run = cropkit(
            ["replay", "-", "--export", folder.path], input: vectors.joined(separator: "\n"))
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.hasSuffix("\(vectors.count) passed, 0 failed\n"), "\(run.err)")
        // 2x2 and 3x1 fixtures: every marker where it shows, a whole crop.
        for source in ["2x2", "3x1", "1x3", "5x5"] {
            let side = source.split(separator: "x").map { Int($0)! }
            let record =
                #"{"source":{"width":\#(side[0]),"height":\#(side[1])},"viewport":{"width":100,"height":100},"selection":{"x":0,"y":0,"width":100,"height":100}}"#
            let whole = cropkit(["replay", "-", "--export", folder.path], input: record)
            #expect(whole.status == 0, "\(source): \(whole.err)")
        }
    }
}

extension ReplayCommandTests {
    @Test func reportIsOneSelfContainedPage() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = folder.appendingPathComponent("report.html").path
        let exports = folder.appendingPathComponent("exports").path
        let input = [
            Self.passing.replacingOccurrences(of: "4000", with: "400").replacingOccurrences(
                of: "3000", with: "300"
            )
            .replacingOccurrences(
                of: "\"x\":1000,\"y\":500,\"width\":2000,\"height\":2000",
                with: "\"x\":100,\"y\":50,\"width\":200,\"height\":200"),
            #"{"source":{"width":400,"height":300},"viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150},"expected":{"x":1,"y":2,"width":3,"height":4}}"#,
            "not json",
        ].joined(separator: "\n")
        let run = cropkit(["replay", "-", "--report", report, "--export", exports], input: input)
        #expect(run.status == 1)
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("2 failed"))
        #expect(html.contains("<svg") && html.contains("data:image/png;base64,"))
        #expect(html.contains("id=\"line-3\""))
        // Self-contained: nothing is fetched from anywhere. Its only
        // addresses are the SVG namespace and the records' links to the
        // playground (followed only when clicked).
        let addresses = html.components(separatedBy: "http://").count - 1
        let namespaces =
            html.components(separatedBy: "xmlns=\"http://www.w3.org/2000/svg\"").count - 1
        let links = html.components(separatedBy: "href=\"http://localhost:8000/?record=").count - 1
        #expect(links == 2 && addresses == namespaces + links)
        #expect(!html.contains("<script") && !html.contains("https://"))
    }
}

extension ReplayCommandTests {
    /// A record that `map --json` prints replays to the same result, aspect
    /// included (replay once ignored "aspect" and gave 791x792 here).
    @Test(arguments: ["1:1", "source", "16:9"])
    func mapRecordsReplayToTheSameResult(aspect: String) throws {
        let map = cropkit(
            "map", "--source", "791x792", "--viewport", "250x250", "--selection", "0,0,250,250",
            "--mode", "aspectFill", "--orientation", "6", "--aspect", aspect, "--json")
        #expect(map.status == 0)
        let mapped = try JSONValue(parsing: map.out)
        #expect(mapped["aspect"] == .string(aspect))
        let replay = cropkit(["replay", "-"], input: map.out)
        #expect(replay.status == 0, "\(replay.err)")
        let replayed = try JSONValue(parsing: replay.out)
        #expect(replayed["result"] == mapped["expected"])
        #expect(replayed["check"] == .string("passed"))
        if aspect == "1:1" {
            #expect(replayed["result"]?["width"] == .number(791))
            #expect(replayed["result"]?["height"] == .number(791))
        }
    }
}

extension ReplayCommandTests {
    /// A record is echoed byte for byte (its spacing, number text and
    /// escapes), with the answer after its last member.
    @Test func recordsAreEchoedAsWritten() {
        let record =
            #"{ "source" : {"width":4000, "height":3000}, "viewport":{"width":300,"height":300},"selection":{"x":75.0,"y":75,"width":150,"height":150},"note":"caf\u00e9" }"#
        let run = cropkit(["replay", "-"], input: record + "\n")
        #expect(run.status == 0)
        #expect(
            run.out
                == #"{ "source" : {"width":4000, "height":3000}, "viewport":{"width":300,"height":300},"selection":{"x":75.0,"y":75,"width":150,"height":150},"note":"caf\u00e9" ,"result":{"x":1000,"y":500,"width":2000,"height":2000}}"#
                + "\n")
    }

    /// Replaying on every core writes exactly what one core writes: the same
    /// lines, in the same order, with the same complaints, across blocks.
    @Test func parallelReplayEqualsTheSequentialOne() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines: [String] = []
        for i in 0..<20_000 {
            switch i % 97 {
            case 0: lines.append("not json \(i)")
            case 1: lines.append("")
            default:
                let x = Double(i % 300) + 0.25
                let expected = i % 5 == 0 ? #","expected":{"x":1,"y":2,"width":3,"height":4}"# : ""
                lines.append(
                    #"{"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":\#(x),"y":75,"width":40,"height":40},"orientation":\#(1 + i % 8)\#(expected)}"#
                )
            }
        }
        let path = folder.appendingPathComponent("r.jsonl").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        let parallel = cropkit("replay", path)
        // --report replays one record at a time.
        let sequential = cropkit(
            "replay", path, "--report", folder.appendingPathComponent("r.html").path)
        #expect(parallel.status == 1)
        #expect(parallel.out == sequential.out)
        #expect(
            parallel.err.split(separator: "\n").filter { $0.hasPrefix("line ") }
                == sequential.err.split(separator: "\n").filter { $0.hasPrefix("line ") })
        #expect(parallel.out.split(separator: "\n").count == 20_000 - 207)
        #expect(parallel.err.hasSuffix("15669 passed, 4124 failed\n"), "\(parallel.err.suffix(80))")
    }
}

extension ReplayCommandTests {
    /// A line longer than --max-line-bytes ends the run with exit 2 and a
    /// message naming the flag, for replay and for batch.
    @Test func overlongLinesAreRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let record =
            #"{"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":75,"y":75,"width":150,"height":150}}"#
        let long = #"{"pad":""# + String(repeating: "x", count: 300_000) + #""}"#
        let path = folder.appendingPathComponent("r.jsonl").path
        try Data((record + "\n" + long + "\n" + record + "\n").utf8).write(
            to: URL(fileURLWithPath: path))
        let refused = cropkit("replay", path, "--max-line-bytes", "100000")
        #expect(refused.status == 2)
        #expect(refused.err.contains("line 2 is longer than 100000 bytes"), "\(refused.err)")
        #expect(refused.err.contains("--max-line-bytes"))
        // Within the default limit the long line is read (and is not a record).
        let read = cropkit("replay", path)
        #expect(read.status == 1)
        #expect(read.err.hasSuffix("2 passed, 1 failed\n"), "\(read.err.suffix(60))")
        let batch = cropkit("batch", path, "--max-line-bytes", "100000")
        #expect(batch.status == 2)
        #expect(batch.err.contains("--max-line-bytes"))
    }
}
