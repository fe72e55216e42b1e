import CropKitCLI
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

/// Hostile input, round five, class 5: JSON that says a thing twice, or
/// stops in the middle. A member given twice is refused at any depth by
/// every reader (`replay`, `grade`, `batch` manifests, `--merge`), naming
/// the line and the member's path; two names are one when they decode to
/// the same string. A line that is not UTF-8 in the middle of a file is a
/// bad line for `replay`, which goes on, as its help says.
@Suite(.announcesSkips) struct JSONSaysItOnceTests {
    static let record = TestKitInputGauntletTests.record

    /// `record` with `old` replaced by `new` once.
    static func changing(_ old: String, to new: String) -> String {
        record.replacingOccurrences(of: old, with: new)
    }

    /// Each hostile line and the path its message must name.
    static let twice: [(line: String, path: String)] = [
        (changing(#""selection":{"x":0,"#, to: #""selection":{"x":0,"x":1,"#), "selection.x"),
        (
            changing(#""source":{"width":4,"#, to: #""source":{"width":4,"\u0077idth":5,"#),
            "source.width"
        ),
        (changing(#""expected":{"x":0,"#, to: #""expected":{"x":0,"x":3,"#), "expected.x"),
        (changing(#""result":{"x":0,"#, to: #""result":{"x":0,"\u0078":1,"#), "result.x"),
        (changing(#""mode":"aspectFit","#, to: #""mode":"aspectFit","mode":"fill","#), "mode"),
    ]

    @Test func replayRefusesAMemberGivenTwiceAtAnyDepthAndGoesOn() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("r.jsonl").path
        var bytes = Array((Self.record + "\n").utf8)
        for item in Self.twice { bytes += Array((item.line + "\n").utf8) }
        bytes += Array((Self.record + "\n").utf8)
        // Not UTF-8 (a lone continuation byte, then an overlong form).
        bytes += Array(#"{"source":"#.utf8) + [0x80, 0xC0, 0xAF] + Array("}\n".utf8)
        bytes += Array((Self.record + "\n").utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let run = cropkit("replay", path)
        #expect(run.status == 1, "\(run.err)")
        let said = run.err.split(separator: "\n")
        for (index, item) in Self.twice.enumerated() {
            let line = said.first { $0.hasPrefix("line \(index + 2): not a valid record: ") } ?? ""
            #expect(
                line.contains(
                    "the member \"\(item.path)\" is given twice (ambiguous); give it once"),
                "\(item.path): \(run.err)")
        }
        #expect(
            run.err.contains("line 8: not a valid record: not UTF-8 text: byte 0x80 at byte"),
            "\(run.err)")
        #expect(run.err.contains("3 passed, 6 failed"), "\(run.err)")
        let out = run.out.split(separator: "\n")
        #expect(out.count == 9)
        #expect(out.count == 9 && out[7].hasPrefix(#"{"line":8,"error":"not UTF-8 text"#), "\(out)")
        // The same in the parallel path (no --export, no --report) and the
        // one-line-at-a-time one.
        let exported = cropkit(
            "replay", path, "--report", folder.appendingPathComponent("r.html").path)
        #expect(exported.err.contains("3 passed, 6 failed"), "\(exported.err)")
    }

    @Test func gradeNamesTheLineAndThePath() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for item in Self.twice {
            let path = folder.appendingPathComponent("g.jsonl").path
            try Data([Self.record, Self.record, item.line].joined(separator: "\n").utf8).write(
                to: URL(fileURLWithPath: path))
            let run = cropkit("grade", path)
            #expect(run.status == 2, "\(item.path): \(run.err)")
            #expect(
                run.err.contains("g.jsonl:3: ")
                    && run.err.contains("the member \"\(item.path)\" is given twice"),
                "\(item.path): \(run.err)")
        }
    }

    @Test func aManifestLineThatSaysAThingTwiceFailsNamed() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func at(_ name: String) -> String { folder.appendingPathComponent(name).path }
        #expect(cropkit("fixture", "64x48", "-o", at("a.png")).status == 0)
        let lines = [
            #"{"input":"a.png","output":"o1.png","pixels":{"x":0,"y":0,"width":8,"height":8}}"#,
            #"{"input":"a.png","output":"o2.png","pixels":{"x":0,"y":0,"x":40,"width":8,"height":8}}"#,
            #"{"input":"a.png","variants":[{"output":"v1.png","width":8},{"output":"v2.png","\u006futput":"v3.png"}]}"#,
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: at("m.jsonl")))
        let run = cropkit("batch", at("m.jsonl"))
        #expect(run.status == 1, "\(run.err)")
        let report = run.out.split(separator: "\n").map(String.init)
        #expect(report.count == 3, "\(run.out)")
        #expect(report.count == 3 && report[0].contains(#""status":"written""#))
        #expect(
            report.count == 3 && report[1].contains(#"\"pixels.x\" is given twice"#), "\(report)")
        #expect(
            report.count == 3 && report[2].contains(#"\"variants[1].output\" is given twice"#),
            "\(report)")
        #expect(!FileManager.default.fileExists(atPath: at("o2.png")))
        #expect(!FileManager.default.fileExists(atPath: at("v1.png")))
    }

    @Test func aShardReportThatSaysStatusTwiceIsRefused() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func at(_ name: String) -> String { folder.appendingPathComponent(name).path }
        #expect(cropkit("fixture", "64x48", "-o", at("a.png")).status == 0)
        let manifest =
            #"{"input":"a.png","output":"o.png","pixels":{"x":0,"y":0,"width":8,"height":8}}"#
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: at("m.jsonl")))
        #expect(cropkit("batch", at("m.jsonl"), "--report", at("r.jsonl")).status == 0)
        let line = try String(contentsOfFile: at("r.jsonl"), encoding: .utf8)
            .replacingOccurrences(
                of: #""status":"written""#, with: #""status":"failed","status":"written""#)
        try Data(line.utf8).write(to: URL(fileURLWithPath: at("r.jsonl")))
        let run = cropkit(
            "batch", at("m.jsonl"), "--merge", at("r.jsonl"), "--report", at("merged.jsonl"))
        #expect(run.status == 2, "\(run.err)")
        #expect(
            run.err.contains(
                #"r.jsonl line 1 is not a batch report line (the member "status" is given twice"#),
            "\(run.err)")
        #expect(!FileManager.default.fileExists(atPath: at("merged.jsonl")))
    }

    /// A line that is not UTF-8 in the middle of a manifest or of a shard
    /// report does what each help says: the manifest is refused whole
    /// (exit 2, the line named, nothing cropped: it is checked before the
    /// first crop); the merge stops, the report's line named, and writes
    /// nothing.
    @Test func aLineThatIsNotTextMidwayIsNamedByEveryReader() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func at(_ name: String) -> String { folder.appendingPathComponent(name).path }
        #expect(cropkit("fixture", "64x48", "-o", at("a.png")).status == 0)
        let good = (1...2).map {
            #"{"input":"a.png","output":"o\#($0).png","pixels":{"x":0,"y":0,"width":8,"height":8}}"#
        }
        var bytes = Array((good.joined(separator: "\n") + "\n").utf8)
        bytes +=
            Array(#"{"input":"a.png","output":"o3"#.utf8) + [0xC3, 0x28]
            + Array(#".png","pixels":{"x":0,"y":0,"width":8,"height":8}}"#.utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: at("bad.jsonl")))
        let batch = cropkit("batch", at("bad.jsonl"))
        #expect(batch.status == 2, "\(batch.err)")
        #expect(batch.err.contains("line 3: not JSON Lines: binary data at byte"), "\(batch.err)")
        #expect(
            !FileManager.default.fileExists(atPath: at("o1.png")), "checked before the first crop")
        // A good manifest's report, its second line made not UTF-8.
        try Data(good.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: at("m.jsonl")))
        #expect(cropkit("batch", at("m.jsonl"), "--report", at("r.jsonl")).status == 0)
        var report = [UInt8](try Data(contentsOf: URL(fileURLWithPath: at("r.jsonl"))))
        let second = try #require(report.firstIndex(of: 0x0A)) + 3
        report[second] = 0xFF
        try Data(report).write(to: URL(fileURLWithPath: at("r.jsonl")))
        let merge = cropkit(
            "batch", at("m.jsonl"), "--merge", at("r.jsonl"), "--report", at("merged.jsonl"))
        #expect(merge.status == 2, "\(merge.err)")
        #expect(merge.err.contains("line 2: not JSON Lines: binary data at byte"), "\(merge.err)")
        #expect(!FileManager.default.fileExists(atPath: at("merged.jsonl")))
    }

    /// The parser itself: the path through arrays, names compared as
    /// decoded scalars (NFC and NFD spellings are two names), and an
    /// object of a hundred thousand members read in one pass.
    @Test func theParserComparesDecodedNamesAtEveryDepth() throws {
        func problem(_ text: String) -> String? {
            do {
                _ = try JSONValue(parsing: text)
                return nil
            } catch {
                return error.problem
            }
        }
        #expect(
            problem(#"{"a":[{"b":1},{"c":{"d":1,"d":2}}]}"#)?.contains(
                #""a[1].c.d" is given twice"#)
                == true)
        #expect(problem(#"[{"x":1,"\u0078":2}]"#)?.contains(#""[0].x" is given twice"#) == true)
        #expect(problem("{\"\u{E9}\":1,\"e\u{301}\":2}") == nil)
        // An escaped name first, the plain one after; names alike in their
        // first byte and length; twice at the seventeenth member, where a
        // set takes over from comparing.
        #expect(problem(#"{"\u0078":1,"x":2}"#)?.contains(#""x" is given twice"#) == true)
        #expect(problem(#"{"ab":1,"ac":2,"ad":{"ab":1}}"#) == nil)
        let sixteen = (0..<16).map { "\"m\($0)\":\($0)" }.joined(separator: ",")
        #expect(problem("{\(sixteen),\"m3\":0}")?.contains(#""m3" is given twice"#) == true)
        #expect(problem(#"{"x":{"y":1},"y":2,"z":{"y":3}}"#) == nil)
        let many = (0..<100_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        #expect(problem("{\(many)}") == nil)
        #expect(
            problem("{\(many),\"k99999\":0}")?.contains(#"the member "k99999" is given twice"#)
                == true)
    }
}
