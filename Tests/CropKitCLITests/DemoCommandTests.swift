import CropKitTestSupport
import Foundation
import Testing

@Suite struct DemoCommandTests {}

extension DemoCommandTests {
    /// The main job end to end, into its own folder; a second run replaces it;
    /// a folder it did not make is refused.
    @Test func demoWritesItsFolderAndOnlyItsFolder() throws {
        let parent = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = parent.appendingPathComponent("demo").path
        let first = cropkit("demo", "--output", folder)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("exports and checks: 7 passed, 0 failed"))
        #expect(first.out.contains("-> pixels 1000,500,2000,2000"))
        #expect(first.out.contains("the article's Double code: 2,500,2001,2000"))
        #expect(first.out.contains("CropKit (exact):           2,500,2000,2000"))
        #expect(first.out.contains("no pixels (noImagePixels)"))
        for name in [
            "report.html", "records.jsonl", "replayed.jsonl", "diagrams/01.svg",
            "exports/line-1.png", ".cropkit-demo",
        ] {
            #expect(FileManager.default.fileExists(atPath: folder + "/" + name), "\(name)")
        }
        let second = cropkit("demo", "--output", folder)
        #expect(second.status == 0)
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
