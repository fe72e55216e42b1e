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
    /// keeps the source's value). With `keepsGainMapItems` (a HEIC crop
    /// that carries the gain map), the XMP's gain-map description
    /// (`hdrgm:Version`, its container directory) stays. With
    /// `carriesRegions` (a HEIC crop, which maps them and says so itself),
    /// the region items are not named as dropped.
    static func clean(
        _ info: HEIFFileInfo, size: PixelSize<StoredPixels>, orientation: EXIFOrientation?,
        policy: MetadataPolicy, keepsGainMapItems: Bool = false, carriesRegions: Bool = false
    ) -> HEIFMetadata {
        var result = HEIFMetadata()
        func entry(
            _ what: String, _ action: MetadataEntry.Action, _ why: String,
            kind: MetadataKind = .other
        ) {
            result.entries.append(
                MetadataEntry(segment: what, action: action, reason: why, kind: kind))
        }
        if let profile = info.iccProfile {
            result.iccProfile = profile
            entry(
                "colr ICC", .kept,
                info.iccOnTiles ? "the colour profile (found on the tiles)" : "the colour profile",
                kind: .iccProfile)
        }
        if let problem = info.profileProblem {
            entry("colr ICC", .dropped, problem, kind: .iccProfile)
        }
        if let nclx = info.nclx {
            entry(
                "colr nclx", .kept,
                "colour primaries \(nclx.primaries), transfer \(nclx.transfer), matrix \(nclx.matrix)"
            )
        }
        if let tiff = info.exif {
            let (exif, exifEntry, warning) = MetadataBlockCleaner.exif(
                tiff, name: "Exif item", size: size, orientation: orientation, policy: policy)
            result.exif = exif
            result.entries.append(exifEntry)
            if let warning { result.warnings.append(warning) }
        }
        if let packet = info.xmp {
            let (xmp, xmpEntry) = MetadataBlockCleaner.xmp(
                packet, name: "XMP item", size: size, policy: policy,
                keepsGainMapItems: keepsGainMapItems, keepsStoredGrid: orientation == nil)
            result.xmp = xmp
            result.entries.append(xmpEntry)
        }
        if let bytes = info.contentCredentials {
            entry(
                ContentCredentials.segment("uuid box of \(bytes) bytes"), .dropped,
                ContentCredentials.reason)
        }
        for region in info.regionItems where !carriesRegions {
            entry(
                Self.regionSegment(region), .dropped,
                "HEIF regions, which this output cannot hold: removed, not kept stale")
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

    /// How a report names a region item.
    static func regionSegment(_ region: HEIFRegionItem) -> String {
        "rgan item \(region.item) (HEIF regions)"
    }
}
