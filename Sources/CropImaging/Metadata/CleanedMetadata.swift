import CropGeometry

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
    /// Adds a container's EXIF block and XMP packet (a WebP's chunks, a
    /// PNG's), each cleaned for an upright crop of `size` by the one
    /// route (``MetadataBlockCleaner``, places mapped under `policy`) and
    /// named in the report as `vocabulary` names them.
    mutating func cleanUpright(
        exif: [UInt8]?, xmp: [UInt8]?, vocabulary: MetadataVocabulary,
        size: PixelSize<StoredPixels>, policy: MetadataPolicy
    ) {
        if let exif {
            let (tiff, entry, warning) = MetadataBlockCleaner.exif(
                exif, name: vocabulary.exif, size: size, orientation: .up, policy: policy)
            self.exif = tiff
            entries.append(entry)
            if let warning { warnings.append(warning) }
        }
        if let xmp {
            let (packet, entry) = MetadataBlockCleaner.xmp(
                xmp, name: vocabulary.xmp, size: size, policy: policy)
            self.xmp = packet
            entries.append(entry)
        }
    }

    /// What became of each piece of the source's metadata, said in the
    /// terms of the file a writer of another format made of it
    /// (`vocabulary`): a block it wrote (`written`) named as the output
    /// holds it ("EXIF chunk (from APP1 EXIF)"); a block the cleaning kept
    /// that the output has no place for (a JFIF header in a WebP), or that
    /// the writer could not write, dropped and saying so; what the cleaning
    /// dropped named as the source held it; the source's own blocks the
    /// writer drops (``droppedNativeEntries(writing:)``); and a profile
    /// moved from a block of the source's own ("iCCP").
    func entries(as vocabulary: MetadataVocabulary, written: Set<MetadataKind>) -> [MetadataEntry] {
        var out = entries.map { entry -> MetadataEntry in
            guard entry.action != .dropped else { return entry }
            guard let name = vocabulary.name(of: entry.kind) else {
                return MetadataEntry(
                    segment: entry.segment, action: .dropped,
                    reason:
                        "not carried into the \(vocabulary.format) (across formats CropKit carries EXIF, XMP and the colour profile)",
                    kind: entry.kind)
            }
            guard written.contains(entry.kind) else {
                return MetadataEntry(
                    segment: entry.segment, action: .dropped,
                    reason: "not written (the warnings say why)", kind: entry.kind)
            }
            var renamed = entry
            if name != entry.segment { renamed.segment = "\(name) (from \(entry.segment))" }
            return renamed
        }
        if written.contains(.iccProfile), let origin = iccOrigin,
            !entries.contains(where: { $0.kind == .iccProfile })
        {
            out.append(
                MetadataEntry(
                    segment: "\(vocabulary.iccProfile) (from \(origin))", action: .rewritten,
                    reason: "the colour profile", kind: .iccProfile))
        }
        return out + droppedNativeEntries(writing: vocabulary.format)
    }

    /// The kinds of block a writer that writes every block it is given
    /// writes of this metadata.
    var kinds: Set<MetadataKind> {
        var kinds: Set<MetadataKind> = []
        if exif != nil { kinds.insert(.exif) }
        if xmp != nil { kinds.insert(.xmp) }
        if iccProfile != nil { kinds.insert(.iccProfile) }
        return kinds
    }

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
