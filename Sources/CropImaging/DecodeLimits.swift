/// The most a decode may take on, checked before the big allocations.
///
/// | limit | default | why |
/// | --- | --- | --- |
/// | `maxPixels` | 178,956,970 | Pillow's decompression-bomb limit (about 0.18 gigapixels) |
/// | `maxDimension` | 1,000,000 | no real photo is wider or taller |
/// | `maxChunkBytes` | 16 MiB | one metadata chunk CropKit reads (an ICC profile is at most a few MB) |
/// | `maxMetadataBytes` | 64 MiB | all metadata chunks CropKit reads together |
public struct DecodeLimits: Hashable, Sendable {
    public var maxPixels: Int
    public var maxDimension: Int
    public var maxChunkBytes: Int
    public var maxMetadataBytes: Int

    public init(
        maxPixels: Int = 178_956_970, maxDimension: Int = 1_000_000, maxChunkBytes: Int = 16 << 20,
        maxMetadataBytes: Int = 64 << 20
    ) {
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
        self.maxChunkBytes = maxChunkBytes
        self.maxMetadataBytes = maxMetadataBytes
    }

    public static let standard = DecodeLimits()
}
