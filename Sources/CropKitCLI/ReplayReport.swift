import CropGeometry
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
            <title>\(escape(title))</title>
            <style>
            body { font-family: -apple-system, Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
            h1 { font-size: 20px; } .summary { margin-bottom: 16px; }
            table { border-collapse: collapse; width: 100%; }
            td, th { border-top: 1px solid #ddd; padding: 8px; vertical-align: top; text-align: left; }
            .pass { color: #1a7f37; font-weight: bold; } .fail { color: #c62828; font-weight: bold; }
            code { font-size: 12px; word-break: break-all; } svg { max-width: 360px; height: auto; }
            img { max-width: 240px; max-height: 240px; image-rendering: pixelated; border: 1px solid #ccc; }
            </style></head><body>
            <h1>\(escape(title))</h1>
            <p class="summary"><span class="pass">\(passed) passed</span>, <span class="fail">\(failed) failed</span>\(omitted)</p>
            <table><tr><th>line</th><th>record and outcome</th><th>diagram</th><th>export</th></tr>

            """
        for row in rows {
            let verdict =
                row.passed
                ? "<span class=\"pass\">passed</span>" : "<span class=\"fail\">failed</span>"
            let problems = row.problems.map { "<br>" + escape($0) }.joined()
            let thumbnail =
                row.thumbnail.map {
                    "<img alt=\"export of line \(row.line)\" src=\"data:image/png;base64,\($0.base64EncodedString())\">"
                } ?? ""
            out += """
                <tr id="line-\(row.line)"><td>\(row.line)</td><td>\(verdict)\(problems)<br><code>\(escape(row.record))</code><br>\(escape(row.outcome))</td><td>\(row.svg ?? "")</td><td>\(thumbnail)</td></tr>

                """
        }
        out += "</table></body></html>\n"
        return out
    }

    private var omitted: String {
        guard omittedPassed + omittedFailed > 0 else { return "" }
        return " (rows not shown: \(omittedPassed) passed, \(omittedFailed) failed)"
    }
}

func escape(_ text: String) -> String { CropDiagram.escape(text) }
