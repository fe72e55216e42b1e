import CropGeometry
import CropImaging
import CropRecords
import CropTestKit
import Foundation

/// Replays failure records one at a time: the mapping and its expected
/// result, and with an export folder the crop exported from fixtures of the
/// record's size and checked. What `cropkit replay` and `cropkit demo` both
/// run, record by record, through the library.
struct RecordReplayer {
    /// Where each record's export goes (`line-N.png`), or `nil` for none.
    var exportFolder: String?
    /// The orientation for records that give none (a photo's own).
    var defaultOrientation: EXIFOrientation?
    /// The verifier of exports in a format other than PNG (JPEG crops of a
    /// JPEG fixture, WebP crops of a WebP one), or `nil` for PNG crops of
    /// the two PNG fixtures.
    var format: (any FormatExportVerifier.Type)?
    private var verifier: ExportVerifier?
    private var formatVerifier: (any FormatExportVerifier)?

    init(
        exportFolder: String?, defaultOrientation: EXIFOrientation?,
        format: (any FormatExportVerifier.Type)? = nil
    ) {
        self.exportFolder = exportFolder
        self.defaultOrientation = defaultOrientation
        self.format = format
    }

    /// One record's replay.
    struct Outcome {
        /// The record as replayed (with the default orientation applied).
        var record: CropRecord
        /// The mapping's answer, or the straightened crop's for a turned record.
        var answer: CropRecord.Answer
        /// What differs from the record's expectation, and failed export checks.
        var problems: [String]
        /// The export checks, when the crop was exported.
        var checks: [ExportCheck]
        /// Whether the record is the one read (no default orientation was
        /// added), so the text it was read from can be echoed.
        var isAsRead = true
        /// The exported file, when there is one.
        var exportedFile: String?
        /// The `export` member of the output line, if any.
        var exportJSON: JSONValue?
        /// How the answer differs from the record's expectation, as values.
        var differences: [RecordMismatch] = []

        var passed: Bool { problems.isEmpty }

        /// The output line: the record as given, the answer, and the verdict.
        var line: JSONValue { record.replayed(answer: answer, extra: extra) }

        /// What the replay adds after the answer: the export, the verdict.
        private var extra: [JSONValue.Member] {
            RecordReplay.verdictMembers(
                record: record, problems: problems, differences: differences, export: exportJSON)
        }

        /// Appends ``line`` to `out`, echoing the bytes the record was read
        /// from (``CropRecord/writeReplayed(_:extra:echoing:to:)``).
        func writeLine(echoing text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
            record.writeReplayed(
                answer: answer, extra: extra, echoing: isAsRead ? text : nil, to: &out)
        }

        /// "result 1000,500,2000,2000" or "rejected: noImagePixels".
        var summary: String {
            switch answer {
            case .turned(.success(let crop)):
                "output rect \(crop.rect) turned \(numberText(crop.frame.angle))°"
            case .turned(.failure(let rejection)): "rejected: \(rejection.code)"
            case .mapped(.success(let result)):
                "result \(result.rect)"
                    + (result.orientation != .up ? ", stored \(result.stored)" : "")
            case .mapped(.failure(let rejection)): "rejected: \(rejection.code)"
            }
        }
    }

    /// Replays `record`, numbered `line`.
    mutating func replay(_ given: CropRecord, line: Int) -> Outcome {
        let record = defaultOrientation.map { given.defaultingOrientation(to: $0) } ?? given
        let answer = record.answer()
        let differences = record.differences(answer)
        var outcome = Outcome(
            record: record, answer: answer, problems: differences.map(\.summary), checks: [],
            isAsRead: defaultOrientation == nil || given.hasOrientation)
        outcome.differences = differences
        if case .turned(.success) = answer, exportFolder != nil {
            // A turned crop resamples: its pixels are checked against the
            // coordinates fixture by `verify --angle`, not by these
            // lossless checks.
            outcome.exportJSON = .object([
                .init("skipped", .string("a turned record is checked by verify --angle"))
            ])
            return outcome
        }
        guard let exportFolder, case .mapped(.success(let mapped)) = answer else { return outcome }
        let (pixels, overflow) = mapped.sourceSize.width.multipliedReportingOverflow(
            by: mapped.sourceSize.height)
        guard ExportVerifier.canVerify(mapped.sourceSize),
            format.map({ !overflow && pixels <= $0.maximumPixels }) ?? true
        else {
            outcome.exportJSON = .object([
                .init("skipped", .string("source too large for fixtures"))
            ])
            return outcome
        }
        let file = exportFolder + "/line-\(line)." + (format?.fileExtension ?? "png")
        do throws(ImagingError) {
            let checks: [ExportCheck]
            if let format {
                let current: any FormatExportVerifier
                if let made = formatVerifier, made.sourceSize == mapped.sourceSize {
                    current = made
                } else {
                    formatVerifier = nil
                    current = try format.init(sourceSize: mapped.sourceSize)
                    formatVerifier = current
                }
                checks = try current.check(mapped, writingTo: file)
            } else {
                checks = try verifier(for: mapped.sourceSize).check(mapped, writingCornersTo: file)
            }
            outcome.checks = checks
            outcome.exportedFile = file
            let failedChecks = checks.filter { !$0.passed }
            outcome.problems += failedChecks.map { "export check \($0.name): \($0.detail)" }
            outcome.exportJSON = .object([
                .init("file", .string(file)),
                .init("passed", .bool(failedChecks.isEmpty)),
                .init("checks", .array(checks.map(\.json))),
            ])
        } catch {
            outcome.problems.append("export failed: \(error.commandLineMessage)")
        }
        return outcome
    }

    /// The verifier for fixtures of `size`, made once for a run of records
    /// of one size.
    private mutating func verifier(for size: PixelSize<StoredPixels>) throws(ImagingError)
        -> ExportVerifier
    {
        if let verifier, verifier.sourceSize == size { return verifier }
        verifier = nil
        let made = try ExportVerifier(sourceSize: size)
        verifier = made
        return made
    }

    /// The report row for an outcome: its diagram, and its export as a
    /// thumbnail.
    static func reportRow(_ outcome: Outcome, line: Int, text: String) -> ReplayReport.Row {
        ReplayReport.Row(
            line: line, record: text, outcome: outcome.summary, passed: outcome.passed,
            problems: outcome.problems,
            svg: CropDiagram.svg(
                for: outcome.record.orientedRequest, aspect: outcome.record.aspect, width: 360),
            thumbnail: outcome.exportedFile.flatMap { FileManager.default.contents(atPath: $0) },
            checks: outcome.checks)
    }
}

extension ExportCheck {
    /// `{"name","passed","detail","measured"}`: the sentence for people,
    /// the values it states for programs.
    var json: JSONValue {
        .object([
            .init("name", .string(name)), .init("passed", .bool(passed)),
            .init("detail", .string(detail)), .init("measured", .object(measured)),
        ])
    }
}
