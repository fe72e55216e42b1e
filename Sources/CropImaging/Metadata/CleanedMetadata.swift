/// A source's metadata cleaned by the leak rules for a crop written as new
/// pixels, turned upright (its EXIF says orientation 1 and the output's
/// size): what every writer serializes its own way.
///
/// Made by the source's format reader
/// (``FormatReader/cleanedMetadata(in:size:policy:)``); a PNG writer makes
/// chunks of it, a JPEG writer segments. The source's own blocks that a
/// writer of the same format carries as they are come along as ``native``.
struct CleanedMetadata {
    /// The cleaned EXIF (a TIFF structure), when kept.
    var exif: [UInt8]? = nil
    /// The cleaned XMP packet, when kept.
    var xmp: String? = nil
    /// The colour profile, when it describes the output's pixels.
    var iccProfile: [UInt8]? = nil
    /// The source's own name for the block the profile came from, when a
    /// writer of another format must say it moved it ("iCCP").
    var iccOrigin: String? = nil
    /// Coding-independent code points (primaries, transfer) when there is
    /// no profile.
    var cicp: (primaries: UInt8, transfer: UInt8)? = nil
    /// How many bits a sample the source had, when the output's samples
    /// were widened from it (10-bit HEIF in 16-bit PNG).
    var significantBits: Int? = nil
    /// What became of each piece of the source's metadata.
    var entries: [MetadataEntry] = []
    /// Warnings for the report.
    var warnings: [String] = []
    /// The source's own metadata blocks, for a writer of its format.
    var native: (any NativeMetadata)? = nil
}

extension CleanedMetadata {
    /// The source's own blocks a writer of another format (`format`: "JPEG",
    /// "WebP") drops, as entries: every one but the profile's, which the
    /// writer moves.
    func droppedNativeEntries(writing format: String) -> [MetadataEntry] {
        guard let native else { return [] }
        return native.blockNames.filter { $0 != iccOrigin }.map { name in
            MetadataEntry(
                segment: name, action: .dropped,
                reason: "a \(native.format.name) chunk \(format) has no place for")
        }
    }
}

/// A source's metadata blocks in its own format's terms, which a writer of
/// that format carries as they are (a PNG's chunks, a JPEG's segments) and
/// a writer of another format names as dropped.
protocol NativeMetadata: Sendable {
    /// The format the blocks are in.
    var format: ImageFormat { get }
    /// The blocks' names, in order ("gAMA", "iCCP").
    var blockNames: [String] { get }
}
