import CropImaging
import CropKitTestSupport
import Foundation
import Testing

/// Hostile input, round five, class 6: `batch --merge` trusts no shard
/// report. Each output it counts done must exist with the size in bytes the
/// report gives and a header that reads as the reported format and pixel
/// size; an output replaced by as many zero bytes, by a file of another
/// format or by one of another size, all the same length, is counted
/// failed with the reason.
@Suite(.announcesSkips) struct MergeChecksOutputsTests {
    /// `path`'s bytes replaced by `bytes`, cut or padded with zeros to the
    /// length the file had (the size check alone would pass).
    static func replace(_ path: String, with bytes: [UInt8]) throws {
        let count = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        let same = Array(
            (bytes + [UInt8](repeating: 0, count: max(0, count - bytes.count))).prefix(count))
        try Data(same).write(to: URL(fileURLWithPath: path))
    }

    @Test func anOutputReplacedSinceItsReportIsCountedFailed() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func at(_ name: String) -> String { folder.appendingPathComponent(name).path }
        #expect(cropkit("fixture", "64x48", "-o", at("a.png")).status == 0)
        let manifest = [
            #"{"input":"a.png","output":"zeroed.png","pixels":{"x":0,"y":0,"width":16,"height":16}}"#,
            #"{"input":"a.png","output":"other-format.jpg","pixels":{"x":0,"y":0,"width":48,"height":40}}"#,
            #"{"input":"a.png","output":"other-size.png","pixels":{"x":0,"y":0,"width":32,"height":32}}"#,
            #"{"input":"a.png","variants":[{"output":"v1.png","pixels":{"x":0,"y":0,"width":8,"height":8}},{"output":"v2.webp","pixels":{"x":8,"y":8,"width":8,"height":8}}]}"#,
            #"{"input":"a.png","output":"kept.png","pixels":{"x":4,"y":4,"width":8,"height":8}}"#,
            #"{"input":"a.png","output":"skipped.png","pixels":{"x":5,"y":5,"width":9,"height":9}}"#,
        ]
        try Data(manifest.joined(separator: "\n").utf8).write(
            to: URL(fileURLWithPath: at("m.jsonl")))
        #expect(cropkit("batch", at("m.jsonl"), "--report", at("r0.jsonl")).status == 0)
        // What each written line says of its outputs' headers, read back
        // by exiftool: the format and the pixel size.
        if ExifTool.isInstalled {
            let written = try String(contentsOfFile: at("r0.jsonl"), encoding: .utf8)
                .split(separator: "\n")
            var checked = 0
            for line in written {
                let json = try #require(
                    try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let outputs =
                    [json] + ((json["variants"] as? [[String: Any]]) ?? [])
                for said in outputs where said["output"] != nil && said["format"] != nil {
                    let path = try #require(said["output"] as? String)
                    let tags = try ExifTool.tags(path)
                    // "image/png": the format; "48 40": the pixel size.
                    let type = (tags["File:MIMEType"] as? String)?.replacingOccurrences(
                        of: "image/", with: "")
                    #expect(type == said["format"] as? String, "\(path): \(type ?? "?") \(said)")
                    let size = tags["Composite:ImageSize"] as? String
                    #expect(
                        size == "\(said["width"] as? Int ?? -1) \(said["height"] as? Int ?? -1)",
                        "\(path): exiftool reads \(size ?? "?"), the report \(said)")
                    checked += 1
                }
            }
            #expect(checked == 7, "every output of the six lines, two of them variants")
        }
        // A rerun finds every output complete: its report says skipped,
        // with each header as found.
        #expect(cropkit("batch", at("m.jsonl"), "--report", at("r1.jsonl")).status == 0)
        let rerun = try String(contentsOfFile: at("r1.jsonl"), encoding: .utf8)
        #expect(
            rerun.contains(#""status":"skipped""#)
                && rerun.contains(#""format":"png","width":9,"height":9"#), "\(rerun)")
        // Untouched, the merge counts every line done.
        let clean = cropkit(
            "batch", at("m.jsonl"), "--merge", at("r0.jsonl"), "--report", at("merged.jsonl"))
        #expect(clean.status == 0, "\(clean.err)")
        #expect(clean.err.contains("6 done"), "\(clean.err)")
        // Then each replaced by as many bytes of something else.
        try Self.replace(at("zeroed.png"), with: [])
        let otherFormat = try PNGEncoder().encode(Fixture.make(.corners, width: 48, height: 40))
        try Self.replace(at("other-format.jpg"), with: otherFormat)
        let smaller = try PNGEncoder().encode(Fixture.make(.coordinates, width: 31, height: 32))
        try Self.replace(at("other-size.png"), with: smaller)
        try Self.replace(at("v2.webp"), with: [])
        try Self.replace(at("skipped.png"), with: [])
        for report in ["r0.jsonl", "r1.jsonl"] {
            let run = cropkit(
                "batch", at("m.jsonl"), "--merge", at(report), "--report", at("merged.jsonl"))
            #expect(run.status == 1, "\(report): \(run.err)")
            #expect(
                run.err.contains("1 done") && run.err.contains("5 failed"), "\(report): \(run.err)")
            let merged = try String(contentsOfFile: at("merged.jsonl"), encoding: .utf8).split(
                separator: "\n")
            #expect(merged.count == 6)
            guard merged.count == 6 else { continue }
            #expect(merged[0].contains("zeroed.png does not read as an image"), "\(merged[0])")
            #expect(
                merged[1].contains("other-format.jpg reads as png, the report says jpeg"),
                "\(merged[1])")
            #expect(
                merged[2].contains("other-size.png is 31x32, the report says 32x32"), "\(merged[2])"
            )
            #expect(merged[3].contains("v2.webp does not read as an image"), "\(merged[3])")
            #expect(
                merged[4].contains(#""status":"written""#)
                    || merged[4].contains(#""status":"skipped""#), "\(merged[4])")
            #expect(merged[5].contains("skipped.png does not read as an image"), "\(merged[5])")
        }
    }
}
