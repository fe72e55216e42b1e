import CropKitTestSupport
import Foundation
import Testing

/// Every Swift example in the README, in the DocC catalogs and in doc
/// comments is type-checked against the modules this test run built, so an
/// example that no longer compiles fails the tests instead of a reader.
@Suite(
    .announcesSkips,
    .enabled(
        if: Typechecker.modulesFolder != nil && Typechecker.swiftc != nil,
        "no swiftc or no built modules next to the test binary"))
struct DocumentationExamplesTests {
    /// The repository's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// One fenced example: where it is and its code.
    struct Example: CustomTestStringConvertible, Sendable {
        var file: String
        var line: Int
        var code: String
        var testDescription: String { "\(file):\(line)" }
    }

    /// The ```swift blocks of Markdown text, or of the `///` lines of Swift
    /// source when `docComments` (the `///` and the space after it removed).
    static func examples(in text: String, file: String, docComments: Bool) -> [Example] {
        var found: [Example] = []
        var current: [String]?
        var start = 0
        for (index, rawLine) in text.components(separatedBy: "\n").enumerated() {
            var line = rawLine
            if docComments {
                let trimmed = line.drop(while: { $0 == " " })
                guard trimmed.hasPrefix("///") else {
                    current = nil
                    continue
                }
                line = String(trimmed.dropFirst(3))
                if line.hasPrefix(" ") { line.removeFirst() }
            }
            let fence = line.trimmingCharacters(in: .whitespaces)
            if current == nil, fence == "```swift" {
                current = []
                start = index + 2
            } else if current != nil, fence == "```" {
                found.append(
                    Example(file: file, line: start, code: current!.joined(separator: "\n")))
                current = nil
            } else if current != nil {
                current!.append(line)
            }
        }
        return found
    }

    /// The examples of the README, the catalogs' articles and the sources.
    static let all: [Example] = {
        let files = FileManager.default
        var found: [Example] = []
        func read(_ relative: String, docComments: Bool) {
            let url = root.appendingPathComponent(relative)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { return }
            found += examples(in: text, file: relative, docComments: docComments)
        }
        read("README.md", docComments: false)
        let sources = root.appendingPathComponent("Sources")
        let walker = files.enumerator(atPath: sources.path)
        while let path = walker?.nextObject() as? String {
            if path.hasSuffix(".md") && path.contains(".docc/") {
                read("Sources/" + path, docComments: false)
            } else if path.hasSuffix(".swift") {
                read("Sources/" + path, docComments: true)
            }
        }
        return found.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
    }()

    @Test func theDocumentsHaveExamples() {
        // The README's library section and each catalog's landing page at least.
        #expect(Self.all.filter { $0.file == "README.md" }.count >= 3)
        for catalog in ["CropGeometry", "CropRecords", "CropTestKit", "CropImaging"] {
            #expect(
                Self.all.contains { $0.file.hasPrefix("Sources/\(catalog)/\(catalog).docc/") },
                "\(catalog)'s catalog has no example")
        }
        #expect(Self.all.contains { $0.file.hasSuffix("CropSession.swift") })
    }

    @Test(arguments: all)
    func exampleCompiles(_ example: Example) throws {
        let result = try Typechecker.typecheck(
            "import CropGeometry\nimport CropRecords\nimport CropImaging\nimport CropTestKit\n"
                + "import Foundation\n"
                + example.code)
        #expect(result.status == 0, "\(example.file):\(example.line)\n\(result.output)")
    }

    /// The harness itself: a broken example fails.
    @Test func aBrokenExampleFails() throws {
        let result = try Typechecker.typecheck(
            "import CropGeometry\nlet rect = Rect<ViewPoints>(x: 0, y: 0, width: 1, height: 1)\n_ = crop(rect)"
        )
        #expect(result.status != 0)
        #expect(result.output.contains("cannot find 'crop' in scope"))
    }
}

extension Typechecker {
    /// Type-checks `source` as a program's main file against every library
    /// module of this build (the C modules behind CropImaging included).
    static func typecheck(_ source: String) throws -> (status: Int32, output: String) {
        let modules = try #require(modulesFolder)
        let swiftc = try #require(swiftc)
        let root = DocumentationExamplesTests.root
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cropkit-example-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("main.swift")
        try source.write(to: file, atomically: true, encoding: .utf8)
        let shims = modules.deletingLastPathComponent().appendingPathComponent(
            "CImagingShims.build/module.modulemap")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: swiftc)
        process.arguments = [
            "-typecheck", "-I", modules.path,
            "-Xcc", "-fmodule-map-file=\(shims.path)",
            "-Xcc", "-I\(root.path)/Sources/CImagingShims/include",
            "-I", "\(root.path)/Sources/CPNG", "-I", "\(root.path)/Sources/CZlib",
            "-I", "\(root.path)/Sources/CJPEG",
            "-module-cache-path", moduleCache.path, file.path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(
            decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// One module cache for the run's type-checks, so the C modules are
    /// built once.
    static let moduleCache: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cropkit-example-module-cache")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()
}
