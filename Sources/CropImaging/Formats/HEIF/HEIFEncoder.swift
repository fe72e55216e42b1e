internal import CImagingShims
import CropGeometry

/// How a crop of a HEIC is written as HEIC: the tiles the crop touches are
/// copied byte for byte into a smaller grid, and a clean aperture (`clap`)
/// cuts the exact rect out of it; the rotation and mirror are kept.
///
/// A tile that the rect's edge cuts inside the photo holds pixels beyond
/// the rect, which `clap` hides but any decoder recovers (the same leak as a
/// JPEG's edge-block padding). By default those edge tiles alone are
/// decoded, the pixels beyond the rect replaced by the rect's edge
/// repeated, and encoded again (libheif's HEVC encoder, x265); every other
/// tile is copied. ``Method/lossless`` refuses a rect whose edges are not on
/// the tile grid or the photo's edge
/// (``CropPlanError/notLossless(_:grownOutward:shrunkInward:blockGrid:)``
/// names the nearest ones); ``snapsToBlocks`` grows the rect to the tile
/// grid instead, and nothing is encoded.
public struct HEIFEncoder: Sendable {
    /// Which tiles may be encoded again.
    public enum Method: String, Sendable {
        /// Tiles inside the rect copied; edge tiles that would carry pixels
        /// beyond it encoded again, with those pixels replaced.
        case automatic
        /// Every tile copied: the rect's edges on the tile grid or the
        /// photo's edge, or the plan is refused.
        case lossless
    }

    /// Which tiles may be encoded again.
    public var method: Method
    /// The quality (1 to 100) edge tiles are encoded at.
    public var quality: Int
    /// Whether the plan grows the rect outward to the tile grid (so that
    /// every tile is copied) and reports the rect it wrote.
    public var snapsToBlocks: Bool
    /// What metadata the crop keeps.
    public var metadata: MetadataPolicy
    /// Whether edge tiles that hold pixels beyond the rect are encoded
    /// again (always, but in the tests' control experiment, which shows
    /// what `clap` alone would leave in the file).
    package var fixesEdges = true

    /// An encoder; by default tiles copied where the rect allows it and
    /// edge tiles encoded again at quality 90.
    public init(
        method: Method = .automatic, quality: Int = 90, snapsToBlocks: Bool = false,
        metadata: MetadataPolicy = MetadataPolicy()
    ) {
        self.method = method
        self.quality = quality
        self.snapsToBlocks = snapsToBlocks
        self.metadata = metadata
    }

    /// Whether libheif here can encode the edge tiles (its HEVC encoder).
    public static var canEncodeTiles: Bool { ck_heif_can_encode() != 0 }
}
