import CropGeometry

/// One way an answer differs from a record's `expected`: the field, the
/// value expected and the value given, as values, beside the phrase
/// ``CropRecord/mismatches(_:)-(Answer)`` says it in ("width: expected 2001,
/// got 2000").
public struct RecordMismatch: Hashable, Sendable {
    /// The field: `x`, `y`, `width`, `height`, `stored.x`, …,
    /// `companion.outputWidth`, `face.x`, or `result`, `companion` and
    /// `face` for a whole answer given where none was expected or the
    /// other way round.
    public var field: String
    /// The value expected: a number, a rect, or `null` for a rejection or
    /// nothing.
    public var expected: JSONValue
    /// The value the answer gives, in the same shape; a rejection is
    /// `{"rejection": CODE}`.
    public var actual: JSONValue
    /// The phrase `mismatches` gives.
    public var summary: String

    /// A mismatch of `field` said as `summary`.
    public init(_ field: String, expected: JSONValue, actual: JSONValue, summary: String) {
        self.field = field
        self.expected = expected
        self.actual = actual
        self.summary = summary
    }

    /// A number `field` that should be `expected` and is `actual`:
    /// "FIELD: expected E, got A".
    static func number(_ field: String, expected: Double, actual: Double) -> RecordMismatch {
        RecordMismatch(
            field, expected: .number(expected), actual: .number(actual),
            summary: "\(field): expected \(jsonNumberText(expected)), got \(jsonNumberText(actual))"
        )
    }

    /// `{"field","expected","actual","summary"}`, as `replay` gives it
    /// under `"differences"`.
    public var json: JSONValue {
        .object([
            .init("field", .string(field)), .init("expected", expected), .init("actual", actual),
            .init("summary", .string(summary)),
        ])
    }
}
