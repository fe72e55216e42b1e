import CropImaging
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The third round of hostile testing, the command line's part: paths with
/// a NUL byte, FIFOs as inputs, manifest members unknown or mistyped, and
/// options given where they cannot apply.
@Suite(.announcesSkips) struct HostileRoundThreeTests {
    /// A folder holding a 64x48 PNG `a.png` and an unrelated file.
    static func folder() throws -> URL {
        let folder = try temporaryFolder()
        #expect(
            cropkit("fixture", "64x48", "-o", folder.appendingPathComponent("a.png").path).status
                == 0)
        try Data("keep me".utf8).write(to: folder.appendingPathComponent("victim.jpg"))
        return folder
    }

    static func batch(_ lines: [String], in folder: URL, _ extra: [String] = []) throws -> (
        run: Run, report: [JSONValue]
    ) {
        let manifest = folder.appendingPathComponent("m.jsonl").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: manifest))
        let report = folder.appendingPathComponent("report.jsonl").path
        let run = cropkit(["batch", manifest, "--report", report] + extra)
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        return (run, try text.split(separator: "\n").map { try JSONValue(parsing: String($0)) })
    }

    /// A NUL inside a manifest's output (or input) fails the line before the
    /// extension or --root checks: the file named by the cut path is not
    /// touched, even with --force, and the report names the path as given.
    @Test(arguments: [
        #"{"input":"a.png","output":"victim.jpg\u0000.png","pixels":{"x":0,"y":0,"width":8,"height":8}}"#,
        #"{"input":"a.png","output":"victim.jpg\u0000/x.png","pixels":{"x":0,"y":0,"width":8,"height":8}}"#,
        #"{"input":"a.png\u0000.jpg","output":"b.png","pixels":{"x":0,"y":0,"width":8,"height":8}}"#,
        #"{"input":"a.png","variants":[{"output":"ok.png","pixels":{"x":0,"y":0,"width":8,"height":8}},{"output":"victim.jpg\u0000.jpg","pixels":{"x":0,"y":0,"width":8,"height":8}}]}"#,
    ])
    func aNulInAManifestPathFailsItsLine(line: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (run, report) = try Self.batch(
            [line], in: folder, ["--force", "--root", folder.path])
        #expect(run.status == 1)
        #expect(report.count == 1)
        guard case .string(let error)? = report.first?["error"] else {
            Issue.record("no error in \(report)")
            return
        }
        #expect(error.contains("NUL"))
        #expect(
            try Data(contentsOf: folder.appendingPathComponent("victim.jpg"))
                == Data("keep me".utf8))
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("ok.png").path))
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("b.png").path))
    }

    /// The library refuses a NUL path itself, for reading and for writing.
    @Test func theLibraryRefusesANulPath() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let victim = folder.appendingPathComponent("victim.jpg").path
        #expect(throws: ImagingError.self) { try ImageInput(path: victim + "\0.png") }
        do {
            try AtomicFile.write([1, 2, 3], to: victim + "\0.png", replacing: true)
            Issue.record("a NUL path was written")
        } catch {
            #expect("\(error)".contains("NUL"))
            #expect("\(error)".contains("victim.jpg\\0.png"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("keep me".utf8))
    }

    /// A FIFO as input is refused at once (exit 2, "not a regular file") by
    /// every command that reads images, and by a batch line, whose batch then
    /// goes on to its next line; no writer ever opens the FIFO.
    @Test func aFIFOAsInputIsRefusedAtOnce() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("pipe.png").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for arguments in [
            ["info", fifo], ["leaks", fifo],
            [
                "crop", fifo, "-o", folder.appendingPathComponent("c.png").path, "--pixels",
                "0,0,4,4",
            ],
        ] {
            let run = cropkit(arguments)
            #expect(run.status == 2, "\(arguments)")
            #expect(run.err.contains("not a regular file"), "\(arguments): \(run.err)")
        }
        let (run, report) = try Self.batch(
            [
                #"{"input":"pipe.png","output":"x.png","pixels":{"x":0,"y":0,"width":4,"height":4}}"#,
                #"{"input":"a.png","output":"y.png","pixels":{"x":0,"y":0,"width":4,"height":4}}"#,
            ], in: folder)
        #expect(run.status == 1)
        #expect(report.count == 2)
        guard case .string(let status)? = report.last?["status"] else { return }
        #expect(status == "written")
        // And a FIFO manifest is refused rather than read twice.
        let manifestFIFO = folder.appendingPathComponent("m.fifo").path
        #expect(mkfifo(manifestFIFO, 0o600) == 0)
        let refused = cropkit("batch", manifestFIFO)
        #expect(refused.status == 64)
        // Refused by what the file is (no open that would wait for a
        // writer): the outcome proves it, not a clock.
        #expect(refused.err.contains("not a regular file"))
    }

    /// Unknown, repeated, mistyped and misplaced members fail the line,
    /// naming the member; nothing is written for it.
    @Test(arguments: [
        (#""angel":3"#, "angel"), (#""circle":"yes""#, "circle"), (#""circle":1"#, "circle"),
        (#""inside":"true","aspect":"1:1""#, "inside"), (#""quality":80"#, "quality"),
        (#""width":true"#, "width"), (#""orientation":"6""#, "orientation"),
        (#""output":"z.png""#, "output"),
        (#""pixels":{"x":0,"y":0,"width":8,"height":8,"w":2}"#, "pixels.w"),
        (#""variants":[{"output":"v.png","variants":[{"output":"w.png"}]}]"#, "variants"),
        (
            ##""variants":[{"output":"v.png","pixels":{"x":0,"y":0,"width":8,"height":8},"fil":"#fff"}]"##,
            "fil"
        ),
        (#""variants":[]"#, "variants"),
    ])
    func badMembersFailTheLineNamingThem(member: String, name: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let line =
            #"{"input":"a.png","output":"z.png","#
            + (member.contains("\"pixels\":{\"x\":0,\"y\":0,\"width\":8,\"height\":8,")
                ? "" : #""pixels":{"x":0,"y":0,"width":8,"height":8},"#)
            + member + "}"
        let (run, report) = try Self.batch([line], in: folder)
        #expect(run.status == 1, "\(line)")
        guard case .string(let error)? = report.first?["error"] else {
            Issue.record("\(line): no error in \(report)")
            return
        }
        #expect(error.contains("\"\(name)\""), "\(line): \(error)")
        for file in ["z.png", "v.png", "w.png"] {
            #expect(
                !FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path))
        }
    }

    /// The members the help lists are all accepted.
    @Test func everyDocumentedMemberIsAccepted() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (run, report) = try Self.batch(
            [
                #"{"input":"a.png","output":"a1.png","format":"png","viewport":{"width":64,"height":48},"selection":{"x":0,"y":0,"width":32,"height":32},"mode":"aspectFit","imageScale":1,"zoom":{"scale":1,"offset":{"x":0,"y":0}},"orientation":1,"aspect":"1:1"}"#,
                #"{"input":"a.png","output":"a2.png","angle":2,"inside":true,"aspect":"4:3","width":20,"filter":"bilinear","circle":true}"#,
                ##"{"input":"a.png","fill":"#ffffff","angle":"3","variants":[{"output":"a3.png","pixels":{"x":0,"y":0,"width":20,"height":20},"size":"10x10"},{"output":"a4.png","pixels":{"x":0,"y":0,"width":20,"height":20},"height":8}]}"##,
            ], in: folder)
        #expect(run.status == 0, "\(report)")
        for file in ["a1.png", "a2.png", "a3.png", "a4.png"] {
            #expect(
                FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path))
        }
    }

    /// An option that governs the one decode (limits, inflater, leniency) or
    /// the whole run is refused after an -o, instead of silently applying to
    /// none of the outputs (or to the first alone).
    @Test(arguments: [
        ["--max-memory", "8M"], ["--max-pixels", "10"], ["--inflater", "zlib"], ["--lenient"],
        ["--json"], ["--force"],
    ])
    func runOptionsAfterAnOutputAreUsageErrors(option: [String]) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = folder.appendingPathComponent("a.png").path
        for position in [0, 1] {
            var arguments = ["crop", a, "-o", folder.appendingPathComponent("v1.png").path]
            if position == 0 { arguments += option }
            arguments += [
                "--pixels", "0,0,8,8", "-o", folder.appendingPathComponent("v2.png").path,
            ]
            if position == 1 { arguments += option }
            arguments += ["--pixels", "0,0,4,4"]
            let run = cropkit(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.err.contains("before the first -o"), "\(run.err)")
        }
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("v1.png").path))
        // Before the first -o it applies: --max-pixels 10 refuses the decode.
        if option.first == "--max-pixels" {
            let run = cropkit(
                ["crop", a] + option + [
                    "-o", folder.appendingPathComponent("v1.png").path, "--pixels", "0,0,8,8", "-o",
                    folder.appendingPathComponent("v2.png").path, "--pixels", "0,0,4,4",
                ])
            #expect(run.status == 2)
            #expect(run.err.contains("max-pixels"))
        }
    }

    /// Variants are capped (--max-variants, 64 by default) and counted
    /// against the memory budget together, in crop and in batch.
    @Test func variantsAreCappedAndCountedTogether() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = folder.appendingPathComponent("a.png").path
        func outputs(_ count: Int) -> [String] {
            (0..<count).flatMap {
                ["-o", folder.appendingPathComponent("v\($0).png").path, "--pixels", "0,0,8,8"]
            }
        }
        let many = cropkit(["crop", a] + outputs(65))
        #expect(many.status == 64)
        #expect(many.err.contains("--max-variants 64"))
        let capped = cropkit(["crop", a, "--max-variants", "3"] + outputs(4))
        #expect(capped.status == 64)
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("v0.png").path))
        // Ten together need more than 600 KiB beside the program's 30 MiB
        // (30720 KiB); one alone does not.
        let budget = cropkit(["crop", a, "--max-memory", "31320K"] + outputs(10))
        #expect(budget.status == 2)
        #expect(budget.err.contains("variants"), "\(budget.err)")
        #expect(cropkit(["crop", a, "--max-memory", "31320K"] + outputs(1)).status == 0)
        #expect(cropkit(["crop", a, "--force"] + outputs(3)).status == 0)
        let variants = (0..<5).map {
            #"{"output":"b\#($0).png","pixels":{"x":0,"y":0,"width":8,"height":8}}"#
        }
        let line = #"{"input":"a.png","variants":["# + variants.joined(separator: ",") + "]}"
        let (run, report) = try Self.batch([line], in: folder, ["--max-variants", "4"])
        #expect(run.status == 1)
        guard case .string(let error)? = report.first?["error"] else { return }
        #expect(error.contains("--max-variants 4"))
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("b0.png").path))
    }
}
