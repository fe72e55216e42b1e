import CropGeometry
import Foundation

/// What became of one piece of the source's metadata in a crop.
public struct MetadataEntry: Hashable, Sendable {
    /// Kept as it was, rewritten to stay true, or dropped.
    public enum Action: String, Sendable {
        /// Copied unchanged.
        case kept
        /// Copied with changes (listed in the reason).
        case rewritten
        /// Not carried.
        case dropped
    }

    /// The segment: "APP1 EXIF", "APP2 ICC_PROFILE", "APP2 MPF", ...
    public var segment: String
    /// What was done with it.
    public var action: Action
    /// Why, in words.
    public var reason: String
    /// What the block is, whatever format holds it: a writer of another
    /// format names the block it wrote it as by this.
    public var kind: MetadataKind = .other
    /// The changes made inside the block, each as a field, where the
    /// writer knows them one by one (an EXIF block's); the ``reason``
    /// joins their phrases.
    public var changes: [MetadataChange] = []
}

/// What a block of metadata is, in any format: EXIF, XMP, a colour
/// profile, or something a format holds of its own (a JFIF header, a PNG's
/// gAMA, a HEIF's nclx).
public enum MetadataKind: String, Sendable {
    /// An EXIF (TIFF) block.
    case exif
    /// An XMP packet.
    case xmp
    /// An ICC colour profile.
    case iccProfile
    /// Anything else.
    case other
}

/// The names a format gives the metadata blocks it writes, for a report
/// that says what the output holds in its own terms.
struct MetadataVocabulary {
    /// The format's name in messages ("WebP").
    var format: String
    /// The block an EXIF block is written as ("EXIF chunk").
    var exif: String
    /// The block an XMP packet is written as.
    var xmp: String
    /// The block a colour profile is written as.
    var iccProfile: String

    /// The name of the block `kind` is written as; `nil` for ``MetadataKind/other``.
    func name(of kind: MetadataKind) -> String? {
        switch kind {
        case .exif: exif
        case .xmp: xmp
        case .iccProfile: iccProfile
        case .other: nil
        }
    }
}
