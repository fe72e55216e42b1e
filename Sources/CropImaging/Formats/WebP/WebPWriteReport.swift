/// How a WebP crop was made, for the report.
public struct WebPWriteReport: Hashable, Sendable {
    /// "VP8L" (lossless) or "VP8" (lossy).
    public var coding: String
    /// A lossy output's quality (libwebp's 0-100), and where it came from:
    /// "given", "the source's (estimated)", "default".
    public var quality: Int?
    /// Why this coding and quality.
    public var reason: String
    /// Whether it holds alpha.
    public var alpha: Bool
    /// The chunks written, in order.
    public var chunks: [String]
    /// What became of each piece of the source's metadata.
    public var metadata: [MetadataEntry]
}
