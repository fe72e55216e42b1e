import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// A report names what the written file holds in the file's own terms:
/// every metadata block it says is kept or rewritten is a block of the
/// output's format ("EXIF chunk" in a WebP, "APP1 EXIF" in a JPEG, "Exif
/// item" in a HEIF or AVIF), and the EXIF, XMP and colour profile the
/// output holds, read back, are exactly those it names. A JPEG's JFIF
/// header said "kept" in a WebP's report before, and a HEIC's "Exif item"
/// in a JPEG's.
@Suite(.announcesSkips, .enabled(if: TestData.isPresent, Comment(rawValue: TestData.absent)))
struct ReportVocabularyTests {
    static let sources = [
        "camera/canon_t3i.jpg", "camera/iphone14promax_p3_hdrgainmap.jpg",
        "camera/samsung_galaxys_orient6_gps.jpg", "heif/pillow-heif/arrow.heic",
        "webp/generated/coords_exif6_icc_xmp_97x61_lossless.webp",
        "avif/generated/coords_xmp_97x61_lossless.avif",
        "avif/generated/coords_icc_displayp3_97x61_lossless.avif",
    ]

    /// The names a kept or rewritten block may have in each output format.
    static let vocabulary: [String: [String]] = [
        "webp": ["EXIF chunk", "XMP chunk", "ICCP chunk"],
        "avif": ["Exif item", "XMP item", "colr ICC", "colr nclx"],
        "heic": ["Exif item", "XMP item", "colr ICC", "colr nclx"],
        "jpg": ["APP", "COM"],
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        var source: String
        var output: String
        var options: [String]
        var testDescription: String { "\(source) \(options.joined(separator: " ")) -> .\(output)" }
    }

    static let cases: [Case] = sources.flatMap { source in
        let outputs =
            (RuntimeLibrary.libwebp.isAvailable ? ["webp"] : [])
            + (HEIFEncoder.canEncodeTiles ? ["avif"] : []) + ["jpg"]
            + (source.hasSuffix(".heic") ? ["heic"] : [])
        return outputs.flatMap { output in
            [
                Case(source: source, output: output, options: ["--pixels", "3,5,41,37"]),
                Case(
                    source: source, output: output,
                    options: ["--pixels", "0,0,40,40", "--width", "20"]),
            ].filter { output != "heic" || !$0.options.contains("--width") }
        }
    }

