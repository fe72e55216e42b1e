import CropGeometry
import Dispatch

/// Pixels a decode gave, and what it had to step over.
public struct DecodedImage: Sendable {
    /// The pixels, in the stored grid.
    public var image: RasterImage
    /// Problems that did not stop the decode (the header's included).
    public var warnings: [String]
    /// What became of the image data's own checksum (a PNG's zlib Adler-32);
    /// `nil` for a format without one (JPEG).
    public var checksum: DataChecksum? = nil
}
