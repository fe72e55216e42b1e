internal import CImagingShims
import CropGeometry

/// How a HEIC crop was made, for the report.
public struct HEIFWriteReport: Hashable, Sendable {
    /// The grid written: columns × rows of tiles of this size.
    public var grid: String
    /// Tiles copied byte for byte.
    public var copiedTiles: Int
    /// Edge tiles encoded again, the pixels beyond the rect replaced.
    public var reencodedTiles: Int
    /// The coded bytes of the copied tiles: the source's own share of the
    /// output.
    public var copiedBytes: Int
    /// The clean aperture on the new grid, if one cuts it.
    public var cleanAperture: PixelRect<StoredPixels>?
    /// The transforms written after it, e.g. `["irot 270"]`.
    public var transforms: [String]
    /// Notes on conformance (an odd clean-aperture origin with subsampled
    /// chroma, which MIAF before its 2021 amendment did not allow).
    public var notes: [String]
    /// What became of each piece of the source's metadata and each of its
    /// other images.
    public var metadata: [MetadataEntry]
    /// The quality the whole crop was encoded at, when it was encoded from
    /// pixels (an AVIF of another source, or turned, resized or with
    /// alpha) instead of copied tiles; `nil` for a tile copy.
    public var encodedWholeAt: Int? = nil
}
