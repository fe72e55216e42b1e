import CropGeometry
import CropImaging
import CropRecords
import CropTestKit

/// `cropkit grade`: an app's answers to test vectors, graded.
struct GradeCommand: Subcommand {
    static let name = "grade"
    static let summary = "grade an app's answers (records with \"result\") against the contract"
    static let usage = """
        Usage: cropkit grade ANSWERS.jsonl [--failures FILE.jsonl] [--shrink FILE.jsonl]

        Reads records that carry an app's answer under "result" (an object
        x, y, width, height in pixels of the image as seen, optionally with
        "stored"; or null for "refused"), typically the vectors of 'cropkit
        cases' answered by the app; - reads standard input. For each, the
        contract's answer is computed (a record's own "expected" is not
        trusted), and a table says, per "category", how many passed and
        failed.

        --failures writes each failing record with "expected" set to the
        contract's answer, so that 'cropkit replay FILE' checks it from then
        on. --shrink writes, for each category, its smallest failing record
        (fewest digits, then the smallest photo and view): the one to paste
        into a bug report. (The Swift kit, CropTestKit, shrinks further: it
        can call the app's function again.) Both are written atomically.

        Keys: "result" is what the app computed; "expected" is what the
        contract says it should be (as map's JSON output and 'cropkit cases'
        print it). Exit 0 when every answer is right, 1 when any is
        wrong, 2 when a line cannot be read.
        """
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "failures", value: "FILE",
            help: "write each failing record, with the contract's \"expected\", here"),
        OptionSpec(
            name: "shrink", value: "FILE",
            help: "write each category's smallest failing record here"),
    ]

    var path: String
    var failuresPath: String?
    var shrinkPath: String?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.count == 1 else {
            throw UsageError(
                message: parsed.positionals.isEmpty
                    ? "give the answers file (JSON Lines; - for standard input)"
                    : "one answers file, not \(parsed.positionals.count)")
        }
        path = parsed.positionals[0]
        failuresPath = parsed.values["failures"]
        shrinkPath = parsed.values["shrink"]
    }

    func run(console: Console) -> Int32 {
        guard let reader = console.lines(of: path) else { return ExitCode.badInput }
        for output in [failuresPath, shrinkPath].compactMap({ $0 })
        where path != "-" && AtomicFile.isSameFile(output, path) {
            console.err.write("error: '\(field: output)' is the answers file; write elsewhere\n")
            return ExitCode.usage
        }
        // Failures are written as they are found (a file of a million wrong
        // answers is not held), into a temporary renamed at the end.
        let failures: AtomicFile.Writer?
        do throws(ImagingError) {
            failures = try failuresPath.map { path throws(ImagingError) in
                try AtomicFile.Writer(path: path, replacing: true)
            }
        } catch {
            console.err.write("error: \(field: error.commandLineMessage)\n")
            return error.exitCode
        }
        var pending: [UInt8] = []
        var rows: [(category: String, passed: Int, failed: Int)] = []
        var smallest: [String: (size: [Double], line: String)] = [:]
        var lineNumber = 0
        while let line = reader.nextLine() {
            lineNumber += 1
            if line.allSatisfy(\.isWhitespace) { continue }
            let graded: GradedAnswer
            do throws(CropRecordError) {
                graded = try CropGrader.grade(CropRecord(jsonLine: line))
            } catch {
                console.err.write("error: \(field: path):\(field: lineNumber): \(field: error)\n")
                return ExitCode.badInput
            }
            // An app names its categories: at most 200 rows of 64 characters.
            var category = String(graded.category.prefix(64))
            if rows.count >= Self.maximumCategories
                && !rows.contains(where: { $0.category == category })
            {
                category = "(other categories)"
            }
            let index =
                rows.firstIndex { $0.category == category }
                ?? {
                    rows.append((category, 0, 0))
                    return rows.count - 1
                }()
            if graded.passed {
                rows[index].passed += 1
                continue
            }
            rows[index].failed += 1
            let failureLine = graded.failureLine
            if let failures {
                pending += failureLine.utf8
                pending.append(0x0A)
                if pending.count >= 1 << 16 {
                    do throws(ImagingError) {
                        try failures.write(pending[...])
                    } catch {
                        console.err.write("error: \(field: error.commandLineMessage)\n")
                        return error.exitCode
                    }
                    pending.removeAll(keepingCapacity: true)
                }
            }
            if rows[index].failed <= 3 {
                console.err.write(
                    "line \(lineNumber) (\(field: category)): \(field: graded.mismatches.joined(separator: "; "))\n"
                )
            }
            let size = Self.size(of: graded.record)
            if let known = smallest[category], !size.lexicographicallyPrecedes(known.size) {
                continue
            }
            smallest[category] = (size, failureLine)
        }
        if let failure = reader.failure {
            console.err.write("error: \(field: path): \(field: failure)\n")
            return ExitCode.badInput
        }
        let width = max(8, rows.map { printable(field: $0.category).count }.max() ?? 0)
        var table =
            "category".padding(toLength: width, withPad: " ", startingAt: 0) + "  passed  failed\n"
        for row in rows {
            // An app's own name for a category: one field of its row.
            table += printable(field: row.category).padding(
                toLength: width, withPad: " ", startingAt: 0)
            table += "  " + Self.right(row.passed) + "  " + Self.right(row.failed) + "\n"
        }
        console.out.write(table)
        let failed = rows.reduce(0) { $0 + $1.failed }
        let passed = rows.reduce(0) { $0 + $1.passed }
        do throws(ImagingError) {
            if let failures {
                try failures.write(pending[...])
                try failures.commit()
            }
            if let shrinkPath {
                let text = rows.compactMap { smallest[$0.category]?.line }.map { $0 + "\n" }
                try AtomicFile.write(Array(text.joined().utf8), to: shrinkPath, replacing: true)
            }
        } catch {
            console.err.write("error: \(field: error.commandLineMessage)\n")
            return error.exitCode
        }
        console.err.write("\(passed) passed, \(failed) failed\n")
        return failed > 0 ? ExitCode.failure : ExitCode.success
    }

    /// At most this many categories get a row of their own.
    static let maximumCategories = 200

    static func right(_ value: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, 6 - text.count)) + text
    }

    /// How big a record is, to find the smallest failing one: the digits
    /// of its numbers, then its photo's area, then its view's area.
    static func size(of record: CropRecord) -> [Double] {
        let request = record.request
        let numbers = [
            request.selection.x, request.selection.y, request.selection.width,
            request.selection.height, request.viewport.width, request.viewport.height,
        ]
        let digits = numbers.reduce(0) { $0 + numberText($1).count }
        return [
            Double(digits), request.sourceSize.width * request.sourceSize.height,
            request.viewport.width * request.viewport.height,
        ]
    }
}
