import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// The whole animated corpus against the contract (DESIGN.md, Animated
/// images): every file `EXPECTED.tsv` says to crop exactly, at the whole
/// canvas, an off-grid centre, the bottom-right 3x3 corner and a one-row
/// strip at odd offsets, into GIF, APNG and WebP, read back by a
/// compositor that is not CropKit's (`scripts/animation-check.py`: the
/// GIF and APNG specifications' compositing over frames Pillow decodes,
/// libwebp's for WebP).
@Suite(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct AnimationCorpusTests {
    /// One crop: the source, its rect and the output's format.
    struct Case {
        var source: String
        var rect: PixelRect<StoredPixels>
        var format: ImageFormat
        var lossySource: Bool
    }

    /// The corpus rows to crop exactly, with their canvases and whether
    /// any frame is lossy.
    static func rows() throws -> [(path: String, lossy: Bool)] {
        let table = try String(
            contentsOfFile: TestData.path("animated/EXPECTED.tsv"), encoding: .utf8)
        var rows: [(String, Bool)] = []
        for line in table.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count > 14, fields[14].hasPrefix("crop exactly") else { continue }
            rows.append((String(fields[0]), fields[10] != "yes"))
        }
        return rows
    }

    /// Whether every conversion of the largest files is checked too.
    static let full = ProcessInfo.processInfo.environment["CROPKIT_ANIMATION_FULL"] == "1"

    static func rects(_ size: PixelSize<StoredPixels>) -> [PixelRect<StoredPixels>] {
        let (w, h) = (size.width, size.height)
        guard w > 4, h > 4 else { return [PixelRect(size: size)] }
        return [
            PixelRect(size: size),
            PixelRect(x: w / 4 + 1, y: h / 4 + 1, width: w / 2, height: h / 2 - 1),
            PixelRect(x: w - 3, y: h - 3, width: 3, height: 3),
            PixelRect(x: 1, y: 1, width: w - 2, height: 1),
        ]
    }

    /// Every crop the contract allows is written and equals the source's
    /// displayed canvases cut to the rect, with the same durations and
    /// plays: exactly, or for a lossy WebP frame coded again within a mean
    /// of 1 and a 99th percentile of 4 codes; and `leaks` finds nothing in
    /// it. A crop refused is refused
    /// for a conversion the output cannot hold exactly, and says which.
    @Test func everyFileCropsAsTheContractSays() throws {
        let folder = try TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var list = ""
        var written = 0
        var refusals: [String: Int] = [:]
        let rows = try Self.rows()
        #expect(rows.count >= 85, "the corpus has 90 files to crop exactly")
        for (path, lossy) in rows {
            let source = TestData.path(path)
            let animated = try #require(try AnimatedImage.open(path: source), "\(path)")
            let own = animated.animation.format
            for rect in Self.rects(animated.size) {
                for format in [ImageFormat.gif, .png, .webp] {
                    // A conversion redraws every frame from the canvas, which a
                    // debug build does at a few million pixels a second: the
                    // largest (380 frames of 472x298) is converted at the
                    // corner and the strip here, and at every rect by
                    // CROPKIT_ANIMATION_FULL=1 swift test (or a release build).
                    let work = animated.animation.frames.count * rect.width * rect.height
                    if format != own && work > 4_000_000 && !Self.full { continue }
                    written += 1
                    let output = folder.appendingPathComponent("\(written).\(format.rawValue)")
                        .path
                    do {
                        let report = try animated.write(rect, as: format, to: output)
                        #expect(report.frames == animated.animation.frames.count, "\(path)")
                        #expect(report.plays == animated.animation.plays, "\(path)")
                        let leaks = try LeakCheck.findings(path: output)
                        #expect(leaks.isEmpty, "\(path) \(rect) \(format): \(leaks)")
                        let tolerance = lossy && format == .webp && report.lossyAgain > 0
                        list +=
                            "\(source)\t\(output)\t\(rect.x),\(rect.y),\(rect.width),\(rect.height)\t\(tolerance ? "lossy" : "exact")\n"
                    } catch {
                        let said = "\(error)"
                        let named = [
                            "colours", "partly transparent", "16-bit samples",
                            "not a whole number of", "16-bit fraction",
                        ].first { said.contains($0) }
                        #expect(named != nil, "\(path) \(rect) \(format): refused: \(said)")
                        #expect(!FileManager.default.fileExists(atPath: output))
                        refusals[named ?? said, default: 0] += 1
                    }
                }
            }
        }
        // The refusals are the conversions DESIGN.md names, and the crops
        // into a file's own format are never among them.
        #expect(written - refusals.values.reduce(0, +) >= 1000, "\(refusals)")
        guard
            TestGate.holds(
                Pillow.python != nil, else: "without .build/venv (the independent compositor)"),
            let python = Pillow.python
        else { return }
        let listFile = folder.appendingPathComponent("checks.tsv")
        try list.write(to: listFile, atomically: true, encoding: .utf8)
        let check = Process()
        check.executableURL = URL(fileURLWithPath: python)
        check.arguments = [
            TestData.repositoryPath("scripts/animation-check.py"), "--list", listFile.path,
        ]
        let pipe = Pipe()
        check.standardOutput = pipe
        try check.run()
        let said = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        let lines = said.split(separator: "\n")
        let cases = list.split(separator: "\n")
        #expect(lines.count == cases.count)
        for (line, item) in zip(lines, cases) where !line.hasPrefix("ok ") {
            Issue.record("\(item): \(line)")
        }
    }
}
