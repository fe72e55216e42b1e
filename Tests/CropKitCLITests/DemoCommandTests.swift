import CropGeometry
import CropImaging
import CropKitCLI
import CropKitTestSupport
import CropRecords
import Foundation
import Testing

@Suite(.announcesSkips) struct DemoCommandTests {
    /// The demo's cases with photos `factor` times smaller each way: the
    /// same scenarios, quicker to export.
    static func cases(shrunkBy factor: Double) -> [DemoCase] {
        CropKitTool.demoCases.map { demoCase in
            var smaller = demoCase
            smaller.request.sourceSize = Size(
                width: (demoCase.request.sourceSize.width / factor).rounded(.up),
                height: (demoCase.request.sourceSize.height / factor).rounded(.up))
            return smaller
        }
    }
}

extension DemoCommandTests {
    /// The main job end to end, into its own folder; a second run replaces it;
    /// a folder it did not make is refused.
    ///
    /// The cases are the real ones at a tenth of their size (the full-size
    /// demo runs once in CI, from the release build).
    @Test func demoWritesItsFolderAndOnlyItsFolder() throws {
        let parent = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = parent.appendingPathComponent("demo").path
        let small = Self.cases(shrunkBy: 10)
        let out = FlushRecorder()
        let err = StringSink()
        let status = CropKitTool.demo(small, in: folder, console: Console(out: out, err: err))
        let first = (status: status, out: out.text, err: err.text)
        Self.expectEachCaseFlushedAsItEnds(small, out)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("exports and checks: 7 passed, 0 failed"))
        #expect(first.out.contains("-> pixels 100,50,200,200"))
        // Each case names the four checks and their results.
        #expect(
            first.out.components(
                separatedBy:
                    "checks: size ok, corner markers ok, no transparency ok, coordinates ok"
            ).count == 7)
        #expect(first.out.contains("the article's Double code: 2,500,2001,2000"))
        #expect(first.out.contains("CropKit (exact):           2,500,2000,2000"))
        #expect(first.out.contains("no pixels (noImagePixels)"))
        // The JPEG case: lossless, orientation kept, leaks removed.
        #expect(first.out.contains("stored 256,192,512,384: lossless"))
        #expect(first.out.contains("dropped APP2 MPF"))
        #expect(
            first.out.contains(
                "a JPEG crop of a phone photo: lossless, 2 segment(s) dropped, leaks 11 -> 0"))
        // The HEIC case: tiles copied or fixed, the orientation kept, leaks
        // removed (where libheif can encode; else it says it was skipped).
        if HEIFDecoder.libheifVersion != nil && HEIFEncoder.canEncodeTiles {
            #expect(first.out.contains("irot 270"))
            #expect(first.out.contains("none encoded: lossless"))
            #expect(first.out.contains("dropped thumbnail item"))
            #expect(
                first.out.contains(
                    "a HEIC crop of an iPhone-like photo: 1 tile(s) copied, 8 encoded again, leaks 7 -> 0"
                ))
            #expect(FileManager.default.fileExists(atPath: folder + "/crop.heic"))
            let report = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
            #expect(report.contains("An iPhone photo's crop that stays HEIC"))
        } else {
            #expect(first.out.contains("skipped: libheif"))
        }
        // The straightened case: both crops checked on the coordinates
        // fixture, the inside one without fill; the variants at their sizes.
        #expect(
            first.out.contains(
                "the photo straightened by 3.5 degrees: 6/6 checks, the inside crop has no fill"))
        #expect(
            first.out.contains("three variants from one decode: 270x270, 270x338, 270x152"))
        for name in [
            "report.html", "records.jsonl", "replayed.jsonl", "diagrams/01.svg",
            "exports/line-1.png", ".cropkit-demo", "photo.jpg", "crop.jpg",
            "straightened-whole.png", "straightened-inside.png", "variant-4x5.jpg",
        ] {
            #expect(FileManager.default.fileExists(atPath: folder + "/" + name), "\(name)")
        }
        // The report tells the scenario, names the four checks with each
        // result, shows each crop beside its diagram, and ends with the
        // Double case.
        let report = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(report.contains("<title>CropKit demo: which pixels a selection covers, exactly"))
        #expect(report.contains("A person looks at a 400&times;300 photo shown <b>aspect-fit</b>"))
        for check in [
            "(a) the exported size equals the mapping: <span class=\"pass\">passed</span>",
            "(b) each corner marker appears only where the crop overlaps it: <span class=\"pass\">passed</span>",
            "(c) no pixel is transparent (no added border): <span class=\"pass\">passed</span>",
            "(d) every pixel is the right source pixel: <span class=\"pass\">passed</span>",
        ] {
            #expect(report.components(separatedBy: check).count == 7, "\(check)")
        }
        #expect(report.components(separatedBy: "<img alt=\"export of line").count == 7)
        #expect(report.contains("<h2>the article's scenario (centre selection)</h2>"))
        #expect(report.contains("Where plain Double arithmetic adds a pixel"))
        #expect(report.contains("A JPEG crop that stays JPEG, and leaks nothing"))
        // Each case links to the playground with its record, which opens there.
        let links = report.components(separatedBy: "href=\"http://localhost:8000/?record=")
            .dropFirst()
        #expect(links.count >= 6)
        if let first = links.first?.prefix(while: { $0 != "\"" }) {
            let record = try #require(String(first).removingPercentEncoding)
            #expect(try CropRecord(jsonLine: record).request.sourceSize.width > 0)
        }
        #expect(report.contains("scripts/playground"))
        // Each colour of the legend is shown, not only named; the demo
        // photo says it is synthetic; and every caption of the straightened
        // diagram fits inside it (one line across was clipped).
        #expect(report.components(separatedBy: "<span style=\"display:inline-block").count == 6)
        #expect(report.contains("The photo is synthetic, made by the demo"))
        let turned = try #require(
            report.components(separatedBy: "<svg").first { $0.contains("the photo, turned 3.5") })
        let width = try #require(
            Int(turned.components(separatedBy: "width=\"")[1].prefix { $0.isNumber }))
        for text in turned.components(separatedBy: "<text x=\"").dropFirst() {
            let x = try #require(Int(text.prefix { $0.isNumber }))
            let words = text.components(separatedBy: ">")[1].components(separatedBy: "<")[0]
            // An 11-pixel sans-serif letter is at most about 7 pixels wide.
            #expect(x + words.count * 7 <= width, "'\(words)' at \(x) in a \(width)-wide drawing")
        }
        #expect(report.contains("src=\"data:image/jpeg;base64,"))
        #expect(report.contains("<b>2,500,2001,2000</b>; CropKit gives <b>2,500,2000,2000</b>"))
        #expect(report.contains("name=\"viewport\" content=\"width=device-width"))
        // A second run starts by emptying the first one's folder (what it
        // then writes is the run above: a second whole demo cost 6 s).
        let mine = folder + "/notes.txt"
        try Data("the demo's folder".utf8).write(to: URL(fileURLWithPath: mine))
        #expect(CropKitTool.prepareDemoFolder(folder, console: Console(out: out, err: err)) == nil)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(left == [".cropkit-demo", "diagrams", "exports"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/exports").isEmpty)
        let foreign = parent.appendingPathComponent("mine")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: foreign.appendingPathComponent("notes.txt"))
        let refused = cropkit("demo", "--output", foreign.path)
        #expect(refused.status == 64)
        #expect(
            try String(contentsOf: foreign.appendingPathComponent("notes.txt"), encoding: .utf8)
                == "keep me")
    }
}

/// Text that remembers what had been written at each flush.
final class FlushRecorder: TextSink {
    var text = ""
    var flushedAt: [String] = []
    func write(_ text: String) { self.text += text }
    func flush() { flushedAt.append(text) }
}

extension DemoCommandTests {
    /// The demo says what it is doing as it goes: each case's lines are
    /// handed on (flushed) as soon as the case is done, not all at the end.
    /// Checked on the run of ``demoWritesItsFolderAndOnlyItsFolder()``: a
    /// demo run of its own cost the suite 8 s in a debug build.
    static func expectEachCaseFlushedAsItEnds(_ cases: [DemoCase], _ out: FlushRecorder) {
        #expect(out.flushedAt.first?.hasPrefix("CropKit demo:") == true)
        for (index, demoCase) in cases.enumerated() {
            let number = String(format: "%02d", index + 1)
            // Flushed after the case's heading, before the next case starts.
            // The next case's heading starts a line.
            let next = "\n" + String(format: "%02d ", index + 2)
            let flushed = out.flushedAt.filter {
                $0.contains("\(number) \(demoCase.title)") && !$0.contains(next)
            }
            #expect(!flushed.isEmpty, "case \(number) is held back")
        }
    }
}
