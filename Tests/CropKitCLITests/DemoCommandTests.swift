import CropGeometry
import CropKitCLI
import CropKitTestSupport
import Foundation
import Testing

@Suite struct DemoCommandTests {}

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
        let small = CropKitTool.demoCases.map { demoCase in
            var smaller = demoCase
            smaller.request.sourceSize = Size(
                width: (demoCase.request.sourceSize.width / 10).rounded(.up),
                height: (demoCase.request.sourceSize.height / 10).rounded(.up))
            return smaller
        }
        let out = StringSink()
        let err = StringSink()
        let status = CropKitTool.demo(small, in: folder, console: Console(out: out, err: err))
        let first = (status: status, out: out.text, err: err.text)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("exports and checks: 7 passed, 0 failed"))
        #expect(first.out.contains("-> pixels 100,50,200,200"))
        #expect(first.out.contains("the article's Double code: 2,500,2001,2000"))
        #expect(first.out.contains("CropKit (exact):           2,500,2000,2000"))
        #expect(first.out.contains("no pixels (noImagePixels)"))
        for name in [
            "report.html", "records.jsonl", "replayed.jsonl", "diagrams/01.svg",
            "exports/line-1.png", ".cropkit-demo",
        ] {
            #expect(FileManager.default.fileExists(atPath: folder + "/" + name), "\(name)")
        }
        let second = CropKitTool.demo(small, in: folder, console: Console(out: out, err: err))
        #expect(second == 0)
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
