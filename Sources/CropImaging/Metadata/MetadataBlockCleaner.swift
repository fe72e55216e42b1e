import CropGeometry

/// An EXIF block and an XMP packet made true for a crop, whatever the
/// container they came in (a HEIF's items, a WebP's chunks): the EXIF
/// rewritten (its thumbnail IFD removed, its dimensions set, the
/// MakerNote dropped unless kept, GPS under the policy), the XMP cleaned.
enum MetadataBlockCleaner {
    /// `tiff` (named `name` in the report) for a crop of `size` with
    /// `orientation` written into it (`nil` keeps the source's value): the
    /// cleaned block, if kept, what became of it, and a warning.
    static func exif(
        _ tiff: [UInt8], name: String, size: PixelSize<StoredPixels>,
        orientation: EXIFOrientation?, policy: MetadataPolicy
    ) -> (exif: [UInt8]?, entry: MetadataEntry, warning: String?) {
        if policy.stripAll {
            return (
                nil,
                MetadataEntry(segment: name, action: .dropped, reason: "--strip all", kind: .exif),
                nil
            )
        }
        guard var rewriter = EXIFRewriter(tiff: tiff),
            let cleaned = rewriter.rewrite(size: size, orientation: orientation, policy: policy)
        else {
            return (
                nil,
                MetadataEntry(
                    segment: name, action: .dropped,
                    reason: "it could not be read, so it cannot be cleaned", kind: .exif), nil
            )
        }
        let changes = rewriter.changes
        var entry = MetadataEntry(
            segment: name, action: changes.isEmpty ? .kept : .rewritten,
            reason: MetadataChange.reason(changes), kind: .exif)
        entry.changes = changes
        let warning =
            policy.keepMakerNote
            ? "the EXIF MakerNote is kept (--keep-makernote): it may hold a preview of the whole photo"
            : nil
        return (cleaned, entry, warning)
    }

    /// `packet` (named `name` in the report) for a crop of `size` (its
    /// places mapped into the stored grid the crop keeps, `keepsStoredGrid`,
    /// or into the upright output): the cleaned packet, if kept, and what
    /// became of it.
    static func xmp(
        _ packet: [UInt8], name: String, size: PixelSize<StoredPixels>, policy: MetadataPolicy,
        keepsGainMapItems: Bool = false, keepsStoredGrid: Bool = false
    ) -> (xmp: String?, entry: MetadataEntry) {
        if policy.stripAll {
            return (
                nil,
                MetadataEntry(segment: name, action: .dropped, reason: "--strip all", kind: .xmp)
            )
        }
        let (cleaned, changes, typed) = XMPCleaner.clean(
            String(decoding: packet, as: UTF8.self), size: size, policy: policy,
            keepsGainMapItems: keepsGainMapItems, keepsStoredGrid: keepsStoredGrid)
        guard let cleaned else {
            return (
                nil,
                MetadataEntry(
                    segment: name, action: .dropped, reason: changes.joined(separator: "; "),
                    kind: .xmp)
            )
        }
        var entry = MetadataEntry(
            segment: name, action: changes.isEmpty ? .kept : .rewritten,
            reason: changes.isEmpty ? "descriptive metadata" : changes.joined(separator: "; "),
            kind: .xmp)
        entry.changes = typed
        return (cleaned, entry)
    }
}
