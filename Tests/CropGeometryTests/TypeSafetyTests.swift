import CropKitTestSupport
import Foundation
import Testing

/// Mixing coordinate spaces must not compile. Each snippet is type-checked
/// against the CropGeometry module this test run built; a control snippet
/// that must compile proves the harness itself works.
@Suite(
    .announcesSkips,
    .enabled(
        if: Typechecker.modulesFolder != nil && Typechecker.swiftc != nil,
        "no swiftc or no built CropGeometry module next to the test binary"))
struct TypeSafetyTests {
    static let header = "import CropGeometry\n"

    static let mustCompile = """
        let pixels = Rect<ImagePixels>(x: 0.5, y: 0, width: 1, height: 1).roundedOutward()
        let view = Rect<ViewPoints>(x: 0, y: 0, width: 1, height: 1)
        let request = CropRequest(
            sourceSize: Size(width: 4, height: 3), viewport: Size(width: 4, height: 3), selection: view)
        let vector: Vector<ViewPoints> = Point<ViewPoints>(x: 1, y: 1) - view.origin
        """

    static let mustNotCompile: [(String, String)] = [
        (
            "rounding a view rect to pixels",
            "_ = Rect<ViewPoints>(x: 0, y: 0, width: 1, height: 1).roundedOutward()"
        ),
        (
            "a view rect where pixels are expected",
            "func f(_ r: Rect<ImagePixels>) {}\nf(Rect<ViewPoints>(x: 0, y: 0, width: 1, height: 1))"
        ),
        (
            "subtracting points of different spaces",
            "_ = Point<ViewPoints>(x: 0, y: 0) - Point<ImagePixels>(x: 0, y: 0)"
        ),
        (
            "a pixel rect as the selection",
            "_ = CropRequest(sourceSize: Size(width: 4, height: 3), viewport: Size(width: 4, height: 3), selection: Rect<ImagePixels>(x: 0, y: 0, width: 1, height: 1))"
        ),
        (
            "an oriented rect where a stored rect is expected",
            "func g(_ r: PixelRect<StoredPixels>) {}\ng(PixelRect<ImagePixels>(x: 0, y: 0, width: 1, height: 1))"
        ),
    ]

    func typecheck(_ body: String) throws -> (status: Int32, output: String) {
        try Typechecker.typecheck(Self.header + body + "\n")
    }

    @Test func correctUseCompiles() throws {
        let result = try typecheck(Self.mustCompile)
        #expect(result.status == 0, "\(result.output)")
    }

    @Test(arguments: mustNotCompile)
    func mixingSpacesDoesNotCompile(what: String, body: String) throws {
        let result = try typecheck(body)
        #expect(result.status != 0, "\(what) compiled")
        #expect(result.output.contains("error:"), "\(what): \(result.output)")
    }
}

/// Where the compiler and the built modules are, for type-checking snippets.
enum Typechecker {
    /// The folder holding CropGeometry.swiftmodule, next to the test bundle.
    static var modulesFolder: URL? {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("Modules")
            if FileManager.default.fileExists(
                atPath: candidate.appendingPathComponent("CropGeometry.swiftmodule").path)
            {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    static var swiftc: String? {
        let candidates =
            ["/opt/swift/usr/bin/swiftc", "/usr/bin/swiftc"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map {
                "\($0)/swiftc"
            }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
