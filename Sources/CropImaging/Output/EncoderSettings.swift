/// The output settings a person gives (a command line's options, a
/// manifest's), whatever the format: each format's writer takes the ones it
/// has a use for (``OutputFormat/accepts``) and a caller refuses the rest.
public struct EncoderSettings: Sendable {
    /// The quality of pixels encoded again (1-100), or the format's default.
    public var quality: Int?
    /// Whether a crop that cannot copy the source's coded data in full is
    /// refused instead of encoded again.
    public var lossless = false
    /// Whether the rect is grown outward to the source's block or tile
    /// grid, so that the crop is a copy.
    public var snapsToBlocks = false
    /// What is kept of the source's metadata.
    public var metadata = MetadataPolicy()
    /// How PNG image data is compressed.
    public var compression = PNGEncoder(compressor: .automatic)

    /// The defaults: every format's own.
    public init() {}
}

/// One of the ``EncoderSettings`` a format may or may not take.
public enum EncoderSetting: String, Hashable, Sendable, CaseIterable {
    /// ``EncoderSettings/quality``.
    case quality
    /// ``EncoderSettings/lossless``.
    case lossless
    /// ``EncoderSettings/snapsToBlocks``.
    case snapsToBlocks
    /// ``MetadataPolicy/keepMakerNote``.
    case keepMakerNote
    /// ``EncoderSettings/compression``.
    case compression
}
