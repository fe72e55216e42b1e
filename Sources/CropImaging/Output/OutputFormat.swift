/// The format a crop is written in, with its encoder's settings.
///
/// PNG is lossless from every input. JPEG from a JPEG is lossless in the
/// DCT domain where the rect allows it and re-encoded with the source's own
/// tables elsewhere (``JPEGEncoder``); from a PNG it is encoded at a quality.
public enum OutputFormat: Sendable {
    /// PNG, with these compression settings.
    case png(PNGEncoder)
    /// JPEG, with these settings.
    case jpeg(JPEGEncoder)
    /// HEIC (from a HEIC source: its tiles copied), with these settings.
    case heif(HEIFEncoder)

    /// The format's name in reports: "png", "jpeg" or "heic".
    public var name: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpeg"
        case .heif: "heic"
        }
    }

    /// The formats' names, as `--format` takes them.
    public static let names = ["png", "jpeg", "heic"]

    /// The format `name` (or a file extension: `png`, `jpg`, `jpeg`, `heic`,
    /// `heif`) stands
    /// for, with default settings, if any; any case.
    public init?(name: String) {
        switch name.lowercased() {
        case "png": self = .png(PNGEncoder())
        case "jpg", "jpeg": self = .jpeg(JPEGEncoder())
        case "heic", "heif": self = .heif(HEIFEncoder())
        default: return nil
        }
    }
}
