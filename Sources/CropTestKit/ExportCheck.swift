import CropGeometry
import CropRecords

/// One check of an exported crop: what was checked, and whether it held.
public struct ExportCheck: Hashable, Sendable {
    /// The check's name: `size`, `corner markers`, `no transparency` or `coordinates`.
    public var name: String
    /// Whether it held.
    public var passed: Bool
    /// What was found, in a sentence.
    public var detail: String
    /// What was measured, as values: every number, size and position the
    /// sentence states (`verify --json`'s `"measured"`; the DocC article
    /// "Machine interface" and `cropkit schema verify-line` list them).
    public var measured: [JSONValue.Member]

    /// A check named `name` with its result, what it found in a sentence,
    /// and what it measured as values.
    public init(
        name: String, passed: Bool, detail: String, measured: [JSONValue.Member] = []
    ) {
        self.name = name
        self.passed = passed
        self.detail = detail
        self.measured = measured
    }

    /// `{"width","height"}`, a measured size.
    public static func size(_ width: Int, _ height: Int) -> JSONValue {
        .size(width: width, height: height)
    }

    /// A PSNR in dB to one decimal, as the sentence gives it; `"inf"` for
    /// identical pixels (JSON has no infinity: the record format's
    /// spelling).
    public static func decibels(_ psnr: Double) -> JSONValue {
        psnr.isInfinite ? .string("inf") : .number((psnr * 10).rounded() / 10)
    }

    /// `{"x","y"}`, a measured position.
    public static func point(_ x: Int, _ y: Int) -> JSONValue {
        .object([.init("x", .number(x)), .init("y", .number(y))])
    }
}
