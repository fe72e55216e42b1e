import CropGeometry
import CropImaging
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

@Suite(.announcesSkips) struct BatchCommandTests {
    static func manifest(in folder: URL) throws -> (path: String, lines: Int) {
        #expect(
            cropkit("fixture", "400x300", "-o", folder.appendingPathComponent("a.png").path).status
                == 0)
        var lines: [String] = []
        for i in 0..<14 {
            if i % 2 == 0 {
                lines.append(
                    #"{"input":"a.png","output":"out/p\#(i).png","pixels":{"x":\#(i),"y":\#(i),"width":50,"height":40}}"#
                )
            } else {
                lines.append(
                    #"{"input":"a.png","output":"out/v\#(i).png","viewport":{"width":300,"height":300},"selection":{"x":\#(10 * i),"y":80,"width":100,"height":90},"aspect":"1:1"}"#
                )
            }
        }
        lines.insert(
            #"{"input":"missing.png","output":"out/never.png","pixels":{"x":0,"y":0,"width":1,"height":1}}"#,
            at: 5)
        lines.insert("", at: 3)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("manifest.jsonl").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
        return (path, 15)
    }

    /// Four shards together do every line exactly once.
    @Test func fourShardsDoEveryLineExactlyOnce() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (manifest, count) = try Self.manifest(in: folder)
        var seen: [Int: Int] = [:]
        for shard in 0..<4 {
            let report = folder.appendingPathComponent("report-\(shard).jsonl").path
            let run = cropkit("batch", manifest, "--shard", "\(shard)/4", "--report", report)
            #expect(run.err.contains("shard \(shard)/4"))
            for line in try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n") {
                let json = try JSONValue(parsing: String(line))
                guard case .number(_, let number)? = json["line"] else { continue }
                seen[Int(number), default: 0] += 1
            }
        }
        #expect(seen.count == count)
        #expect(seen.values.allSatisfy { $0 == 1 })
        let outputs = try FileManager.default.contentsOfDirectory(
            atPath: folder.appendingPathComponent("out").path)
        #expect(outputs.count == count - 1)
        // Square ratio asked, square crops came out.
        let square = try PNGDecoder.decode(path: folder.appendingPathComponent("out/v1.png").path)
        #expect(square.width == square.height)
        let pixels = try PNGDecoder.decode(path: folder.appendingPathComponent("out/p4.png").path)
        #expect(
            pixels
                == Fixture.corners(width: 400, height: 300).cropped(
                    to: PixelRect(x: 4, y: 4, width: 50, height: 40)))
    }

    /// A rerun skips what is complete; --force redoes it; a bad line fails
    /// the batch without stopping it.
    @Test func rerunsSkipCompleteOutputs() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (manifest, _) = try Self.manifest(in: folder)
        let first = cropkit("batch", manifest, "--jobs", "3")
        #expect(first.status == 1)
        #expect(first.err.contains("batch: 14 written, 0 skipped (already complete), 1 failed"))
        let failure = try #require(
            first.out.split(separator: "\n").first { $0.contains("missing.png") })
        #expect(failure.contains("\"status\":\"failed\""))
        let second = cropkit("batch", manifest)
        #expect(second.err.contains("0 written, 14 skipped"))
        let forced = cropkit("batch", manifest, "--force")
        #expect(forced.err.contains("14 written, 0 skipped"))
        #expect(cropkit("batch", manifest, "--shard", "4/4").status == 64)
        #expect(cropkit("batch", folder.appendingPathComponent("nope.jsonl").path).status == 2)
    }
}

extension BatchCommandTests {
    /// An output folder that does not exist yet is made.
    @Test func missingOutputFoldersAreCreated() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(
            cropkit("fixture", "40x30", "-o", folder.appendingPathComponent("a.png").path).status
                == 0)
        let manifest = folder.appendingPathComponent("m.jsonl").path
        try Data(
            #"{"input":"a.png","output":"new/deeper/c.png","pixels":{"x":1,"y":2,"width":5,"height":4}}"#
                .utf8
        ).write(to: URL(fileURLWithPath: manifest))
        let run = cropkit("batch", manifest)
        #expect(run.status == 0, "\(run.out)")
        let crop = try PNGDecoder.decode(
            path: folder.appendingPathComponent("new/deeper/c.png").path)
        #expect(crop.width == 5 && crop.height == 4)
    }
}

