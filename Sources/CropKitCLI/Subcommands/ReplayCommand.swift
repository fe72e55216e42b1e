import CropGeometry
import CropImaging
import CropRecords
import Dispatch
import Foundation

/// `cropkit replay`: replays failure records (JSON Lines) and checks them.
struct ReplayCommand: Subcommand {
    static let name = "replay"
    static let summary = "replay failure records (JSON Lines) and check their expected results"
    static let usage = """
        Usage: cropkit replay FILE|- [--source-file IMAGE] [--export DIR [--format jpeg]] [--report FILE.html] [--max-line-bytes N]

        Reads one failure record per line (the format: FailureRecords.md in
        Sources/CropGeometry/CropGeometry.docc; '-' reads standard input) and
        writes, per record, one line to standard output: the record as given, byte
        for byte, with "result" (null when rejected; with "stored" when the
        orientation is not 1) and "reason" when rejected added at its end. A
        "result" already in the record (what the app computed) is kept as
        "recordedResult". Records are replayed on every core, in order.

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
        With --format jpeg the crops are JPEG crops of a JPEG fixture, checked
        as 'cropkit verify --format jpeg' checks them (lossless crops bit for
        bit, re-encoded ones by PSNR, markers, leaks); with --format webp, WebP
        crops of a lossless WebP fixture (every sample, leaks); with --format
        avif, AVIF crops of an AVIF fixture (PSNR, leaks).

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
            name: "max-line-bytes", value: "N",
            help: "refuse a line longer than this (default \(LineReader.defaultMaxLineBytes))"),
        OptionSpec(
            name: "export", value: "DIR",
            help:
                "export each record's crop from fixtures of its size into DIR and check the pixels"),
        OptionSpec(
            name: "format", value: "FORMAT",
            help:
                "with --export: png (default), jpeg (JPEG crops of a JPEG fixture) webp (WebP crops of a lossless WebP fixture) or avif, up to 16 MP"
        ),
    ]

    var path: String
    var sourceFile: String?
    var exportFolder: String?
    var reportPath: String?
    var format: (any FormatExportVerifier.Type)?

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
        if let format = parsed.values["format"]?.lowercased() {
            guard exportFolder != nil else {
                throw UsageError(
                    message: "--format is for --export: the format the crops are exported in")
            }
            self.format = try ExportFormatOption.verifier(format)
        }
        maxLineBytes = try positiveInteger(parsed, "max-line-bytes") ?? maxLineBytes
    }

    var maxLineBytes = LineReader.defaultMaxLineBytes

    func run(console: Console) -> Int32 {
        var fileOrientation: EXIFOrientation?
        if let sourceFile {
            do throws(ImagingError) {
                fileOrientation = try ImageSource.open(path: sourceFile).orientation
            } catch {
                console.err.write("error: \(field: error.commandLineMessage)\n")
                return error.exitCode
            }
        }
        if let exportFolder {
            do {
                try FileManager.default.createDirectory(
                    atPath: exportFolder, withIntermediateDirectories: true)
            } catch {
                console.err.write(
                    "error: cannot create the export folder '\(field: exportFolder)': \(field: error.localizedDescription)\n"
                )
                return ExitCode.badInput
            }
        }
        guard let reader = console.lines(of: path) else { return ExitCode.badInput }
        reader.maxLineBytes = maxLineBytes
        // A line that is not UTF-8 text is a bad line like any other:
        // named, counted failed, and the run goes on.
        reader.continuesPastMalformedLines = true
        var replayer = RecordReplayer(
            exportFolder: exportFolder, defaultOrientation: fileOrientation, format: format)
        var report = ReplayReport()
        var tally = Tally()
        var lineNumber = 0
        if exportFolder == nil && reportPath == nil {
            // Nothing but mapping: blocks of lines on every core, written in order.
            tally = Self.replayInParallel(
                reader, defaultOrientation: fileOrientation, console: console)
        } else {
            var output = Tally.Output()
            while let bytes = reader.nextLineBytes() {
                lineNumber += 1
                let malformed = reader.malformed
                let row = bytes.withUnsafeBufferPointer { line in
                    Self.replay(
                        line, number: lineNumber, malformed: malformed, with: &replayer,
                        into: &output, tally: &tally, reporting: reportPath != nil)
                }
                if let row { report.add(row) }
                console.out.write(utf8: output.out)
                console.err.write(utf8: output.err)
                output.clear()
            }
        }
        let (passed, failed, unchecked) = (tally.passed, tally.failed, tally.unchecked)
        if let failure = reader.failure {
            console.err.write(
                "error: \(field: path): \(field: failure)\n\(field: passed) passed, \(field: failed) failed\n"
            )
            return ExitCode.badInput
        }
        if unchecked > 0 {
            console.err.write("\(unchecked) record(s) had no \"expected\": replayed, not checked\n")
        }
        if let reportPath {
            let html = report.html(
                title: "CropKit replay of \(path)", passed: passed, failed: failed)
            do throws(ImagingError) {
                try AtomicFile.write(Array(html.utf8), to: reportPath, replacing: true)
                console.err.write("report: \(field: reportPath)\n")
            } catch {
                console.err.write("error: \(field: error.commandLineMessage)\n")
            }
        }
        console.err.write("\(passed) passed, \(failed) failed\n")
        return failed > 0 ? ExitCode.failure : ExitCode.success
    }

    /// Counts of a replay, and where a stretch of it writes.
    struct Tally {
        var passed = 0
        var failed = 0
        var unchecked = 0

        /// Standard output's and standard error's bytes for some lines.
        struct Output {
            var out: [UInt8] = []
            var err: [UInt8] = []

            mutating func clear() {
                out.removeAll(keepingCapacity: true)
                err.removeAll(keepingCapacity: true)
            }
        }

        static func + (a: Tally, b: Tally) -> Tally {
            Tally(
                passed: a.passed + b.passed, failed: a.failed + b.failed,
                unchecked: a.unchecked + b.unchecked)
        }
    }

    /// Replays one line (blank lines are skipped), appending its output line
    /// and any complaint to `output`; returns its report row when
    /// `reporting`.
    /// A line whose bytes are not text (`malformed`, as the reader found
    /// it) is not a valid record.
    static func replay(
        _ bytes: UnsafeBufferPointer<UInt8>, number: Int, malformed: LineReader.ReadFailure? = nil,
        with replayer: inout RecordReplayer, into output: inout Tally.Output, tally: inout Tally,
        reporting: Bool
    ) -> ReplayReport.Row? {
        if malformed == nil, bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }
        // The line's text is made only where it is shown.
        var line: String { String(decoding: bytes, as: UTF8.self) }
        var parsed: CropRecord?
        var problem = ""
        if let malformed {
            problem = Self.notText(malformed)
        } else {
            do throws(CropRecordError) {
                parsed = try CropRecord(jsonLine: bytes)
            } catch {
                problem = error.description
            }
        }
        guard let record = parsed else {
            tally.failed += 1
            output.err += Array("line \(number): not a valid record: \(field: problem)\n".utf8)
            RecordReplay.invalidLine(number: number, error: problem).write(to: &output.out)
            output.out.append(0x0A)
            guard reporting else { return nil }
            return ReplayReport.Row(
                line: number, record: line, outcome: "not a valid record", passed: false,
                problems: [problem], svg: nil, thumbnail: nil)
        }
        let outcome = replayer.replay(record, line: number)
        if outcome.passed {
            tally.passed += 1
            if record.expected == nil { tally.unchecked += 1 }
        } else {
            tally.failed += 1
            output.err += Array(
                "line \(number): failed: \(field: outcome.problems.joined(separator: "; "))\n".utf8)
        }
        outcome.writeLine(echoing: bytes, to: &output.out)
        output.out.append(0x0A)
        return reporting ? RecordReplayer.reportRow(outcome, line: number, text: line) : nil
    }

    /// A line whose bytes are not UTF-8 text (`failure`, as the reader
    /// found it), as a record's error.
    static func notText(_ failure: LineReader.ReadFailure) -> String {
        guard case .binary(let offset, let byte, _) = failure else { return "\(failure)" }
        return "not UTF-8 text: byte 0x"
            + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            + " at byte \(offset) of the file"
    }

    /// Replays every line of `reader` on all cores: lines are read in blocks,
    /// each block split into one stretch a core, and the stretches' output
    /// written in order, so the output is the same as one core's.
    static func replayInParallel(
        _ reader: LineReader, defaultOrientation: EXIFOrientation?, console: Console
    ) -> Tally {
        let workers = max(1, activeCores)
        let blockLines = 4096 * workers
        var tally = Tally()
        var firstLine = 1
        var block: [UInt8] = []
        var ends: [Int] = []
        // The block's lines that are not text, by their index in it.
        var malformed: [Int: LineReader.ReadFailure] = [:]
        while true {
            block.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            malformed.removeAll(keepingCapacity: true)
            while ends.count < blockLines, let bytes = reader.nextLineBytes() {
                if let failure = reader.malformed { malformed[ends.count] = failure }
                block += bytes
                ends.append(block.count)
            }
            if ends.isEmpty { break }
            let parts = min(workers, ends.count)
            let results = ParallelResults<(Tally, Tally.Output)>(count: parts)
            let (lines, lineEnds, first, notText) = (block, ends, firstLine, malformed)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                var replayer = RecordReplayer(
                    exportFolder: nil, defaultOrientation: defaultOrientation)
                var partTally = Tally()
                var output = Tally.Output()
                output.out.reserveCapacity(lineEnds.count / parts * 256)
                lines.withUnsafeBufferPointer { all in
                    for index
                        in (lineEnds.count * part / parts)..<(lineEnds.count * (part + 1)
                        / parts)
                    {
                        let start = index == 0 ? 0 : lineEnds[index - 1]
                        _ = Self.replay(
                            UnsafeBufferPointer(rebasing: all[start..<lineEnds[index]]),
                            number: first + index, malformed: notText[index], with: &replayer,
                            into: &output, tally: &partTally, reporting: false)
                    }
                }
                results.set(part, (partTally, output))
            }
            for (partTally, output) in results.values {
                tally = tally + partTally
                console.out.write(utf8: output.out)
                console.err.write(utf8: output.err)
            }
            firstLine += ends.count
        }
        return tally
    }
}

/// One result slot per concurrent part, each written by its own part only.
///
/// The slots are raw memory, not an array property: two parts writing their
/// own slots of one array at once would be two overlapping accesses to the
/// property, which Swift's exclusivity checks trap.
final class ParallelResults<Value>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Value?>

    init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    /// Part `index`'s result (each part writes only its own slot, before
    /// concurrentPerform returns; the slots are read only after).
    func set(_ index: Int, _ value: Value) { slots[index] = value }

    /// The results in part order.
    var values: [Value] { slots.compactMap { $0 } }
}
