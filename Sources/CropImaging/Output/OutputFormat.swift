/// The format a crop is written in, with its encoder's settings.
///
/// Each format folder adds its own way to make one (``png(_:)``,
/// ``jpeg(_:)``, ``heif(_:)``); ``init(name:)`` finds one by name or file
/// extension among the registered formats. PNG is lossless from every
/// input. JPEG from a JPEG is lossless in the DCT domain where the rect
/// allows it and re-encoded with the source's own tables elsewhere
/// (``JPEGEncoder``); from a PNG it is encoded at a quality.
public struct OutputFormat: Sendable {
    /// The format's writer: its encoder's settings.
    let writer: any FormatWriter

    init(_ writer: any FormatWriter) { self.writer = writer }

    /// The format's name in reports: "png", "jpeg" or "heic".
    public var name: String { type(of: writer).name }

    /// The format's name in messages: "PNG", "HEIC", "WebP".
    public var displayName: String { type(of: writer).displayName }

    /// The name in messages of the format `name` (a name or file
    /// extension), or `name` in capitals when none is registered.
    public static func displayName(of name: String) -> String {
        FormatRegistry.writers.first {
            $0.names.contains(name.lowercased()) || $0.name == name.lowercased()
        }?
        .displayName ?? name.uppercased()
    }

    /// The names in messages of the formats that write turned or resized
    /// crops, in the registry's order ("PNG", "JPEG", "WebP").
    public static var resampledDisplayNames: [String] {
        FormatRegistry.writers.filter { $0.init(settings: EncoderSettings()).writesResampledCrops }
            .map { $0.displayName }
    }

    /// The formats' names, as `--format` takes them.
    public static var names: [String] { FormatRegistry.writers.map { $0.name } }

    /// The formats' names in messages, in the registry's order ("PNG",
    /// "JPEG", "HEIC", "WebP", "AVIF").
    public static var displayNames: [String] { FormatRegistry.writers.map { $0.displayName } }

    /// Every name and file extension a format is chosen by ("png", "jpg",
    /// "jpeg", "heic", "heif").
    public static var extensions: [String] { FormatRegistry.writers.flatMap { $0.names } }

    /// Each format's name with the file extensions that choose it, in the
    /// registry's order: ("jpeg", ["jpg", "jpeg"]).
    public static var choices: [(name: String, extensions: [String])] {
        FormatRegistry.writers.map { ($0.name, $0.names) }
    }

    /// The format `name` (or a file extension: `png`, `jpg`, `jpeg`, `heic`,
    /// `heif`) stands for, with default settings, if any; any case.
    public init?(name: String) { self.init(name: name, settings: EncoderSettings()) }

    /// The format `name` (or a file extension) stands for, with
    /// `settings`, if any; any case.
    public init?(name: String, settings: EncoderSettings) {
        let name = name.lowercased()
        guard let writer = FormatRegistry.writers.first(where: { $0.names.contains(name) }) else {
            return nil
        }
        self.writer = writer.init(settings: settings)
    }

    /// The settings this format takes.
    public var accepts: Set<EncoderSetting> { type(of: writer).settings }

    /// The names of the formats that take `setting`, in the registry's
    /// order.
    public static func names(accepting setting: EncoderSetting) -> [String] {
        FormatRegistry.writers.filter { $0.settings.contains(setting) }.map { $0.name }
    }

    /// The encoder's settings when they are of type `Encoder`
    /// (`format.encoder(JPEGEncoder.self)?.quality`), else `nil`.
    public func encoder<Encoder>(_ type: Encoder.Type) -> Encoder? { writer as? Encoder }

    /// What is kept of the source's metadata.
    public var metadata: MetadataPolicy { writer.metadata }

    /// Whether a turned, resized or circled crop can be written in this
    /// format (HEIC is made by copying a HEIC's tiles, so it cannot).
    public var writesResampledCrops: Bool { writer.writesResampledCrops }
}
