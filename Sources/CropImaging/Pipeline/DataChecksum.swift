import CropGeometry
import Dispatch

/// What became of a PNG's image data checksum (the zlib stream's Adler-32,
/// which covers every row) in one decode.
///
/// A crop that reaches the image's last row reads the stream to its end and
/// checks the checksum: a mismatch is corrupt data, refused like a bad CRC.
/// A crop that ends above the last row never reaches it: its rows are
/// covered by the chunk CRCs only.
public enum DataChecksum: String, Sendable {
    /// The stream ended after the last row and its Adler-32 matched.
    case verified
    /// The crop ends above the last row, so the checksum was not reached.
    case notReached = "not-reached"
    /// Compressed data goes on after the last row; it was not inflated, so
    /// the checksum (which covers it) was not checked. A warning says so.
    case extraDataNotInflated = "extra-data-not-inflated"
}
