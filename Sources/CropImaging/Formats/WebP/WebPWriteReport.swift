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
    /// What chose the coding and quality, in a word, as ``reason`` says
    /// it in a sentence: `lossless` (asked for), `given` (a quality
    /// given), `sourceLossless`, `estimated` (the source's quality read
    /// from its quantizers), `default` (a lossy source's), `defaultUnread`
    /// (a WebP whose quality could not be read).
    public var choice: String = ""
}

extension WebPWriteReport: WriteReport {
    /// "WebP (lossless VP8L: the source is lossless (PNG))".
    public var summary: String {
        let withAlpha = alpha ? " with alpha" : ""
        guard let quality else { return "WebP (lossless VP8L\(withAlpha): \(reason))" }
        return "WebP (lossy VP8\(withAlpha) at quality \(quality): \(reason))"
    }

    /// The coding, its quality and why, alpha, the chunks.
    public var facts: [ImageFileSummary.Detail] {
        [.init("coding", .text(coding))]
            + (quality.map { [.init("quality", .number($0))] } ?? [])
            + [
                .init("reason", .text(reason)), .init("choice", .text(choice)),
                .init("alpha", .flag(alpha)),
                .init("chunks", .list(chunks)),
            ]
    }
}
