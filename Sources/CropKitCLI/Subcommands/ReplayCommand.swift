import CropGeometry
import CropImaging
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
                fileOrientation = try ImageFileSummary.read(path: sourceFile).orientation
            } catch {
                console.err.write("error: \(error.message)\n")
                return ExitCode.badInput
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
        var verifier: ExportVerifier?
        var report = ReplayReport()
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
        var passed = 0
        var failed = 0
        var unchecked = 0
        var lineNumber = 0
        while let line = reader.nextLine() {
            lineNumber += 1
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            var record: CropRecord
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
                        passed: false,
                        problems: [error.description], svg: nil, thumbnail: nil))
                continue
            }
            if let fileOrientation, !record.members.contains(where: { $0.key == "orientation" }) {
                record.orientationValue = Double(fileOrientation.rawValue)
                record.request.orientation = fileOrientation
                record.members.append(.init("orientation", .number(fileOrientation.rawValue)))
            }
            let outcome = record.replay()
            var problems = record.mismatches(outcome)
            var exportMembers: [JSONValue.Member] = []
            if let exportFolder, case .success(let result) = outcome {
                let file = exportFolder + "/line-\(lineNumber).png"
                if !ExportVerifier.canVerify(result.sourceSize) {
                    exportMembers.append(
                        .init(
                            "export",
                            .object([.init("skipped", .string("source too large for fixtures"))])))
                } else {
                    do throws(ImagingError) {
                        if verifier?.sourceSize != result.sourceSize {
                            verifier = nil
                            verifier = try ExportVerifier(sourceSize: result.sourceSize)
                        }
                        let checks = try verifier!.check(result)
                        try verifier!.exportCorners(result, to: file)
                        let failedChecks = checks.filter { !$0.passed }
                        problems += failedChecks.map { "export check \($0.name): \($0.detail)" }
                        exportMembers.append(
                            .init(
                                "export",
                                .object([
                                    .init("file", .string(file)),
                                    .init("passed", .bool(failedChecks.isEmpty)),
                                    .init(
                                        "checks",
                                        .array(
                                            checks.map {
                                                .object([
                                                    .init("name", .string($0.name)),
                                                    .init("passed", .bool($0.passed)),
                                                    .init("detail", .string($0.detail)),
                                                ])
                                            })),
                                ])))
                    } catch {
                        problems.append("export failed: \(error.message)")
                    }
                }
            }
            var extra: [JSONValue.Member] = exportMembers
            if record.expected == nil && problems.isEmpty {
                unchecked += 1
                passed += 1
            } else if problems.isEmpty {
                passed += 1
                extra.append(.init("check", .string("passed")))
            } else {
                failed += 1
                extra.append(.init("check", .string("failed")))
                extra.append(.init("mismatches", .array(problems.map { .string($0) })))
                console.err.write(
                    "line \(lineNumber): failed: \(problems.joined(separator: "; "))\n")
            }
            console.out.write(record.jsonLine(replaying: outcome, extra: extra) + "\n")
            if reportPath != nil {
                let outcomeText: String
                switch outcome {
                case .success(let result):
                    outcomeText =
                        "result \(result.rect)"
                        + (result.orientation != .up ? ", stored \(result.stored)" : "")
                case .failure(let rejection): outcomeText = "rejected: \(rejection.code)"
                }
                var request = record.request
                if let orientation = EXIFOrientation(exactly: record.orientationValue) {
                    request.orientation = orientation
                }
                let file = exportFolder.map { $0 + "/line-\(lineNumber).png" }
                report.add(
                    ReplayReport.Row(
                        line: lineNumber, record: line, outcome: outcomeText,
                        passed: problems.isEmpty,
                        problems: problems, svg: CropDiagram.svg(for: request, width: 360),
                        thumbnail: file.flatMap { FileManager.default.contents(atPath: $0) }))
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
                console.err.write("error: \(error.message)\n")
            }
        }
        console.err.write("\(passed) passed, \(failed) failed\n")
        return failed > 0 ? ExitCode.failure : ExitCode.success
    }
}
