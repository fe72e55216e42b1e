import CropGeometry

/// One check of an exported crop: what was checked, and whether it held.
public struct ExportCheck: Hashable, Sendable {
    /// The check's name: `size`, `corner markers`, `no transparency` or `coordinates`.
    public var name: String
    /// Whether it held.
    public var passed: Bool
    /// What was found, in a sentence.
    public var detail: String

    /// A check named `name` with its result.
    public init(name: String, passed: Bool, detail: String) {
        self.name = name
        self.passed = passed
        self.detail = detail
    }
}
