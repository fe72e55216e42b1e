import CropGeometry
import CropImaging
import CropRecords
import Foundation

/// `cropkit replay`: replays failure records (JSON Lines) and checks them.
struct ReplayCommand: Subcommand {
    static let name = "replay"
    static let summary = "replay failure records (JSON Lines) and check their expected results"
    static let usage = """
        Usage: cropkit replay FILE|- [--source-file IMAGE] [--export DIR]

        Reads one failure record per line (DESIGN.md's format; '-' reads standard
        input) and writes, per record, one line to standard output: the record as
        given plus "result" (null when rejected; with "stored" when the orientation
        is not 1) and "reason" when rejected. A "result" already in the record (what
        the app computed) is kept as "recordedResult".

        A record with "expected" is checked field by field (x, y, width, height, and
        stored when expected has it; null means rejected). A line that is not a valid
        record is reported on standard error with its line number, written to
        standard output as {"line":N,"error":...}, and counted as failed; the run
        goes on. Blank lines are skipped. Standard error closes with
        'N passed, M failed'; records without "expected" count as passed.
        Exit 1 when any check failed.

        With --export DIR, each record's crop is also exported, through the same
        code as 'cropkit crop', from two fixtures of the record's pixel size (no
        photo is needed), written to DIR/line-N.png, and checked: the size equals
        the mapping, each corner marker appears only where the crop overlaps it,
        no pixel is transparent, and every pixel is the right source pixel. The
        line gets "export" with the checks; a failed check fails the record.

        With --report FILE.html, a self-contained page (no scripts, no network)
        shows each record's numbers, verdict, diagram and export thumbnail: every
        failed record (up to 2000) and the first 300 that passed.
        """
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "source-file", value: "FILE",
            help: "use this image's EXIF orientation for records that give none"),
        OptionSpec(
            name: "report", value: "FILE.html",
            help:
                "write a self-contained HTML page: numbers, verdict, diagram and export of each record"
        ),
        OptionSpec(
            name: "export", value: "DIR",
            help:
                "export each record's crop from fixtures of its size into DIR and check the pixels"),
    ]

    var path: String
    var sourceFile: String?
    var exportFolder: String?
    var reportPath: String?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.count == 1 else {
            throw UsageError(
                message: parsed.positionals.isEmpty
                    ? "missing FILE (or - for standard input)" : "expected one FILE")
        }
        path = parsed.positionals[0]
        sourceFile = parsed.values["source-file"]
        exportFolder = parsed.values["export"]
        reportPath = parsed.values["report"]
    }

    func run(console: Console) -> Int32 {
        var fileOrientation: EXIFOrientation?
        if let sourceFile {
            do throws(ImagingError) {
                fileOrientation = try ImageSource.open(path: sourceFile).orientation
            } catch {
                console.err.write("error: \(error.commandLineMessage)\n")
                return error.exitCode
            }
        }
        if let exportFolder {
            do {
                try FileManager.default.createDirectory(
                    atPath: exportFolder, withIntermediateDirectories: true)
            } catch {
                console.err.write(
                    "error: cannot create the export folder '\(exportFolder)': \(error.localizedDescription)\n"
                )
                return ExitCode.badInput
            }
        }
        let reader: LineReader
        if path == "-" {
            guard let input = console.input() else {
                console.err.write("error: no standard input to read\n")
                return ExitCode.badInput
            }
            reader = input
        } else {
            switch LineReader.open(path: path) {
            case .success(let opened): reader = opened
            case .failure(let error):
                console.err.write("error: \(error)\n")
                return ExitCode.badInput
            }
        }
        var replayer = RecordReplayer(
            exportFolder: exportFolder, defaultOrientation: fileOrientation)
        var report = ReplayReport()
        var passed = 0
        var failed = 0
        var unchecked = 0
        var lineNumber = 0
        while let line = reader.nextLine() {
            lineNumber += 1
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            let record: CropRecord
            do {
                record = try CropRecord(jsonLine: line)
            } catch {
                failed += 1
                console.err.write("line \(lineNumber): not a valid record: \(error)\n")
                let errorLine = JSONValue.object([
                    .init("line", .number(lineNumber)), .init("error", .string(error.description)),
                ])
                console.out.write(errorLine.text + "\n")
                report.add(
                    ReplayReport.Row(
                        line: lineNumber, record: line, outcome: "not a valid record",
                        passed: false, problems: [error.description], svg: nil, thumbnail: nil))
                continue
            }
            let outcome = replayer.replay(record, line: lineNumber)
            if outcome.passed {
                passed += 1
                if record.expected == nil { unchecked += 1 }
            } else {
                failed += 1
                console.err.write(
                    "line \(lineNumber): failed: \(outcome.problems.joined(separator: "; "))\n")
            }
            console.out.write(outcome.line.text + "\n")
            if reportPath != nil {
                report.add(RecordReplayer.reportRow(outcome, line: lineNumber, text: line))
            }
        }
        if unchecked > 0 {
            console.err.write("\(unchecked) record(s) had no \"expected\": replayed, not checked\n")
        }
        if let reportPath {
            let html = report.html(
                title: "CropKit replay of \(path)", passed: passed, failed: failed)
            do throws(ImagingError) {
                try AtomicFile.write(Array(html.utf8), to: reportPath, replacing: true)
                console.err.write("report: \(reportPath)\n")
            } catch {
                console.err.write("error: \(error.commandLineMessage)\n")
            }
        }
        console.err.write("\(passed) passed, \(failed) failed\n")
        return failed > 0 ? ExitCode.failure : ExitCode.success
    }
}
