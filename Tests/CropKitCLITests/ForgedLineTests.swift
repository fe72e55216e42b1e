import CropImaging
import CropKitCLI
import CropKitTestSupport
import Foundation
import Testing

/// Hostile input, round five, class 4: a file's name or what a file says
/// cannot forge a line of a text report. Every C0 and C1 control, line feed
/// and tab included, is escaped inside a field (a path, a tag, an error's
/// sentence), and so are the Unicode line and paragraph separators and the
/// bidirectional controls (decided: `\u2028`, `\u202e`), in `info`,
/// `leaks`, `crop` and the error messages.
@Suite(.announcesSkips) struct ForgedLineTests {
    /// A name that, printed as it is, ends its line and starts one that
    /// says a file is clean; then a line separator and a right-to-left
    /// override.
    static let forger =
        "x\nFAKE: clean.webp: clean\r\u{85}FAKE\u{2028}FAKE\u{2029}\u{202E}gnp\u{2066}\t.png"

    /// The labels `info` starts its lines with.
    static let infoLabels = [
        "== ", "format", "stored", "oriented", "orientation", "colour", "profile", "interlaced",
        "chunks", "dropped", "frame", "sampling", "EXIF tags", "location", "places",
        "XMP packets", "embedded", "people", "warning: ",
    ]

    /// The characters that must never reach a text stream as they are.
    static func unsafe(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && value != 10) || (0x7F...0x9F).contains(value)
            || [0x061C, 0x200E, 0x200F, 0x2028, 0x2029].contains(value)
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    /// Every line of `run`'s output and errors starts as one of `starts`,
    /// and nothing in it is unsafe.
    static func expectNoForgedLine(
        _ run: Run, _ starts: [String], _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for line in (run.out + run.err).split(separator: "\n") {
            #expect(
                starts.contains { line.hasPrefix($0) }, "\(what): a line of its own: \(line)",
                sourceLocation: sourceLocation)
            #expect(!line.hasPrefix("FAKE"), "\(what): \(line)", sourceLocation: sourceLocation)
        }
        let bad = (run.out + run.err).unicodeScalars.filter(unsafe)
        #expect(bad.isEmpty, "\(what): \(bad.map(\.value))", sourceLocation: sourceLocation)
    }

    @Test func aFileNameStartsNoLine() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pixels = try PNGEncoder().encode(Fixture.make(.coordinates, width: 32, height: 24))
        let source = folder.appendingPathComponent(Self.forger).path
        try Data(pixels).write(to: URL(fileURLWithPath: source))
        let output = folder.appendingPathComponent("out " + Self.forger).path
        let runs: [(String, Run, [String])] = [
            ("info", cropkit("info", source, source), Self.infoLabels),
            ("leaks", cropkit("leaks", source), ["/"]),
            (
                "crop", cropkit("crop", source, "--pixels", "0,0,8,8", "-o", output),
                ["wrote /", "  "]
            ),
            (
                "crop over an output", cropkit("crop", source, "--pixels", "0,0,8,8", "-o", output),
                ["error: "]
            ),
            ("a missing file", cropkit("info", source + "missing"), ["error: "]),
            ("leaks of a missing file", cropkit("leaks", source + "missing"), ["error: "]),
        ]
        for (what, run, starts) in runs {
            Self.expectNoForgedLine(run, starts, what)
        }
        // Escaped as exiftool's -ec would, and said once.
        let leaks = cropkit("leaks", source)
        #expect(
            leaks.out
                == "\(folder.path)/x\\nFAKE: clean.webp: clean\\r\\u0085FAKE\\u2028FAKE\\u2029\\u202egnp\\u2066\\t.png: clean\n",
            "\(leaks.out)")
        // JSON keeps the name, escaped its own way, and reads back to it.
        let json = cropkit("leaks", source, "--json")
        let object = try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any]
        #expect(object?["file"] as? String == source)
    }

    /// A manifest names its files in JSON, where a line feed is `\n`: a
    /// batch's failure lines and a merge's summary keep each name on its
    /// line.
    @Test func aManifestsNamesStartNoLine() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func at(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let missing = #"x\nFAKE: line 9: written\u2028.png"#
        let manifest =
            #"{"input":"\#(missing)","output":"o.png","pixels":{"x":0,"y":0,"width":8,"height":8}}"#
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: at("m.jsonl")))
        let run = cropkit("batch", at("m.jsonl"), "--report", at("r.jsonl"))
        #expect(run.status == 1, "\(run.err)")
        Self.expectNoForgedLine(run, ["line 1: failed: ", "batch: "], "batch")
        // The merged report on standard output is JSON, escaped its own
        // way (a U+2028 inside a JSON string is JSON); its summary is text.
        var merge = cropkit("batch", at("m.jsonl"), "--merge", at("r.jsonl"))
        #expect(merge.out.split(separator: "\n").allSatisfy { $0.hasPrefix("{") }, "\(merge.out)")
        merge.out = ""
        Self.expectNoForgedLine(merge, ["merge: "], "merge")
    }

    /// What a file says (a profile's name, a WebP chunk's FourCC) is a
    /// field too.
    @Test func whatAFileSaysStartsNoLine() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let profile = HostileRoundFourTests.iccProfile(named: "sRGB\nFAKE: x.jpg: clean\u{2028}")
        let segment = SyntheticJPEG.segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + profile)
        let jpeg = SyntheticJPEG.inserting(
            [segment, SyntheticJPEG.segment(0xEC, Array("Hostile\nFAKE\0".utf8))],
            into: SyntheticJPEG.baselineGray(width: 32, height: 32))
        let source = folder.appendingPathComponent("named.jpg").path
        try Data(jpeg).write(to: URL(fileURLWithPath: source))
        let info = cropkit("info", source)
        Self.expectNoForgedLine(
            info, Self.infoLabels, "info")
        #expect(info.out.contains("profile      sRGB\\nFAKE: x.jpg: clean\\u2028\n"), "\(info.out)")
        let output = folder.appendingPathComponent("out.png").path
        let crop = cropkit("crop", source, "--pixels", "0,0,8,8", "-o", output)
        #expect(crop.status == 0, "\(crop.err)")
        Self.expectNoForgedLine(crop, ["wrote /", "  "], "crop")
    }

    /// The escaping itself, over every kind of character it decides on.
    @Test func theFieldEscapingIsExiftoolsAndMore() {
        #expect(printable(field: "a\nb\tc\rd\0e\u{1B}f\u{7F}") == "a\\nb\\tc\\rd\\0e\\x1bf\\x7f")
        #expect(
            printable(
                field:
                    "\u{85}\u{9F}\u{2028}\u{2029}\u{202A}\u{202E}\u{2066}\u{2069}\u{200E}\u{200F}\u{061C}"
            )
                == "\\u0085\\u009f\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069\\u200e\\u200f\\u061c")
        // A whole text keeps its own lines and tabs; accents and other
        // scripts pass as they are.
        #expect(printable("é\nß\tλ 写真 \u{2028}") == "é\nß\tλ 写真 \\u2028")
        #expect(printable(field: "Ünïcödé фото") == "Ünïcödé фото")
    }
}
