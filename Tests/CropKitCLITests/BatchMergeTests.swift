import CropKitTestSupport
import CropRecords
import Foundation
import Testing

/// `cropkit batch MANIFEST --merge REPORT...`: the shards' reports merged
/// into one, every line checked: done, failed or missing, outputs complete.
@Suite(.announcesSkips) struct BatchMergeTests {
    /// A manifest of 8 crops of a fixture (line 3 is blank, line 6 asks
    /// for pixels outside the image and fails), in a folder of its own.
    static func setUp() throws -> (folder: URL, manifest: String) {
        let folder = try temporaryFolder()
        #expect(
            cropkit("fixture", "200x150", "-o", folder.appendingPathComponent("a.png").path).status
                == 0)
        var lines: [String] = []
        for i in 0..<8 {
            let width = i == 4 ? 500 : 40
            lines.append(
                #"{"input":"a.png","output":"out/\#(i).png","pixels":{"x":\#(i),"y":\#(i),"width":\#(width),"height":30}}"#
            )
        }
        lines.insert("", at: 2)
        let manifest = folder.appendingPathComponent("manifest.jsonl").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: manifest))
        return (folder, manifest)
    }

    static func shard(_ manifest: String, _ index: Int, of count: Int, in folder: URL) -> String {
        let report = folder.appendingPathComponent("shard-\(index).jsonl").path
        _ = cropkit("batch", manifest, "--shard", "\(index)/\(count)", "--report", report)
        return report
    }

    static func lines(_ text: String) throws -> [JSONValue] {
        try text.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
    }

    @Test func theShardsMergeIntoOneReportInManifestOrder() throws {
        let (folder, manifest) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let reports = (0..<3).map { Self.shard(manifest, $0, of: 3, in: folder) }
        let merged = folder.appendingPathComponent("merged.jsonl").path
        let run = cropkit(
            ["batch", manifest, "--merge"] + reports.reversed() + ["--report", merged])
        #expect(run.status == 1, "line 6 failed: \(run.err)")
        #expect(
            run.err.contains(
                "merge: 8 lines from 3 reports: 7 done (7 written, 0 skipped as already complete), 1 failed, 0 missing"
            ))
        #expect(run.err.contains("merge: line 6 failed: no pixels"))
        let out = try Self.lines(String(contentsOfFile: merged, encoding: .utf8))
        #expect(out.map { $0["line"] } == [1, 2, 4, 5, 6, 7, 8, 9].map { JSONValue.number($0) })
        #expect(out[4]["status"] == .string("failed") && out[0]["status"] == .string("written"))
    }

    @Test func aShardWithoutItsReportIsMissingLineByLineAndItsRerunCompletesTheMerge() throws {
        let (folder, manifest) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        var reports = (0..<2).map { Self.shard(manifest, $0, of: 2, in: folder) }
        // Shard 1 killed: a killed run leaves no report; some outputs stay.
        try FileManager.default.removeItem(atPath: reports[1])
        try FileManager.default.removeItem(atPath: folder.appendingPathComponent("out/3.png").path)
        let before = cropkit(["batch", manifest, "--merge", reports[0]])
        #expect(before.status == 1)
        #expect(before.err.contains("missing (in no report; rerun their shards): 2, 5, 7, 9"))
        #expect(before.out.contains(#"{"schemaVersion":1,"line":2,"status":"missing","input":"#))
        reports[1] = Self.shard(manifest, 1, of: 2, in: folder)
        let after = cropkit(["batch", manifest, "--merge"] + reports)
        #expect(
            after.err.contains(
                "7 done (4 written, 3 skipped as already complete), 1 failed, 0 missing"),
            "\(after.err)")
        // A skipped line carries its output's size, which the merge checked.
        let rerun = try Self.lines(String(contentsOfFile: reports[1], encoding: .utf8))
        #expect(rerun.contains { $0["status"] == .string("skipped") && $0["bytes"] != nil })
    }

    @Test func anOutputChangedOrGoneSinceItsReportFailsItsLine() throws {
        let (folder, manifest) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = Self.shard(manifest, 0, of: 1, in: folder)
        try Data([1, 2, 3]).write(to: folder.appendingPathComponent("out/0.png"))
        try FileManager.default.removeItem(atPath: folder.appendingPathComponent("out/1.png").path)
        let run = cropkit(["batch", manifest, "--merge", report])
        #expect(run.status == 1)
        #expect(run.err.contains("merge: line 1 failed: "))
        #expect(run.err.contains("has 3 bytes, the report says"))
        #expect(
            run.err.contains("merge: line 2 failed: ") && run.err.contains("out/1.png is not there")
        )
    }

    @Test func twoDifferentWrittenResultsForOneLineAreAConflict() throws {
        let (folder, manifest) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = Self.shard(manifest, 0, of: 1, in: folder)
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let other = folder.appendingPathComponent("other.jsonl").path
        let first = try #require(text.split(separator: "\n").first)
        try Data((first.replacingOccurrences(of: #""x":0,"#, with: #""x":1,"#) + "\n").utf8).write(
            to: URL(fileURLWithPath: other))
        let run = cropkit(["batch", manifest, "--merge", report, other])
        #expect(run.err.contains("merge: line 1 failed: written twice with different results"))
        #expect(run.err.contains("1 line is in more than one report"))
    }

    @Test func aReportOfAnotherManifestOrOutOfOrderIsRefused() throws {
        let (folder, manifest) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = Self.shard(manifest, 0, of: 1, in: folder)
        let lines = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n")
        let shuffled = folder.appendingPathComponent("shuffled.jsonl").path
        try Data((lines.reversed().joined(separator: "\n") + "\n").utf8).write(
            to: URL(fileURLWithPath: shuffled))
        let unordered = cropkit(["batch", manifest, "--merge", shuffled])
        #expect(unordered.status == 2 && unordered.err.contains("is not in manifest order"))
        let blank = folder.appendingPathComponent("blank.jsonl").path
        try Data(#"{"line":3,"status":"written","output":"out/x.png"}"#.utf8).write(
            to: URL(fileURLWithPath: blank))
        let other = cropkit(["batch", manifest, "--merge", blank])
        #expect(other.status == 2 && other.err.contains("reports line 3, which is blank"))
        let renamed = folder.appendingPathComponent("renamed.jsonl").path
        try Data(
            (String(lines[0]).replacingOccurrences(of: "out/0.png", with: "elsewhere/0.png") + "\n")
                .utf8
        )
        .write(to: URL(fileURLWithPath: renamed))
        let mismatch = cropkit(["batch", manifest, "--merge", renamed])
        #expect(mismatch.err.contains("a report of another manifest?"))
        let overwrite = cropkit(["batch", manifest, "--merge", report, "--report", report])
        #expect(overwrite.status == 2 && overwrite.err.contains("is one of the reports to merge"))
        let usage = cropkit(["batch", manifest, "--merge", report, "--shard", "0/2"])
        #expect(usage.status == 64)
        #expect(usage.err.contains("--shard is for cropping, not for --merge"))
    }
}
