import CropGeometry
import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// The outcome of decoding every file in testdata/corrupt (an animation
/// cropped whole into its own format), kept as a table
/// in Tests/gauntlet-outcomes.tsv. The test fails when an outcome changes,
/// so the table stays current; regenerate it with
/// `CROPKIT_UPDATE_GAUNTLET=1 swift test --filter GauntletTableTests`.
@Suite(.announcesSkips) struct GauntletTableTests {
    static let table = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("gauntlet-outcomes.tsv")

    static func outcome(_ path: String) -> String {
        do throws(ImagingError) {
            // An animation (GIF, APNG, animated WebP): read with the
            // default limits and cropped whole into its own format in
            // memory, every frame decoded and written.
            if var animated = try AnimatedImage.open(path: path) {
                animated.inflater = .zlib
                let canvas = animated.size
                let report = try animated.crop(
                    PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height),
                    as: animated.animation.format, to: MemorySink())
                return
                    "animation\t\(canvas.width)x\(canvas.height), \(report.frames) frames, \(report.plays) plays, \(report.totalMilliseconds) ms"
            }
            // libpng's inflater, whatever is installed, so the table is the
            // same on every machine (InflaterTests hold ISA-L to the same
            // verdicts).
            var source = try ImageSource.open(path: path)
            source.inflater = .zlib
            let image = try source.decode().image
            return
                "decoded\t\(image.width)x\(image.height) \(image.colorType.name) \(image.bitDepth)-bit"
        } catch {
            // The message without the file's own path, which differs by machine.
            let message = error.description.replacingOccurrences(of: path, with: "FILE")
            return "\(error.code.rawValue)\t\(message)"
        }
    }

    @Test(.enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
    func outcomesMatchTheTable() throws {
        let files = TestData.files(under: "corrupt", extensions: nil)
        #expect(files.count > 1400)
        var lines = [
            "# file\toutcome\tdetail (CropKit's default, strict decode of the whole image; an animation's every frame, cropped whole into its own format)"
        ]
        for file in files { lines.append("\(file)\t\(Self.outcome(TestData.path(file)))") }
        let current = lines.joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["CROPKIT_UPDATE_GAUNTLET"] == "1" {
            try Data(current.utf8).write(to: Self.table)
            print("wrote \(Self.table.path)")
            return
        }
        let recorded = try String(contentsOf: Self.table, encoding: .utf8)
        // Without libheif the HEIF rows that reach a tile differ; they are
        // checked where it is installed (as on every machine of this kind).
        // The same for libwebp and the WebP rows.
        let heifDecodes = HEIFDecoder.libheifVersion != nil
        let webpDecodes = RuntimeLibrary.libwebp.isAvailable
        func rows(_ text: String) -> Set<String> {
            Set(
                text.split(separator: "\n").map(String.init).filter {
                    (heifDecodes || !$0.hasPrefix("corrupt/heif/"))
                        && (webpDecodes || !$0.hasPrefix("corrupt/webp/"))
                })
        }
        let old = rows(recorded)
        let new = rows(current)
        let changed = new.subtracting(old).sorted().prefix(10)
        #expect(
            changed.isEmpty, "outcomes differ from Tests/gauntlet-outcomes.tsv: \(Array(changed))")
        #expect(old.count == new.count)
    }
}