extension BatchCommandTests {
    /// A manifest that would lose work is refused whole, before the first
    /// crop, with the lines named: two lines with one output, an output that
    /// is an input, a report that is the manifest or an input, and a line
    /// that is not UTF-8 (two such paths once became one).
    @Test func manifestsThatWouldLoseWorkAreRefusedWhole() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(
            cropkit("fixture", "40x30", "-o", folder.appendingPathComponent("a.png").path).status
                == 0)
        let manifest = folder.appendingPathComponent("m.jsonl")
        func line(_ input: String, _ output: String) -> String {
            #"{"input":"\#(input)","output":"\#(output)","pixels":{"x":0,"y":0,"width":4,"height":4}}"#
        }
        func run(_ lines: [String], _ extra: [String] = []) throws -> Run {
            try Data(lines.joined(separator: "\n").utf8).write(to: manifest)
            return cropkit(["batch", manifest.path] + extra)
        }
        let twice = try run([
            line("a.png", "b.png"), line("a.png", "c.png"), line("a.png", "./b.png"),
        ])
        #expect(twice.status == 2)
        #expect(twice.err.contains("lines 1 and 3 both write"), "\(twice.err)")
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("c.png").path))
        let overInput = try run([line("a.png", "b.png"), line("b.png", "a.png")])
        #expect(overInput.status == 2)
        #expect(overInput.err.contains("line 1 writes"), "\(overInput.err)")
        #expect(overInput.err.contains("the input of line 2"))
        let intoManifest = try run([line("a.png", "b.png")], ["--report", manifest.path])
        #expect(intoManifest.status == 2)
        #expect(intoManifest.err.contains("is the manifest itself"))
        #expect(try String(contentsOf: manifest, encoding: .utf8) == line("a.png", "b.png"))
        let intoInput = try run(
            [line("a.png", "b.png")], ["--report", folder.appendingPathComponent("a.png").path])
        #expect(intoInput.status == 2)
        #expect(intoInput.err.contains("is the input of line 1"))
        var bytes = Array(line("u\u{1}.png", "x.png").utf8)
        if let mark = bytes.firstIndex(of: 1) { bytes[mark] = 0xFF }
        try Data(bytes).write(to: manifest)
        let notUTF8 = cropkit("batch", manifest.path)
        #expect(notUTF8.status == 2)
        #expect(notUTF8.err.contains("binary data at byte 11 (0xFF, not UTF-8 text)"))
        // The same lines without the conflicts run.
        #expect(try run([line("a.png", "b.png"), line("a.png", "c.png")]).status == 0)
    }

    /// With --root, a line whose input or output resolves outside the folder
    /// (by "..", an absolute path, or a symbolic link inside it that points
    /// out) fails, and nothing is read or written for it; the lines inside
    /// are cropped.
    @Test func rootConfinesEveryPath() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("root")
        let outside = folder.appendingPathComponent("outside")
        for made in [root, outside] {
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
        }
        #expect(
            cropkit("fixture", "40x30", "-o", root.appendingPathComponent("a.png").path).status == 0
        )
        #expect(
            cropkit("fixture", "40x30", "-o", outside.appendingPathComponent("b.png").path).status
                == 0)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("link.png").path,
            withDestinationPath: outside.appendingPathComponent("b.png").path)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("away").path, withDestinationPath: outside.path)
        let pixels = #""pixels":{"x":0,"y":0,"width":4,"height":3}"#
        let lines = [
            #"{"input":"a.png","output":"out/inside.png",\#(pixels)}"#,
            #"{"input":"a.png","output":"../outside/dots.png",\#(pixels)}"#,
            #"{"input":"link.png","output":"out/linked.png",\#(pixels)}"#,
            #"{"input":"a.png","output":"away/through-link.png",\#(pixels)}"#,
            #"{"input":"\#(outside.path)/b.png","output":"out/absolute.png",\#(pixels)}"#,
        ]
        let manifest = root.appendingPathComponent("manifest.jsonl").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: manifest))
        let run = cropkit("batch", manifest, "--root", root.path)
        #expect(run.status == 1)
        let statuses = run.out.split(separator: "\n").map { line in
            line.contains(#""status":"written""#)
                ? "written" : line.contains("outside --root") ? "outside" : "?"
        }
        #expect(statuses == ["written", "outside", "outside", "outside", "outside"], "\(run.out)")
        #expect(
            FileManager.default.fileExists(
                atPath: root.appendingPathComponent("out/inside.png").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["b.png"])
        // Without --root the same manifest reaches out.
        #expect(cropkit("batch", manifest).status == 0)
        #expect(
            cropkit("batch", manifest, "--root", folder.appendingPathComponent("none").path).status
                == 64)
    }

    /// A line with "variants" writes each variant as a line of its own
    /// would, from one decode; turned and resized members read as crop's
    /// options; a bad member names itself.
    @Test func variantsAndResizingOnManifestLines() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(
            cropkit("fixture", "400x300", "-o", folder.appendingPathComponent("in.png").path)
                .status == 0)
        let manifest = folder.appendingPathComponent("m.jsonl")
        try """
        {"input":"in.png","width":100,"variants":[{"output":"v/square.png","inside":true,"aspect":"1:1"},{"output":"v/wide.png","inside":true,"aspect":"16:9","angle":2}]}
        {"input":"in.png","output":"v/turned.png","pixels":{"x":0,"y":0,"width":40,"height":40},"angle":-5,"size":"20x10"}
        {"input":"in.png","output":"v/bad.png","pixels":{"x":0,"y":0,"width":40,"height":40},"size":"0x10"}
        {"input":"in.png","output":"v/same.png","inside":true,"aspect":"16:9","angle":2,"width":100}

        """.write(to: manifest, atomically: true, encoding: .utf8)
        let run = cropkit("batch", manifest.path, "--jobs", "1")
        #expect(run.status == 1, "\(run.err)")
        let lines = run.out.split(separator: "\n").map { try? JSONValue(parsing: String($0)) }
        #expect(lines[0]?["status"] == .string("written"))
        #expect(lines[1]?["outputRect"]?["width"] == .number(40))
        #expect(lines[2]?["status"] == .string("failed"))
        #expect(lines[2]?["error"].map { "\($0)".contains("size") } == true)
        func image(_ name: String) throws -> RasterImage {
            try PNGDecoder.decode(path: folder.appendingPathComponent("v/" + name).path)
        }
        #expect(try image("square.png").width == 100 && image("square.png").height == 100)
        #expect(try image("turned.png").width == 20 && image("turned.png").height == 10)
        // A variant is the line it would be on its own.
        #expect(try image("wide.png") == image("same.png"))
    }
}
