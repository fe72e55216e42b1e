import CropGeometry
import CropImaging
import CropTestKit
import Foundation

/// The self-contained HTML page of `cropkit replay --report`: one row per
/// record with its numbers, pass or fail, its diagram (inline SVG) and the
/// export's thumbnail (an inline PNG) when there is one. No scripts, no
/// network, no files beside it.
struct ReplayReport {
    struct Row {
        var line: Int
        var record: String
        var outcome: String
        var passed: Bool
        var problems: [String]
        var svg: String?
        var thumbnail: Data?
        /// What the case shows (the demo's cases have one).
        var title: String? = nil
        /// The export checks, each with its result, when the crop was exported.
        var checks: [ExportCheck] = []
    }

    /// HTML shown under the title, before the rows: what the page is about.
    var introduction = ""
    /// HTML shown after the rows.
    var closing = ""

    /// Where the browser playground is served (`scripts/playground`, then
    /// `python3 -m http.server -d .build/playground 8000`): each record
    /// links to it with `?record=`, which opens the record drawn there.
    static let playground = "http://localhost:8000/"

    /// The playground's link for a record line.
    static func playgroundLink(_ record: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let query = record.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return playground + "?record=" + query
    }

    /// All failed rows are kept (up to this many), and the first passed ones.
    static let maximumFailedRows = 2000
    static let maximumPassedRows = 300

    private(set) var rows: [Row] = []
    private(set) var omittedPassed = 0
    private(set) var omittedFailed = 0
    private var passedRows = 0
    private var failedRows = 0

    mutating func add(_ row: Row) {
        if row.passed {
            guard passedRows < Self.maximumPassedRows else {
                omittedPassed += 1
                return
            }
            passedRows += 1
        } else {
            guard failedRows < Self.maximumFailedRows else {
                omittedFailed += 1
                return
            }
            failedRows += 1
        }
        rows.append(row)
    }

    func html(title: String, passed: Int, failed: Int) -> String {
        var out = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <style>
            body { font-family: -apple-system, Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
            h1 { font-size: 20px; } .summary { margin-bottom: 16px; }
            table { border-collapse: collapse; width: 100%; }
            td, th { border-top: 1px solid #ddd; padding: 8px; vertical-align: top; text-align: left; }
            .pass { color: #1a7f37; font-weight: bold; } .fail { color: #c62828; font-weight: bold; }
            code { font-size: 12px; word-break: break-all; } svg { max-width: 360px; height: auto; }
            img { max-width: 240px; max-height: 240px; image-rendering: pixelated; border: 1px solid #ccc; }
            .intro { max-width: 760px; line-height: 1.45; } h2 { font-size: 16px; margin: 4px 0; }
            ul.checks { margin: 6px 0; padding-left: 18px; } ul.checks li { margin: 2px 0; }
            .figure { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
            @media (max-width: 640px) {
              body { margin: 12px; } th { display: none; }
              table, tbody, tr, td { display: block; width: auto; } tr { border-top: 2px solid #bbb; }
              td { border: none; padding: 4px 0; } svg { max-width: 100%; }
            }
            </style></head><body>
            <h1>\(escape(title))</h1>
            <div class="intro">\(introduction)</div>
            <p class="summary"><span class="pass">\(passed) passed</span>, <span class="fail">\(failed) failed</span>\(omitted)</p>
            <table><tr><th>line</th><th>record and outcome</th><th>diagram</th><th>export</th></tr>

            """
        for row in rows {
            let verdict =
                row.passed
                ? "<span class=\"pass\">passed</span>" : "<span class=\"fail\">failed</span>"
            let problems = row.problems.filter { !$0.hasPrefix("export check ") }
                .map { "<br>" + escape($0) }.joined()
            let heading = row.title.map { "<h2>\(escape($0))</h2>" } ?? ""
            let checks =
                row.checks.isEmpty
                ? ""
                : "<ul class=\"checks\">"
                    + row.checks.map { check in
                        let mark =
                            check.passed
                            ? "<span class=\"pass\">passed</span>"
                            : "<span class=\"fail\">failed</span>"
                        return
                            "<li>\(escape(Self.checkTitles[check.name] ?? check.name)): \(mark) <small>\(escape(check.detail))</small></li>"
                    }.joined() + "</ul>"
            let thumbnail =
                row.thumbnail.map {
                    "<img alt=\"export of line \(row.line)\" src=\"data:image/\(Self.mediaType(of: $0));base64,\($0.base64EncodedString())\">"
                } ?? ""
            out += """
                <tr id="line-\(row.line)"><td>\(row.line)</td><td>\(heading)\(verdict)\(problems)\(checks.isEmpty ? "<br>" : checks)<code>\(escape(row.record))</code><br>\(escape(row.outcome))\(row.record.hasPrefix("{") ? " <a class=\"playground\" href=\"\(escape(Self.playgroundLink(row.record)))\">open in the playground</a>" : "")</td><td>\(row.svg ?? "")</td><td>\(thumbnail)</td></tr>

                """
        }
        out += "</table>\n\(closing)\(Self.playgroundNote)</body></html>\n"
        return out
    }

    /// How to open the rows' playground links.
    static let playgroundNote = """
        <p class="intro">Each record's <b>open in the playground</b> link draws it in the
        browser playground, where the selection can be dragged and the numbers change as it
        moves: the same mapping, compiled to WebAssembly. Build and serve it from the
        repository with <code>scripts/playground</code> and
        <code>python3 -m http.server -d .build/playground 8000</code>.</p>

        """

    /// Each export check's name, said as what it checks.
    /// The media type's subtype of an exported image, read by the format
    /// registry's readers ("png", "jpeg", "webp", "avif", "heif").
    static func mediaType(of bytes: Data) -> String {
        ImageFormat(signature: bytes.prefix(ImageFormat.signatureLength))?.rawValue ?? "png"
    }

    static let checkTitles = [
        "size": "(a) the exported size equals the mapping",
        "corner markers": "(b) each corner marker appears only where the crop overlaps it",
        "no transparency": "(c) no pixel is transparent (no added border)",
        "coordinates": "(d) every pixel is the right source pixel",
    ]

    private var omitted: String {
        guard omittedPassed + omittedFailed > 0 else { return "" }
        return " (rows not shown: \(omittedPassed) passed, \(omittedFailed) failed)"
    }
}

func escape(_ text: String) -> String { CropDiagram.escape(text) }
