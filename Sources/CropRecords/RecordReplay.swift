import CropGeometry

/// One line of `cropkit replay` without an export: the record parsed, its
/// answer computed, checked against its `expected`, and the output line
/// written. The command line and the browser playground
/// (`window.CropKit.replay`) both write their lines through this, so they
/// give the same bytes for the same line.
public struct RecordReplay {
    /// What the line was found to be.
    public enum Verdict: Equatable, Sendable {
        /// A record whose `expected` holds.
        case passed
        /// A record without `expected`: replayed, not checked.
        case unchecked
        /// A record whose answer differs from its `expected`.
        case failed
        /// A line that is not a valid record.
        case invalid
    }

    /// The verdict.
    public var verdict: Verdict
    /// The record, when the line is one.
    public var record: CropRecord?
    /// Its answer, when the line is a record.
    public var answer: CropRecord.Answer?
    /// What differs from `expected`, or why the line is not a record.
    public var problems: [String]
    /// What differs from `expected`, as values.
    public var differences: [RecordMismatch] = []

    /// Replays a line.
    ///
    /// - Parameters:
    ///   - bytes: The line: one JSON object, no newline.
    ///   - defaultOrientation: The orientation for a record that gives none
    ///     (`replay --source-file`), or `nil`.
    public init(line bytes: UnsafeBufferPointer<UInt8>, defaultOrientation: EXIFOrientation? = nil)
    {
        let given: CropRecord
        do {
            given = try CropRecord(jsonLine: bytes)
        } catch {
            verdict = .invalid
            problems = [error.description]
            return
        }
        let record = defaultOrientation.map { given.defaultingOrientation(to: $0) } ?? given
        let answer = record.answer()
        self.record = record
        self.answer = answer
        differences = record.differences(answer)
        problems = differences.map { $0.summary }
        verdict = !problems.isEmpty ? .failed : record.expected == nil ? .unchecked : .passed
    }

    /// The members a replay adds after the answer: the export (when there
    /// is one), `"check"` when the record has `expected` or a problem, and
    /// when it failed `"mismatches"` (phrases) and `"differences"` (the
    /// answer's differences from `expected` as values).
    public static func verdictMembers(
        record: CropRecord, problems: [String], differences: [RecordMismatch] = [],
        export: JSONValue? = nil
    ) -> [JSONValue.Member] {
        var extra: [JSONValue.Member] = []
        if let export { extra.append(.init("export", export)) }
        if record.expected != nil || !problems.isEmpty {
            extra.append(.init("check", .string(problems.isEmpty ? "passed" : "failed")))
        }
        if !problems.isEmpty {
            extra.append(.init("mismatches", .array(problems.map { .string($0) })))
        }
        if !differences.isEmpty {
            extra.append(.init("differences", .array(differences.map { $0.json })))
        }
        return extra
    }

    /// The output line of a line that is not a record:
    /// `{"line":N,"error":"..."}`.
    public static func invalidLine(number: Int, error: String) -> JSONValue {
        .object([.init("line", .number(number)), .init("error", .string(error))])
    }

    /// Appends the output line (no newline) to `out`: the record as given,
    /// byte for byte where it can be (``CropRecord/writeReplayed(answer:extra:echoing:to:)``),
    /// with its answer and verdict; or, for a line that is not a record,
    /// ``invalidLine(number:error:)``.
    ///
    /// - Parameters:
    ///   - bytes: The line this replay was made from.
    ///   - number: Its line number, for an invalid line's output.
    ///   - echoing: Whether to echo `bytes` (false when a default
    ///     orientation was added, so the text no longer says the record).
    ///   - out: The bytes the line is appended to.
    public func write(
        line bytes: UnsafeBufferPointer<UInt8>, number: Int, echoing: Bool = true,
        to out: inout [UInt8]
    ) {
        guard let record, let answer else {
            Self.invalidLine(number: number, error: problems.first ?? "").write(to: &out)
            return
        }
        record.writeReplayed(
            answer: answer,
            extra: Self.verdictMembers(
                record: record, problems: problems, differences: differences),
            echoing: echoing ? bytes : nil, to: &out)
    }
}

extension CropRecord {
    /// The mapping as a ready test vector: the record's members with the
    /// contract's answer under `expected` (what `replay` checks and `grade`
    /// compares an app's `result` with), `reason` when it refuses, a turned
    /// crop's `outputSize` and `quad`, then `extra`. What `cropkit map
    /// --json` prints and the playground's record shows.
    public static func vector(
        _ request: CropRequest, aspect: AspectChoice?, answer: Answer,
        companion: PixelSize<ImagePixels>? = nil, extra: [JSONValue.Member] = []
    ) -> JSONValue {
        var members: [JSONValue.Member] = []
        let expected: Expectation
        var expectedCompanion: CompanionExpectation?
        switch answer {
        case .mapped(let outcome):
            expected = Expectation(outcome)
            if let companion, case .success(let result) = outcome,
                let grid = CompanionGrid(imageSize: result.orientedSize, companionSize: companion)
            {
                expectedCompanion = CompanionExpectation(grid.cut(result.rect))
            }
        case .turned(.success(let crop)):
            let r = crop.rect
            expected = .rect(
                x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height),
                stored: nil)
            members = turnedMembers(crop)
        case .turned(.failure): expected = .rejected
        }
        if let rejection = answer.rejection { members.append(reasonMember(rejection)) }
        return CropRecord(
            request: request, aspect: aspect, expected: expected, companion: companion,
            expectedCompanion: expectedCompanion, extra: members + extra
        )
        .json
    }
}
