import CropRecords

/// One change a crop made inside a block of metadata, as a field for
/// programs beside the phrase a report's `reason` joins: the EXIF
/// thumbnail removed, `PixelXDimension` set to the crop's width, a
/// `SubjectArea` mapped into the crop.
public struct MetadataChange: Hashable, Sendable {
    /// What became of the field.
    public enum Outcome: String, Hashable, Sendable {
        /// Taken out of the block.
        case removed
        /// Given a new value (``MetadataChange/values``).
        case set
        /// Kept where a crop would remove its kind (Apple's MakerNote).
        case kept
        /// Moved into the crop's pixels (``MetadataChange/values`` the
        /// mapped values as written).
        case mapped
    }

    /// The tag, property or structure: `IFD1`, `GPS`, `Orientation`,
    /// `PixelXDimension`, `MakerNote`, `SubjectArea`, `0x0111`.
    public var field: String
    /// What became of it.
    public var outcome: Outcome
    /// The values set or mapped, as written; empty for a field removed or
    /// kept.
    public var values: [Int]
    /// The phrase the report's reason says it in.
    public var summary: String

    /// A change of `field` said as `summary`.
    public init(_ field: String, _ outcome: Outcome, values: [Int] = [], summary: String) {
        self.field = field
        self.outcome = outcome
        self.values = values
        self.summary = summary
    }

    /// The reason of an EXIF block after `changes`: their phrases joined by
    /// semicolons, or that nothing in it shows the whole photo.
    static func reason(_ changes: [MetadataChange]) -> String {
        changes.isEmpty
            ? "nothing in it shows the whole photo"
            : changes.map(\.summary).joined(separator: "; ")
    }

    /// `{field, outcome, values, summary}`, as `crop --json` gives it.
    public var json: JSONValue {
        .object([
            .init("field", .string(field)), .init("outcome", .string(outcome.rawValue)),
            .init("values", .array(values.map { .number($0) })),
            .init("summary", .string(summary)),
        ])
    }
}
