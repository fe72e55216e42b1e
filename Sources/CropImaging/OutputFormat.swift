/// The format a crop is written in, with its encoder's settings.
///
/// Today PNG, lossless from every input; each further format is one more
/// case whose encoder takes the decoder's rows the way ``PNGEncoder`` does.
public enum OutputFormat: Sendable {
    /// PNG, with these compression settings.
    case png(PNGEncoder)

    /// The format's name in reports and file extensions: "png".
    public var name: String {
        switch self {
        case .png: "png"
        }
    }

    /// The formats a name or file extension picks ("png"), any case.
    public static let names = ["png"]

    /// The format `name` (or a file extension) stands for, with default
    /// settings, if any.
    public init?(name: String) {
        switch name.lowercased() {
        case "png": self = .png(PNGEncoder())
        default: return nil
        }
    }
}
