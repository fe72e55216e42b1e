import CropGeometry
import Dispatch

/// What an image file's header and metadata say: a PNG's chunk list, a
/// JPEG's markers or a HEIF's boxes.
public enum ImageHeader: Sendable {
    /// A PNG's chunk list.
    case png(PNGFileInfo)
    /// A JPEG's markers up to its first scan.
    case jpeg(JPEGFileInfo)
    /// A HEIF's boxes: its primary image, tiles, transforms and metadata.
    case heif(HEIFFileInfo)
}
