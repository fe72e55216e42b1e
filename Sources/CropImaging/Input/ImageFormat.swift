/// An image format CropKit reads, by its short name ("png", "jpeg", "heif").
///
/// Each format declares its own value in its folder under `Formats/`
/// (``png``, ``jpeg``, ``heif``) and registers its reader in one place; a
/// file's format is recognised by its first bytes
/// (``init(signature:)``).
public struct ImageFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The short name: "png", "jpeg", "heif".
    public let rawValue: String

    /// The format named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The format's name in messages: "PNG", "JPEG", "HEIF", "WebP" (as
    /// its reader names it).
    public var name: String {
        FormatRegistry.readers.first { $0.format.rawValue == rawValue }?.displayName
            ?? rawValue.uppercased()
    }

    /// The short name.
    public var description: String { rawValue }

    /// The format whose signature `head` (the file's first bytes) starts
    /// with, if any CropKit reads.
    public init?(signature head: some Collection<UInt8>) {
        guard let reader = FormatRegistry.reader(forSignature: Array(head)) else { return nil }
        self = reader.format
    }

    /// How many of a file's first bytes ``init(signature:)`` needs to tell
    /// every format apart.
    public static var signatureLength: Int { FormatRegistry.signatureLength }

    /// Every format CropKit reads, in the registry's order.
    public static var all: [ImageFormat] { FormatRegistry.readers.map { $0.format } }

    /// The formats CropKit reads, for a sentence: "PNG, JPEG or HEIF",
    /// with those read only as animations (GIF) last.
    public static var readable: String {
        listing(all.map(\.name) + FormatRegistry.animationOnly.map(\.name))
    }

    /// Words as a sentence lists them: "a, b or c".
    package static func listing(_ words: [String]) -> String {
        guard let last = words.last else { return "" }
        return words.count == 1 ? last : words.dropLast().joined(separator: ", ") + " or " + last
    }
}
