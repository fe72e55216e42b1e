import CropImaging
import CropKitCLI
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

/// The published JSON Schemas: the copy `cropkit schema` prints is the file
/// in `Schemas/`, every schema is valid draft 2020-12, and the schemas of
/// what cropkit reads agree with cropkit's own readers on every example in
/// the docs (accepted) and on hostile lines (refused), checked by a real
/// validator (`jsonschema` from PyPI).
@Suite(.announcesSkips) struct SchemaTests {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func printedSchemasAreTheRepositorysFiles() throws {
        let folder = Self.package.appendingPathComponent("Schemas")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".schema.json") }.sorted()
        let names = files.map { String($0.dropLast(".schema.json".count)) }
        let listed = cropkit("schema")
        #expect(listed.status == 0)
        #expect(
            listed.out.split(separator: "\n").map { String($0.split(separator: " ")[0]) } == names)
        for (file, name) in zip(files, names) {
            let text = try String(
                contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let printed = cropkit("schema", name)
            #expect(printed.status == 0)
            #expect(
                printed.out == text,
                "cropkit schema \(name) differs from Schemas/\(file): run scripts/schemas")
            #expect(listed.out.contains(name))
        }
        let wrong = cropkit("schema", "manifest-lines")
        #expect(wrong.status == 64)
        #expect(wrong.err.contains("did you mean 'manifest-line'?"))
    }

    /// Every JSON line in a ```json or ```jsonl block of the README and the
    /// DocC articles, and batch --help's example.
    static func documentedLines() throws -> [String] {
        var documents = [Self.package.appendingPathComponent("README.md")]
        let sources = Self.package.appendingPathComponent("Sources")
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let catalogs = sources.appendingPathComponent(target)
            for catalog in (try? FileManager.default.contentsOfDirectory(atPath: catalogs.path))
                ?? []
            where catalog.hasSuffix(".docc") {
                let folder = catalogs.appendingPathComponent(catalog)
                for article in try FileManager.default.contentsOfDirectory(atPath: folder.path)
                where article.hasSuffix(".md") {
                    documents.append(folder.appendingPathComponent(article))
                }
            }
        }
        var lines: [String] = []
        for document in documents {
            var inJSON = false
            for line in try String(contentsOf: document, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("```") {
                    inJSON = !inJSON && (trimmed == "```json" || trimmed == "```jsonl")
                } else if inJSON && trimmed.hasPrefix("{") {
                    lines.append(trimmed)
                }
            }
        }
        // batch --help's example, its wrapped lines joined.
        let help = cropkit("batch", "--help").out
        let start = try #require(help.range(of: "e.g. {"))
        var depth = 0
        var example = ""
        for character in help[help.index(before: start.upperBound)...] {
            if character == "\n" { continue }
            example.append(character)
            if character == "{" { depth += 1 }
            if character == "}" {
                depth -= 1
                if depth == 0 { break }
            }
        }
        lines.append(example.replacingOccurrences(of: "  ", with: ""))
        return lines
    }

    static func schema(_ name: String) -> String { cropkit("schema", name).out }

    /// Expects the published schema `name`, by a real validator, to accept
    /// every one of `accepted` and refuse every one of `refused`; counts a
    /// skip where the validator is absent.
    static func expect(
        _ name: String, accepts accepted: [String], refuses refused: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        guard TestGate.holds(JSONSchemaCheck.isAvailable, else: JSONSchemaCheck.absent) else {
            return
        }
        let errors = try JSONSchemaCheck.errors(schema: schema(name), instances: accepted + refused)
        for (line, error) in zip(accepted, errors) {
            #expect(
                error == nil, "\(name) refuses \(line): \(error ?? "")",
                sourceLocation: sourceLocation)
        }
        for (line, error) in zip(refused, errors.dropFirst(accepted.count)) {
            #expect(error != nil, "\(name) accepts \(line)", sourceLocation: sourceLocation)
        }
    }

    @Test func manifestSchemaAndBatchAgree() throws {
        let documented = try Self.documentedLines().filter { $0.contains(#""input""#) }
        #expect(documented.count >= 8, "\(documented)")
        let hostile = [
            #"{"input":"a.png","output":"b.png","angel":3}"#,
            #"{"input":"a.png","output":"b.png","circle":"yes"}"#,
            #"{"input":"a.png","variants":[{"output":"b.png","variants":[{"output":"c.png"}]}]}"#,
            #"{"input":"a.png","variants":[]}"#,
            #"{"input":"a\u0000.png","output":"b.png"}"#,
            #"["input","a.png"]"#,
            #"{"input":"a.png","output":"b.png","pixels":{"x":0,"y":0,"width":8,"height":8,"depth":1}}"#,
            #"{"input":"a.png","output":"b.png","zoom":{"scale":2,"offset":{"x":"1","y":0}}}"#,
            #"{"input":"a.png","output":"b.png","frame":"3"}"#,
            #"{"input":5,"output":"b.png"}"#,
            #"{"input":"a.png","variants":[{"output":"b.png","angel":1}]}"#,
            #"{"input":"a.png","output":"b.png","viewport":{"width":10},"selection":{"x":0,"y":0,"width":1,"height":1},"#
                + #""pixels":{"x":0,"y":0,"width":1,"height":"1"}}"#,
        ]
        // cropkit's own check of members, and the batch line it makes.
        for line in documented {
            #expect(ManifestMembers.problem(in: try JSONValue(parsing: line)) == nil, "\(line)")
        }
        for line in hostile {
            let json = try JSONValue(parsing: line)
            #expect(ManifestMembers.problem(in: json) != nil, "cropkit accepts \(line)")
        }
        try Self.expect("manifest-line", accepts: documented, refuses: hostile)
    }

    /// Every line `cases` and `map --json` print, over every category, mode,
    /// orientation and option, validates against the closed test-vector
    /// schema, and is a record `replay` passes.
    @Test func vectorsValidateAndReplay() throws {
        var lines = cropkit(
            "cases", "--count", "400", "--modes", "all", "--orientations", "all", "--zoom",
            "--companions", "--faces", "--seed", "5"
        ).out.split(separator: "\n").map(String.init)
        #expect(lines.count == 400)
        let selection = ["--viewport", "300x300", "--selection", "75,75,150,150"]
        for options in [
            [], ["--orientation", "6", "--block-grid", "16x16", "--companion", "1000x750"],
            ["--angle", "3", "--aspect", "1:1"], ["--angle", "-7.5"],
            ["--zoom", "2", "--offset", "10,5", "--image-scale", "2", "--mode", "aspectFill"],
            ["--aspect", "source", "--mode", "topRight"],
        ] {
            let run = cropkit(["map", "--source", "4000x3000"] + selection + options + ["--json"])
            #expect(run.status == 0, "map \(options): \(run.err)")
            lines.append(run.out.trimmingCharacters(in: .newlines))
        }
        let refused = cropkit(
            "map", "--source", "4000x3000", "--viewport", "300x300", "--selection", "400,400,10,10",
            "--json")
        #expect(refused.status == 1)
        lines.append(refused.out.trimmingCharacters(in: .newlines))
        #expect(lines.count >= 405)
        for line in lines {
            #expect(line.hasPrefix(#"{"schemaVersion":1,"#), "\(line)")
        }
        // Replayed: each is a record whose expected answer the contract gives.
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("vectors.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(
            to: file, atomically: true, encoding: .utf8)
        let replayed = cropkit("replay", file.path)
        #expect(replayed.status == 0, "\(replayed.err)")
        #expect(replayed.err.contains("\(lines.count) passed, 0 failed"), "\(replayed.err)")
        // Closed: a member cropkit does not print is refused.
        let extra = try #require(lines.first).replacingOccurrences(
            of: #"{"schemaVersion":1,"#, with: #"{"schemaVersion":1,"note":"x","#)
        try Self.expect("test-vector", accepts: lines, refuses: [extra])
    }

    /// Every line `verify --json` prints, for every output format, view
    /// option, companion, turned and resized crop and selection without
    /// pixels, validates against the closed verify-line schema, and each
    /// check's `measured` holds the values its sentence states.
    @Test func verifyLinesValidate() throws {
        let view = ["--source", "400x300", "--viewport", "100x100"]
        let selections = [
            "--selection", "10,10,50,50", "--selection", "3,7,33,21", "--selection", "200,200,5,5",
        ]
        var lines: [String] = []
        func run(_ arguments: [String]) {
            let run = cropkit(["verify"] + view + arguments + ["--json"])
            #expect(run.status == 0, "verify \(arguments): \(run.err)")
            lines += run.out.split(separator: "\n").map(String.init)
        }
        for options in [
            [], ["--orientation", "6"], ["--zoom", "2", "--offset", "5,5"],
            ["--mode", "aspectFill", "--image-scale", "2"], ["--aspect", "1:1"],
        ] {
            for format in [[], ["--format", "jpeg"], ["--format", "webp"], ["--format", "avif"]] {
                run(selections + options + format)
            }
        }
        run(["--selection", "10,10,50,50", "--companion", "100x75"])
        run(["--selection", "10,10,50,50", "--selection", "200,200,5,5", "--angle", "3"])
        run(["--selection", "10,10,50,50", "--angle", "0"])
        run(["--selection", "10,10,50,50", "--size", "64x48"])
        #expect(lines.count == 5 * 4 * 3 + 1 + 2 + 1 + 1, "\(lines.count)")
        // The sentence and the values agree: a size check's numbers.
        let first = try JSONValue(parsing: try #require(lines.first))
        let size = try #require(
            first["checks"].flatMap { checks -> JSONValue? in
                guard case .array(let list) = checks else { return nil }
                return list.first { $0["name"] == .string("size") }
            })
        #expect(size["detail"] == .string("exported 200x190, mapped 200x190"))
        #expect(size["measured"]?["exported"]?["width"] == .number(200))
        #expect(size["measured"]?["mapped"]?["height"] == .number(190))
        // A check whose measured values are left out is refused.
        let bare = try #require(lines.first).replacingOccurrences(
            of:
                #","measured":{"exported":{"width":200,"height":190},"mapped":{"width":200,"height":190}}"#,
            with: "")
        #expect(bare != lines.first)
        try Self.expect("verify-line", accepts: lines, refuses: [bare])
    }

    @Test func recordSchemaAndRecordReaderAgree() throws {
        let documented = try Self.documentedLines().filter {
            !$0.contains(#""input""#) && $0.contains(#""viewport""#)
        }
        #expect(documented.count >= 4, "\(documented)")
        // What cropkit itself writes: map --json and a few test vectors.
        let mapped = cropkit(
            "map", "--source", "4032x3024", "--viewport", "390x844", "--selection",
            "20,300,200,150", "--orientation", "6", "--json")
        #expect(mapped.status == 0)
        let vectors = cropkit("cases", "--count", "20").out.split(separator: "\n").map(String.init)
        #expect(vectors.count == 20)
        let accepted = documented + [mapped.out.trimmingCharacters(in: .newlines)] + vectors
        let hostile = [
            #"{"viewport":{"width":300,"height":300},"selection":{"x":0,"y":0,"width":1,"height":1}}"#,
            #"{"source":{"width":"4000","height":3000},"viewport":{"width":300,"height":300},"selection":{"x":0,"y":0,"width":1,"height":1}}"#,
            #"{"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":0,"y":0,"width":1}}"#,
            #"{"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":0,"y":0,"width":1,"height":1},"mode":"fill"}"#,
            #"{"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":0,"y":0,"width":1,"height":1},"aspect":"wide"}"#,
            #"{"source":{"width":4000,"height":3000},"viewport":{"width":300,"height":300},"selection":{"x":0,"y":0,"width":1,"height":1},"expected":{"x":0,"y":0}}"#,
            #"[1,2,3]"#,
        ]
        for line in accepted {
            #expect(throws: Never.self, "\(line)") { _ = try CropRecord(jsonLine: line) }
        }
        for line in hostile {
            #expect(throws: CropRecordError.self, "cropkit reads \(line)") {
                _ = try CropRecord(jsonLine: line)
            }
        }
        try Self.expect("failure-record", accepts: accepted, refuses: hostile)
    }

    /// `info --json` of every image in the corpora, hostile ones included
    /// (their error lines), validates against `info-line`; the old prose
    /// shapes (a canvas as "4032x3024", a companion as a sentence) and a
    /// member the schema does not name are refused.
    /// Every image of the corpora, hostile ones included.
    static func corpusImages() throws -> [String] {
        let extensions: Set<String> = [
            "png", "jpg", "jpeg", "heic", "heif", "avif", "webp", "gif", "mpo", "apng",
        ]
        let root = try #require(TestData.root)
        let folders = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        return folders.flatMap { TestData.files(under: $0, extensions: extensions) }
    }

    /// `cropkit COMMAND --json` of every corpus image, 200 files a run:
    /// one line a file.
    static func corpusLines(_ command: String) throws -> [String] {
        let files = try corpusImages()
        #expect(files.count > 1000, "\(files.count)")
        var lines: [String] = []
        for start in stride(from: 0, to: files.count, by: 200) {
            let batch = files[start..<min(start + 200, files.count)].map(TestData.path)
            let run = cropkit([command, "--json"] + batch)
            #expect([0, 1, 2].contains(run.status), "\(run.err)")
            lines += run.out.split(separator: "\n").map(String.init)
        }
        #expect(lines.count == files.count)
        return lines
    }

    @Test func infoLinesOfTheWholeCorpusValidate() throws {
        guard TestGate.holds(TestData.isPresent, else: TestData.absent) else { return }
        let lines = try Self.corpusLines("info")
        #expect(lines.contains { $0.contains(#""errorCode":"corrupt""#) })
        #expect(lines.contains { $0.contains(#""companions":[{"kind":"gainMap""#) })
        let pug = try #require(lines.first { $0.contains("pillow-heif/pug.heic") })
        let hostile = [
            pug.replacingOccurrences(
                of: #""canvas":{"width":4032,"height":3024}"#, with: #""canvas":"4032x3024""#),
            pug.replacingOccurrences(
                of: #""schemaVersion":1,"#, with: #""schemaVersion":1,"size":7,"#),
            pug.replacingOccurrences(of: #""kind":"gainMap","#, with: ""),
        ]
        #expect(Set(hostile).count == 3 && !hostile.contains(pug))
        let documented = try Self.documentedLines().filter { $0.contains(#""file""#) }
        #expect(documented.count >= 2, "\(documented)")
        try Self.expect("info-line", accepts: documented + lines, refuses: hostile)
    }

    /// `crop --json` of every kind of crop validates against
    /// `crop-report`: still crops into every output format, variants (an
    /// array of reports),
    /// view selections, turned and circled crops, animations cut and
    /// resized into GIF, APNG and WebP. The old prose shapes (a strategy
    /// as "tileCopy 512x512", a tile grid as "1x2 of 512x512") and an
    /// unnamed member are refused. The command corpus's reports are checked
    /// by ReportVocabularyTests.
    @Test func cropReportsValidate() throws {
        guard TestGate.holds(TestData.isPresent, else: TestData.absent) else { return }
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func out(_ name: String) -> String { folder.appendingPathComponent(name).path }
        var lines: [String] = []
        func crop(_ arguments: [String]) {
            let run = cropkit(["crop", "--json", "--force"] + arguments)
            #expect(run.status == 0, "crop \(arguments): \(run.err)")
            lines += run.out.split(separator: "\n").map(String.init)
        }
        let stills = [
            "heif/pillow-heif/pug.heic", "heif/pillow-heif/arrow.heic",
            "hdr/galaxys25ultra_gainmap_tmap.heic", "camera/iphone14promax_p3_hdrgainmap.jpg",
            "camera/samsung_galaxys_orient6_gps.jpg", "pngsuite/generated/coords_rgba8_251x97.png",
            "webp/generated/coords_exif6_icc_xmp_97x61_lossless.webp",
        ]
        for still in stills {
            let input = TestData.path(still)
            let formats = ["jpg", "png", "webp"] + (still.hasSuffix(".heic") ? ["heic"] : [])
            for format in formats {
                crop([input, "-o", out("a.\(format)"), "--pixels", "1,1,40,30"])
            }
            // Variants, turned and circled: on the small images (a turned
            // 12 MP photo reads most of it).
            guard !still.hasSuffix(".heic") else { continue }
            crop([
                input, "-o", out("v1.jpg"), "--pixels", "8,8,32,32", "-o", out("v2.png"),
                "--viewport", "300x300", "--selection", "10,10,100,100", "--aspect", "1:1",
            ])
            crop([input, "-o", out("t.png"), "--angle", "3", "--inside", "--width", "48"])
            crop([input, "-o", out("c.png"), "--pixels", "4,4,40,40", "--circle"])
        }
        for animation in [
            "animated/pillow/iss634.apng", "animated/pillow/dispose_bgnd_transparency.gif",
        ] {
            for format in ["gif", "png", "webp"] {
                crop([TestData.path(animation), "-o", out("m.\(format)"), "--pixels", "1,1,30,20"])
            }
            // Resampled: alpha between 0 and 255, which GIF cannot hold.
            for format in ["png", "webp"] {
                crop([
                    TestData.path(animation), "-o", out("n.\(format)"), "--pixels", "1,1,30,20",
                    "--width", "15",
                ])
            }
        }
        // A still of a GIF's frame names the GIF and the frame as its
        // source (it said "png", the image the frame was decoded into).
        crop([
            TestData.path("animated/pillow/dispose_bgnd_transparency.gif"), "-o", out("f.png"),
            "--pixels", "2,2,20,20", "--frame", "2",
        ])
        let still = try JSONValue(parsing: try #require(lines.last))
        #expect(still["source"]?["format"] == .string("gif"))
        #expect(still["source"]?["frame"] == .number(2))
        // A tile copy and a copy of a JPEG's blocks.
        crop([
            TestData.path("heif/pillow-heif/pug.heic"), "-o", out("g.heic"), "--pixels",
            "0,0,1024,1024",
        ])
        crop([TestData.path("camera/canon_t3i.jpg"), "-o", out("g.jpg"), "--pixels", "16,16,64,64"])
        #expect(lines.count >= 45, "\(lines.count)")
        let tile = try #require(lines.first { $0.contains(#""kind":"tileCopy""#) })
        let hostile = [
            tile.replacingOccurrences(
                of: #""strategy":{"#, with: #""strategy":"tileCopy 512x512","old":{"#),
            tile.replacingOccurrences(
                of: #""schemaVersion":1,"#, with: #""schemaVersion":1,"how":"","#),
            tile.replacingOccurrences(of: #""columns":"#, with: #""cols":"#),
        ]
        #expect(Set(hostile).count == 3 && !hostile.contains(tile))
        try Self.expect("crop-report", accepts: lines, refuses: hostile)
    }

    /// Every kind of batch report line validates against `batch-line`:
    /// written stills, variants, animations and frames; failures of each
    /// code; skipped lines of a rerun; a merge's missing and failed lines.
    /// A failed line without its code, and a member the schema does not
    /// name, are refused.
    @Test func batchLinesValidate() throws {
        guard TestGate.holds(TestData.isPresent, else: TestData.absent) else { return }
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func input(_ name: String) -> String { TestData.path(name) }
        let pug = input("heif/pillow-heif/pug.heic")
        let canon = input("camera/canon_t3i.jpg")
        let apng = input("animated/pillow/iss634.apng")
        let manifest = [
            #"{"input":"\#(pug)","output":"out/a.jpg","pixels":{"x":120,"y":80,"width":1024,"height":768}}"#,
            #"{"input":"\#(pug)","output":"out/b.heic","viewport":{"width":390,"height":844},"selection":{"x":20,"y":300,"width":200,"height":150},"mode":"aspectFill","aspect":"1:1"}"#,
            #"{"input":"\#(input("pngsuite/generated/coords_rgba8_251x97.png"))","output":"out/c.webp","angle":-2.5,"inside":true,"aspect":"4:5","width":60}"#,
            #"{"input":"\#(input("animated/pillow/star.gif"))","output":"out/d.gif","pixels":{"x":1,"y":1,"width":20,"height":20}}"#,
            #"{"input":"\#(apng)","output":"out/e.png","pixels":{"x":8,"y":8,"width":64,"height":64},"frame":3}"#,
            #"{"input":"\#(input("camera/samsung_galaxys_orient6_gps.jpg"))","width":100,"variants":[{"output":"out/f1.jpg","inside":true,"aspect":"1:1"},{"output":"out/f2.jpg","inside":true,"aspect":"4:5"}]}"#,
            #"{"input":"\#(input("corrupt/heif/02_trunc_inside_ftyp.heic"))","output":"out/g.png","pixels":{"x":0,"y":0,"width":6,"height":6}}"#,
            #"{"input":"\#(canon)","output":"out/h.png","pixels":{"x":0,"y":0,"width":60000,"height":60}}"#,
            #"{"input":"\#(canon)","output":"out/i.png","pixels":"oops"}"#,
            #"{"input":"\#(apng)","output":"out/k.jpg","pixels":{"x":8,"y":8,"width":64,"height":64}}"#,
            "not json",
        ]
        let path = folder.appendingPathComponent("m.jsonl").path
        try manifest.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        func batch(_ arguments: [String]) -> [String] {
            let run = cropkit(["batch", path] + arguments)
            #expect(run.status == 1, "\(run.err)")
            return run.out.split(separator: "\n").map(String.init)
        }
        let first = batch([])
        let rerun = batch([])
        let report = folder.appendingPathComponent("shard.jsonl").path
        _ = batch(["--shard", "1/2", "--force", "--report", report])
        let merged = batch(["--merge", report])
        let lines = first + rerun + merged
        #expect(first.count == manifest.count && merged.count == manifest.count)
        for code in ["corrupt", "noPixels", "manifest", "invalidRequest"] {
            #expect(first.contains { $0.contains(#""errorCode":"\#(code)""#) }, "\(code)")
        }
        #expect(rerun.contains { $0.contains(#""status":"skipped""#) })
        #expect(merged.contains { $0.contains(#""status":"missing""#) })
        let failed = try #require(first.first { $0.contains(#""errorCode":"corrupt""#) })
        let written = try #require(first.first { $0.contains(#""status":"written""#) })
        let hostile = [
            failed.replacingOccurrences(of: #","errorCode":"corrupt""#, with: ""),
            written.replacingOccurrences(of: #""line":1,"#, with: #""line":1,"rect":[1,2],"#),
        ]
        #expect(Set(hostile).count == 2 && !hostile.contains(failed) && !hostile.contains(written))
        try Self.expect("batch-line", accepts: lines, refuses: hostile)
    }

    /// `leaks --json` of every image in the corpora validates against
    /// `leaks-line`, its findings of every kind typed (a trailing finding's
    /// bytes, a stale dimension's field, value and expected); a finding
    /// without its kind, or of a kind the schema does not name, is refused.
    @Test func leaksLinesOfTheWholeCorpusValidate() throws {
        guard TestGate.holds(TestData.isPresent, else: TestData.absent) else { return }
        let lines = try Self.corpusLines("leaks")
        for kind in ["embeddedImage", "trailingBytes", "staleDimensions", "hiddenPixels"] {
            #expect(lines.contains { $0.contains(#""kind":"\#(kind)""#) }, "\(kind)")
        }
        #expect(lines.contains { $0.contains(#""errorCode":"#) })
        let stale = try #require(lines.first { $0.contains(#""kind":"staleDimensions""#) })
        let finding = try #require(
            try JSONValue(parsing: stale)["findings"].flatMap { value -> JSONValue? in
                guard case .array(let findings) = value else { return nil }
                return findings.first { $0["kind"] == .string("staleDimensions") }
            })
        #expect(finding["measured"]?["field"] != nil && finding["measured"]?["expected"] != nil)
        let hostile = [
            stale.replacingOccurrences(of: #""kind":"staleDimensions","#, with: ""),
            stale.replacingOccurrences(
                of: #""kind":"staleDimensions""#, with: #""kind":"dimensions""#),
        ]
        #expect(Set(hostile).count == 2 && !hostile.contains(stale))
        try Self.expect("leaks-line", accepts: lines, refuses: hostile)
    }

    /// What `replay` prints validates against `replay-line`: 200 vectors
    /// replayed, a dozen exported and checked as PNG and as JPEG, a
    /// rejected record with an app's result, a failing record, and a line
    /// that is no record.
    @Test func replayLinesValidate() throws {
        let vectors = cropkit("cases", "--count", "200").out
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("vectors.jsonl").path
        try vectors.write(toFile: file, atomically: true, encoding: .utf8)
        // Exported: a dozen whose photo is small (fixtures of 40 MP take a
        // while to make).
        let small = vectors.split(separator: "\n").filter { line in
            guard let source = (try? JSONValue(parsing: String(line)))?["source"],
                case .number(_, let width)? = source["width"],
                case .number(_, let height)? = source["height"]
            else { return false }
            return width * height <= 1_000_000
        }
        let first = small.prefix(12).joined(separator: "\n") + "\n"
        let few = folder.appendingPathComponent("few.jsonl").path
        try first.write(toFile: few, atomically: true, encoding: .utf8)
        var lines = cropkit("replay", file).out.split(separator: "\n").map(String.init)
        for format in ["png", "jpeg"] {
            let run = cropkit(
                "replay", few, "--export", folder.appendingPathComponent(format).path, "--format",
                format)
            #expect(run.status == 0, "\(run.err)")
            lines += run.out.split(separator: "\n").map(String.init)
        }
        let odd = """
            not a record
            {"source":{"width":100,"height":100},"viewport":{"width":10,"height":10},"selection":{"x":50,"y":50,"width":1,"height":1},"result":{"x":1,"y":1,"width":2,"height":2},"expected":null}
            {"source":{"width":100,"height":100},"viewport":{"width":10,"height":10},"selection":{"x":1,"y":1,"width":5,"height":5},"orientation":6,"expected":{"x":0,"y":0,"width":1,"height":1}}

            """
        let oddRun = cropkit(["replay", "-"], input: odd)
        #expect(oddRun.status == 1)
        lines += oddRun.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 200 + 24 + 3, "\(lines.count)")
        #expect(lines.contains { $0.contains(#""export":{"file":"#) })
        let failed = try #require(lines.first { $0.contains(#""check":"failed""#) })
        // Each mismatch as values beside its phrase.
        #expect(
            failed.contains(
                #""differences":[{"field":"x","expected":0,"actual":10,"summary":"x: expected 0, got 10"}"#
            ), "\(failed)")
        let hostile = [
            failed.replacingOccurrences(of: #""check":"failed""#, with: #""check":"maybe""#),
            failed.replacingOccurrences(of: #","mismatches":["#, with: #","notes":["#),
            #"{"line":1,"error":"not JSON","at":3}"#,
            failed.replacingOccurrences(of: #"{"field":"x","#, with: #"{"name":"x","#),
        ]
        #expect(Set(hostile).count == 4 && !hostile.contains(failed))
        try Self.expect("replay-line", accepts: lines, refuses: hostile)
    }
}
