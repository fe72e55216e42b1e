import CropKitCLI
import CropKitTestSupport
import Foundation
import Testing

/// Round four's gauntlet for the test kit's inputs: `cropkit replay` and
/// `cropkit grade` given numbers JSON cannot hold or the contract refuses,
/// duplicate keys, deep nesting, a million lines, a line of 100 MB and bytes
/// that are not UTF-8; `batch --merge` given reports truncated, duplicated
/// and interleaved. Each case has its outcome; every message names the
/// line; memory stays bounded; no line is counted twice or missed.
@Suite(.announcesSkips) struct TestKitInputGauntletTests {
    /// A record the contract answers 0,0,2,2, with the app's answer.
    static let record =
        #"{"source":{"width":4,"height":3},"viewport":{"width":4,"height":3},"selection":{"x":0,"y":0,"width":2,"height":2},"mode":"aspectFit","expected":{"x":0,"y":0,"width":2,"height":2},"result":{"x":0,"y":0,"width":2,"height":2}}"#

    /// What a hostile line must come to in replay (and in grade, which
    /// stops at a line it cannot read).
    enum Outcome: Sendable {
        /// Not a record: named with its line, counted failed by replay,
        /// exit 2 from grade.
        case unreadable(String)
        /// A record the contract refuses (`expected` says a rect): replay
        /// fails it, grade too.
        case refusedByTheContract(String)
        /// A record that replays and grades as passed.
        case passes
    }

