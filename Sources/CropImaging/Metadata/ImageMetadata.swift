import CropRecords

/// An image's metadata as one value, whatever its format: read once from
/// the file by its format's reader (``ImageSource/metadata(includingEmbedded:)``).
///
/// A JPEG's APP1 segments, a PNG's `eXIf` and `iTXt` chunks and a HEIF's
/// `Exif` and `mime` items all become the same EXIF blocks and XMP
/// packets, so that what is asked of metadata (where the photo was taken,
/// what it says of itself, what else the file carries) is answered once.
public struct ImageMetadata: Sendable {
    /// The EXIF blocks (TIFF structures, without JPEG's `Exif\0\0`), the
    /// image's own first.
    public var exif: [[UInt8]] = []
    /// The XMP packets, as text.
    public var xmp: [String] = []
    /// The ICC profile, if any.
    public var iccProfile: [UInt8]? = nil
    /// What else the file carries that could show the photo beyond its
    /// primary image: thumbnails, previews, secondary images (gain maps,
    /// depth maps), auxiliary images, bytes after the image (the leak
    /// rules' findings, ``LeakCheck``); filled only when asked for
    /// (``ImageSource/metadata(includingEmbedded:)``).
    public var embedded: [LeakFinding] = []

    /// No metadata.
    public init() {}

    /// The metadata of a container that holds at most one EXIF block, one
    /// XMP packet and one profile (a HEIF's items, a WebP's chunks).
    init(exif: [UInt8]?, xmp: [UInt8]?, iccProfile: [UInt8]?) {
        self.exif = exif.map { [$0] } ?? []
        self.xmp = xmp.map { [String(decoding: $0, as: UTF8.self)] } ?? []
        self.iccProfile = iccProfile
    }

    /// Where the metadata says the photo was taken: "EXIF GPS (7 tags)" (a
    /// GPS block of more than its version), "XMP exif:GPSLatitude,
    /// exif:GPSLongitude" (any location property of the schemas
    /// ``XMPLocation`` knows); empty when it says nothing.
    public var locations: [String] { locationEntries.map(\.text) }

    /// ``locations`` as `info` lists them: for `--json`, `{source, tags,
    /// properties}` (the EXIF GPS block's tag count, or the XMP
    /// properties).
    public var locationEntries: [ImageFileSummary.Detail.Entry] {
        var places: [ImageFileSummary.Detail.Entry] = []
        for block in exif {
            let gps = (EXIFRewriter(tiff: block)?.tags().tags ?? []).filter {
                $0.hasPrefix("gps:") && $0 != "gps:0"
            }
            if !gps.isEmpty {
                places.append(
                    .init(
                        "EXIF GPS (\(gps.count) tags)",
                        .object([
                            .init("source", .string("EXIF GPS")), .init("tags", .number(gps.count)),
                            .init("properties", .array([])),
                        ])))
            }
        }
        for packet in xmp {
            if let removed = XMPLocation.removing(from: packet)?.removed, !removed.isEmpty {
                places.append(
                    .init(
                        "XMP " + removed.joined(separator: ", "),
                        .object([
                            .init("source", .string("XMP")), .init("tags", .null),
                            .init("properties", .array(removed.map { .string($0) })),
                        ])))
            }
        }
        return places
    }

    /// The names of people the XMP holds (region names, IPTC's persons
    /// shown): personal data a crop keeps unless asked not to
    /// (``MetadataPolicy/stripPeople``).
    public var people: [String] {
        var seen: [String] = []
        for packet in xmp {
            for name in XMPRegions.people(in: packet) where !seen.contains(name) {
                seen.append(name)
            }
        }
        return seen
    }

    /// The places the metadata names in the picture (DESIGN.md,
    /// "Coordinates in metadata"), each with its values, shape and space:
    /// "EXIF SubjectArea 2003,1506: a rectangle 2209x1327 by its centre
    /// (stored pixels; mapped by a crop)", "XMP MWG region Alice: a
    /// rectangle 0.1x0.16, top-left 0.01,0.37 (normalized to the stored image;
    /// mapped by a crop)".
    public var places: [String] { placeEntries.map(\.text) }

    /// ``places`` as `info` lists them (``MetadataPlace``).
    var placeEntries: [ImageFileSummary.Detail.Entry] {
        let subject = exif.first.flatMap { EXIFRewriter(tiff: $0) }?.places() ?? []
        return subject + xmp.flatMap(XMPRegions.describe)
    }

    /// How many tags the image's own EXIF block holds (IFD0, the Exif
    /// IFD and the GPS IFD) and its orientation tag's value; `nil` without
    /// EXIF.
    public var exifTags: (count: Int, orientation: Int?)? {
        guard let block = exif.first, let rewriter = EXIFRewriter(tiff: block) else { return nil }
        let tags = rewriter.tags()
        return (tags.tags.count, tags.orientation)
    }
}
