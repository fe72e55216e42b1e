import CropGeometry

/// A HEIF's metadata made true for a crop, whatever the output's format:
/// the EXIF rewritten (its thumbnail IFD removed, its dimensions set, the
/// MakerNote dropped unless kept, GPS under the policy), the XMP cleaned,
/// the colour kept; the images of the whole photo (thumbnails, auxiliary
/// images such as the HDR gain map and depth, other top-level images)
/// never carried.
struct HEIFMetadata {
    /// The cleaned EXIF (a TIFF structure), if kept.
    var exif: [UInt8]?
    /// The cleaned XMP packet, if kept.
    var xmp: String?
    /// The ICC profile, if any.
    var iccProfile: [UInt8]?
    /// What was kept, rewritten and dropped, and why.
    var entries: [MetadataEntry] = []
    /// Problems that did not stop the crop.
    var warnings: [String] = []

    /// The metadata of `info` for a crop of `size` (as its pixels are
    /// stored in the output) with `orientation` written into the EXIF (`nil`
    /// keeps the source's value).
    static func clean(
        _ info: HEIFFileInfo, size: PixelSize<StoredPixels>, orientation: EXIFOrientation?,
        policy: MetadataPolicy
    ) -> HEIFMetadata {
        var result = HEIFMetadata()
        func entry(_ what: String, _ action: MetadataEntry.Action, _ why: String) {
            result.entries.append(MetadataEntry(segment: what, action: action, reason: why))
        }
        if let profile = info.iccProfile {
            result.iccProfile = profile
            entry(
                "colr ICC", .kept,
                info.iccOnTiles ? "the colour profile (found on the tiles)" : "the colour profile")
        }
        if let nclx = info.nclx {
            entry(
                "colr nclx", .kept,
                "colour primaries \(nclx.primaries), transfer \(nclx.transfer), matrix \(nclx.matrix)"
            )
        }
        if let tiff = info.exif {
            if policy.stripAll {
                entry("Exif item", .dropped, "--strip all")
            } else if var rewriter = EXIFRewriter(tiff: tiff),
                let cleaned = rewriter.rewrite(size: size, orientation: orientation, policy: policy)
            {
                result.exif = cleaned
                let changes = rewriter.changes
                entry(
                    "Exif item", changes.isEmpty ? .kept : .rewritten,
                    changes.isEmpty
                        ? "nothing in it shows the whole photo" : changes.joined(separator: "; "))
                if policy.keepMakerNote {
                    result.warnings.append(
                        "the EXIF MakerNote is kept (--keep-makernote): it may hold a preview of the whole photo"
                    )
                }
            } else {
                entry("Exif item", .dropped, "it could not be read, so it cannot be cleaned")
            }
        }
        if let xmp = info.xmp {
            if policy.stripAll {
                entry("XMP item", .dropped, "--strip all")
            } else {
                let (cleaned, changes) = XMPCleaner.clean(
                    String(decoding: xmp, as: UTF8.self), size: size, policy: policy)
                if let cleaned {
                    result.xmp = cleaned
                    entry(
                        "XMP item", changes.isEmpty ? .kept : .rewritten,
                        changes.isEmpty ? "descriptive metadata" : changes.joined(separator: "; "))
                } else {
                    entry("XMP item", .dropped, changes.joined(separator: "; "))
                }
            }
        }
        for image in info.thumbnails {
            entry(
                "thumbnail item \(image.item) (\(image.width)x\(image.height))", .dropped,
                "a thumbnail of the whole photo")
        }
        for image in info.auxiliaryImages {
            let role = image.role.isEmpty ? "auxiliary" : image.role
            entry(
                "auxiliary item \(image.item) \(role) (\(image.width)x\(image.height))", .dropped,
                role.hasSuffix("hdrgainmap")
                    ? "the HDR gain map of the whole photo: the crop shows in standard dynamic range"
                    : "an image of the whole photo")
        }
        for image in info.otherImages {
            entry(
                "\(image.type) item \(image.item)", .dropped,
                image.type == "tmap"
                    ? "the HDR rendition of the whole photo: the crop shows in standard dynamic range"
                    : "another image of the file")
        }
        return result
    }
}