    static let cases: [(name: String, line: String, outcome: Outcome)] = [
        (
            "NaN", record.replacingOccurrences(of: #""width":4,"#, with: #""width":NaN,"#),
            .unreadable("NaN is not a JSON number")
        ),
        (
            "Infinity",
            record.replacingOccurrences(of: #""width":4,"#, with: #""width":Infinity,"#),
            .unreadable("Infinity is not a JSON number")
        ),
        (
            "-Infinity",
            record.replacingOccurrences(of: #""width":4,"#, with: #""width":-Infinity,"#),
            .unreadable("-Infinity is not a JSON number")
        ),
        (
            "1e308 wide", record.replacingOccurrences(of: #""width":4,"#, with: #""width":1e308,"#),
            .refusedByTheContract("sourceTooLarge")
        ),
        (
            "1e309 wide (overflows)",
            record.replacingOccurrences(of: #""width":4,"#, with: #""width":1e309,"#),
            .refusedByTheContract("nonFinite")
        ),
        (
            "a negative source",
            record.replacingOccurrences(of: #""width":4,"#, with: #""width":-4,"#),
            .refusedByTheContract("sourceNotPositiveInteger")
        ),
        (
            "a zero source", record.replacingOccurrences(of: #""width":4,"#, with: #""width":0,"#),
            .refusedByTheContract("sourceNotPositiveInteger")
        ),
        (
            "a zero viewport",
            record.replacingOccurrences(
                of: #""viewport":{"width":4"#, with: #""viewport":{"width":0"#),
            .refusedByTheContract("viewportNotPositive")
        ),
        (
            "a negative-zero viewport",
            record.replacingOccurrences(
                of: #""viewport":{"width":4"#, with: #""viewport":{"width":-0.0"#),
            .refusedByTheContract("viewportNotPositive")
        ),
        (
            "a selection at 1e308",
            record.replacingOccurrences(
                of: #""selection":{"x":0"#, with: #""selection":{"x":1e308"#),
            .refusedByTheContract("noImagePixels")
        ),
        (
            "a duplicate key",
            record.replacingOccurrences(
                of: #"{"source""#, with: #"{"source":{"width":9,"height":9},"source""#),
            .unreadable(#"the member "source" is given twice"#)
        ),
        (
            "a duplicate mode",
            record.replacingOccurrences(
                of: #""mode":"aspectFit""#, with: #""mode":"aspectFit","mode":"fill""#),
            .unreadable(#"the member "mode" is given twice"#)
        ),
        (
            "arrays nested 10^5 deep",
            String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000),
            .unreadable("nested too deeply")
        ),
        (
            "objects nested 10^5 deep",
            String(repeating: #"{"a":"#, count: 100_000) + "1"
                + String(repeating: "}", count: 100_000), .unreadable("nested too deeply")
        ),
        (
            "a category with control characters",
            record.replacingOccurrences(
                of: #""mode""#, with: #""category":"a\u0000b\u001b[2J","mode""#), .passes
        ),
        ("an object that is not a record", #"{"hello":"world"}"#, .unreadable("")),
        ("a bare number", "42", .unreadable("")),
        ("the record as it is", record, .passes),
    ]

    @Test func replayGivesEachLineItsOutcome() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("all.jsonl").path
        try Data(Self.cases.map(\.line).joined(separator: "\n").utf8).write(
            to: URL(fileURLWithPath: path))
        let run = cropkit("replay", path)
        #expect(run.status == 1)
        let passes = Self.cases.filter { if case .passes = $0.outcome { true } else { false } }
            .count
        #expect(
            run.err.contains("\(passes) passed, \(Self.cases.count - passes) failed"), "\(run.err)")
        // One line of output a line of input, in order.
        let out = run.out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(out.count == Self.cases.count)
        for (index, item) in Self.cases.enumerated() {
            let said =
                run.err.split(separator: "\n").first { $0.hasPrefix("line \(index + 1):") } ?? ""
            switch item.outcome {
            case .unreadable(let text):
                #expect(
                    said.contains("not a valid record") && (text.isEmpty || said.contains(text)),
                    "\(item.name): \(said)")
                #expect(out[index].hasPrefix(#"{"line":\#(index + 1),"error":"#), "\(item.name)")
            case .refusedByTheContract(let code):
                #expect(said.contains("got rejection \(code)"), "\(item.name): \(said)")
            case .passes:
                #expect(said.isEmpty, "\(item.name): \(said)")
            }
            #expect(!said.unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    @Test(arguments: cases.map(\.name))
    func gradeGivesEachLineItsOutcome(name: String) throws {
        let item = try #require(Self.cases.first { $0.name == name })
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("a.jsonl").path
        // The line third, after two good ones.
        try Data([Self.record, Self.record, item.line].joined(separator: "\n").utf8).write(
            to: URL(fileURLWithPath: path))
        let run = cropkit("grade", path)
        switch item.outcome {
        case .unreadable(let text):
            #expect(run.status == 2, "\(name): \(run.err)")
            #expect(
                run.err.contains("a.jsonl:3:") && (text.isEmpty || run.err.contains(text)),
                "\(name): \(run.err)")
        case .refusedByTheContract(let code):
            #expect(run.status == 1)
            #expect(run.err.contains("line 3") && run.err.contains(code), "\(name): \(run.err)")
            #expect(run.err.contains("2 passed, 1 failed"), "\(name): \(run.err)")
        case .passes:
            #expect(run.status == 0, "\(name): \(run.err)")
            #expect(run.err.contains("3 passed, 0 failed"), "\(name): \(run.err)")
            #expect(
                !run.out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" })
        }
    }

    /// A million lines (blank but for records at known places and one bad
    /// line near the end): every record counted once, the bad line named by
    /// its number. The reading holds one line at a time.
    @Test func aMillionLinesAreCountedExactly() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines = [String](repeating: "", count: 1_000_000)
        let places = [0, 1, 99_999, 500_000, 999_998]
        for place in places { lines[place] = Self.record }
        lines[999_997] = #"{"source":"#
        let path = folder.appendingPathComponent("m.jsonl").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        let replay = cropkit("replay", path)
        #expect(replay.err.contains("line 999998: not a valid record"), "\(replay.err.suffix(300))")
        #expect(replay.err.contains("5 passed, 1 failed"), "\(replay.err.suffix(300))")
        #expect(replay.out.split(separator: "\n").count == 6)
        let grade = cropkit("grade", path)
        #expect(grade.status == 2)
        #expect(grade.err.contains("m.jsonl:999998:"), "\(grade.err)")
    }

    /// A line of 100 MB (over the 64 MiB a line may have): the reading
    /// stops at that line, named, with exit 2, the lines before it
    /// counted; the peak stays near the line limit. A line that is not
    /// UTF-8 stops grade there (its help: exit 2 when a line cannot be
    /// read); replay names it, counts it failed and goes on, as its help
    /// says of a bad line (round five).
    @Test func anOverlongLineAndBinaryBytesAreNamed() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let long = folder.appendingPathComponent("long.jsonl").path
        var bytes = Array((Self.record + "\n" + Self.record + "\n" + #"{"category":""#).utf8)
        bytes += [UInt8](repeating: 0x61, count: 100_000_000)
        bytes += Array(("\"}\n" + Self.record + "\n").utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: long))
        bytes = []
        let binary = folder.appendingPathComponent("binary.jsonl").path
        try Data(
            Array((Self.record + "\n" + Self.record + "\n").utf8) + [0x7B, 0xFF, 0xFE, 0x7D, 0x0A]
        ).write(
            to: URL(fileURLWithPath: binary))
        for command in ["replay", "grade"] {
            let run = cropkit(command, binary)
            if command == "replay" {
                #expect(run.status == 1, "\(command): \(run.err)")
                #expect(
                    run.err.contains(
                        "line 3: not a valid record: not UTF-8 text: byte 0xFF at byte"),
                    "\(command): \(run.err)")
                #expect(run.err.contains("2 passed, 1 failed"), "\(run.err)")
            } else {
                #expect(run.status == 2, "\(command): \(run.err)")
                #expect(
                    run.err.contains("line 3: not JSON Lines: binary data at byte"),
                    "\(command): \(run.err)")
            }
            // The long line through the real binary, its peak watched.
            let watched = try #require(try CropKitBinary.watch([command, long]))
            #expect(watched.status == 2, "\(command): \(watched.err)")
            #expect(
                watched.err.contains("line 3 is longer than 67108864 bytes"),
                "\(command): \(watched.err)")
            if command == "replay" { #expect(watched.err.contains("2 passed, 0 failed")) }
            // Peaks are not measured under a sanitizer (its shadow memory
            // and quarantine hold several times the line).
            if !MemoryTests.sanitized {
                #expect(watched.peak < 160 << 20, "\(command): peak \(watched.peak >> 20) MB")
            }
        }
    }

    /// Shard reports truncated mid-line, a report with one line twice, and
    /// two shards interleaved in one file.
    @Test func hostileShardReportsAreNamedOrMergedExactly() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func at(_ name: String) -> String { folder.appendingPathComponent(name).path }
        #expect(cropkit("fixture", "64x48", "-o", at("a.png")).status == 0)
        let manifest = (0..<6).map {
            #"{"input":"a.png","output":"o\#($0).png","pixels":{"x":\#($0),"y":0,"width":8,"height":8}}"#
        }
        try Data(manifest.joined(separator: "\n").utf8).write(
            to: URL(fileURLWithPath: at("m.jsonl")))
        for shard in 0..<2 {
            #expect(
                cropkit(
                    "batch", at("m.jsonl"), "--shard", "\(shard)/2", "--report",
                    at("r\(shard).jsonl")
                )
                .status == 0)
        }
        let r0 = try String(contentsOfFile: at("r0.jsonl"), encoding: .utf8).split(separator: "\n")
            .map(String.init)
        let r1 = try String(contentsOfFile: at("r1.jsonl"), encoding: .utf8).split(separator: "\n")
            .map(String.init)
        func merge(_ reports: [(String, [String])]) throws -> (Run, [String]) {
            for (name, lines) in reports {
                try Data(lines.joined(separator: "\n").utf8).write(
                    to: URL(fileURLWithPath: at(name)))
            }
            try? FileManager.default.removeItem(atPath: at("merged.jsonl"))
            let run = cropkit(
                ["batch", at("m.jsonl"), "--merge"] + reports.map { at($0.0) } + [
                    "--report", at("merged.jsonl"),
                ])
            let merged =
                (try? String(contentsOfFile: at("merged.jsonl"), encoding: .utf8))?.split(
                    separator: "\n"
                ).map(String.init) ?? []
            return (run, merged)
        }
        // Truncated: the last line cut mid-object.
        let cut = r1.dropLast() + [String(r1.last!.prefix(40))]
        let (truncated, none) = try merge([("r0.jsonl", r0), ("cut.jsonl", Array(cut))])
        #expect(
            truncated.status == 2 && truncated.err.contains("cut.jsonl line 3"), "\(truncated.err)")
        #expect(none.isEmpty, "a refused merge writes no report")
        // One line twice, out of order: refused, named.
        let (twice, _) = try merge([("twice.jsonl", r0 + [r0[0]]), ("r1.jsonl", r1)])
        #expect(twice.status == 2 && twice.err.contains("not in manifest order"), "\(twice.err)")
        // One line twice, in place: counted once.
        let (doubled, merged) = try merge([("doubled.jsonl", [r0[0]] + r0), ("r1.jsonl", r1)])
        #expect(doubled.status == 0, "\(doubled.err)")
        #expect(merged.count == 6)
        // Two shards interleaved in one file, in manifest order: merged whole.
        let (interleaved, whole) = try merge([("both.jsonl", zip(r0, r1).flatMap { [$0, $1] })])
        #expect(interleaved.status == 0, "\(interleaved.err)")
        #expect(
            whole.count == 6
                && (1...6).allSatisfy { n in
                    whole[n - 1].hasPrefix(#"{"schemaVersion":1,"line":\#(n),"#)
                })
    }
}