    @Test(arguments: cases)
    func theReportNamesWhatTheFileHolds(_ c: Case) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.\(c.output)").path
        let run = cropkit(["crop", TestData.path(c.source), "--json", "-o", output] + c.options)
        #expect(run.status == 0, "\(run.err)")
        guard run.status == 0 else { return }
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        for problem in try Self.disagreements(report, output: output, label: "\(c)") {
            Issue.record(Comment(rawValue: problem))
        }
    }

    /// The names a kept or rewritten block may have in each output format,
    /// by the format's report name.
    static let vocabularyByFormat: [String: [String]] = [
        "webp": vocabulary["webp"]!, "avif": vocabulary["avif"]!, "heic": vocabulary["heic"]!,
        "jpeg": vocabulary["jpg"]!, "png": ["eXIf chunk", "iTXt XMP chunk", "iCCP chunk"],
    ]

    /// Where the `crop --json` report of `output` says something its file
    /// does not hold: a block named that is not one of the output format's,
    /// EXIF, XMP or a profile held but not named or named but not held, a
    /// WebP chunk named that is not in the file, a copy strategy that
    /// copied nothing or a pixel strategy that copied something.
    static func disagreements(_ report: [String: Any], output: String, label: String) throws
        -> [String]
    {
        var found: [String] = []
        let written = try #require(report["written"] as? [String: Any])
        let format = try #require(written["format"] as? String)
        let facts = written[format] as? [String: Any] ?? [:]
        let entries = written["metadata"] as? [[String: Any]] ?? []
        let present = entries.filter { ($0["action"] as? String) != "dropped" }
            .compactMap { $0["segment"] as? String }
        let names = try #require(vocabularyByFormat[format], "no vocabulary for \(format)")
        for name in present where !names.contains(where: { name.hasPrefix($0) }) {
            found.append("\(label): '\(name)' is not a block of a \(format)")
        }
        // What the file holds, read back, against what the report names. A
        // PNG crop of a PNG carries its chunks as they are and names none.
        let info = try #require(
            try JSONSerialization.jsonObject(with: Data(cropkit("info", "--json", output).out.utf8))
                as? [String: Any])
        let native = format == "png" && entries.isEmpty
        func named(_ prefixes: [String]) -> Bool {
            present.contains { name in prefixes.contains { name.hasPrefix($0) } }
        }
        let held: [(String, Bool, [String])] = [
            (
                "EXIF", info["exifTags"] is [String: Any],
                ["EXIF chunk", "Exif item", "APP1 EXIF", "eXIf chunk"]
            ),
            (
                "XMP", (info["xmpPackets"] as? Int ?? 0) > 0,
                ["XMP chunk", "XMP item", "APP1 XMP", "iTXt XMP chunk"]
            ),
            (
                "profile", !(info["profile"] is NSNull) && info["profile"] != nil,
                ["ICCP chunk", "colr ICC", "APP2 ICC_PROFILE", "iCCP chunk"]
            ),
        ]
        for (what, holds, prefixes) in held where !native && holds != named(prefixes) {
            found.append("\(label): the file holds \(what) \(holds), the report names \(present)")
        }
        if format == "webp" {
            let chunks = (facts["chunks"] as? [String] ?? []).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            for name in present
            where !chunks.contains(name.prefix(4).trimmingCharacters(in: .whitespaces)) {
                found.append("\(label): \(name) is not in the chunks \(chunks)")
            }
        }
        if let strategy = report["strategy"] as? String {
            let copied =
                (facts["copiedTiles"] as? Int).map { $0 > 0 }
                ?? ((facts["method"] as? String ?? "reencoded") != "reencoded")
            let copies = strategy.hasPrefix("tileCopy") || strategy.hasPrefix("coefficientCopy")
            if copies != copied {
                found.append("\(label): strategy \(strategy), but \(facts)")
            }
        }
        return found
    }

    /// Every crop of the fixed command corpus (`scripts/corpus`: every
    /// source and output format, plain, lossless, off the grid, resized,
    /// turned, circled), its report read back against its file.
    @Test(.enabled(if: CropKitBinary.path != nil, "no cropkit binary beside the tests"))
    func everyReportOfTheCommandCorpusIsTrue() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let corpus = Process()
        corpus.executableURL = URL(fileURLWithPath: "/bin/bash")
        corpus.arguments = [
            root.appendingPathComponent("scripts/corpus").path, try #require(CropKitBinary.path),
            folder.path, TestData.path(""),
        ]
        corpus.standardOutput = FileHandle.nullDevice
        corpus.standardError = FileHandle.nullDevice
        try corpus.run()
        corpus.waitUntilExit()
        let reports = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        #expect(reports.count >= 80, "\(reports.count) reports")
        var problems: [String] = []
        var texts: [String] = []
        for name in reports {
            let text = try String(
                contentsOfFile: folder.appendingPathComponent(name).path, encoding: .utf8)
            texts.append(text.trimmingCharacters(in: .whitespacesAndNewlines))
            guard
                let report = try JSONSerialization.jsonObject(with: Data(text.utf8))
                    as? [String: Any]
            else { continue }
            let output = folder.appendingPathComponent(String(name.dropLast(".json".count))).path
            problems += try Self.disagreements(report, output: output, label: name)
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        // Every report is typed as the published schema says.
        try SchemaTests.expect("crop-report", accepts: texts, refuses: [])
    }

    /// The plan's strategy is what the writer did: a tile or coefficient
    /// copy copied something, pixels copied nothing. The JSON strategy of
    /// a HEIC crop inside one tile said "tileCopy" while its report said no
    /// tile was copied.
    @Test(arguments: [
        ("heif/libvips/apple-heic-gainmap.heic", "1000,1000,1200,900", "heic"),
        ("heif/libvips/apple-heic-gainmap.heic", "0,0,1024,1024", "heic"),
        ("heif/pillow-heif/arrow.heic", "100,200,500,400", "heic"),
        ("heif/pillow-heif/arrow.heic", "0,0,1200,1100", "heic"),
        ("heif/generated/coords_1001x777_grid512_lossless.heic", "600,500,300,200", "heic"),
        ("avif/generated/coords_grid2x2_1024x784_lossless.avif", "0,0,512,392", "avif"),
        ("avif/generated/coords_grid2x2_1024x784_lossless.avif", "100,100,700,500", "avif"),
        ("avif/generated/coords_grid2x2_1024x784_lossless.avif", "3,5,41,37", "avif"),
        ("camera/canon_t3i.jpg", "16,16,64,64", "jpg"),
        ("camera/canon_t3i.jpg", "3,5,41,37", "jpg"),
    ])
    func theStrategyIsWhatWasDone(source: String, rect: String, output: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.\(output)").path
        let run = cropkit("crop", TestData.path(source), "--pixels", rect, "-o", path, "--json")
        #expect(run.status == 0, "\(run.err)")
        guard run.status == 0 else { return }
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        let strategy = try #require((report["strategy"] as? [String: Any])?["kind"] as? String)
        let written = try #require(report["written"] as? [String: Any])
        let facts = try #require(written[written["format"] as? String ?? ""] as? [String: Any])
        let copied: Bool
        if let tiles = facts["copiedTiles"] as? Int {
            copied = tiles > 0
        } else {
            copied = (facts["method"] as? String ?? "reencoded") != "reencoded"
        }
        let copies = strategy.hasPrefix("tileCopy") || strategy.hasPrefix("coefficientCopy")
        #expect(copies == copied, "\(source) \(rect): strategy \(strategy), \(facts)")
    }
}
