import CropGeometry
import CropRecords
import Foundation

/// Looks through a crop for anything that shows the uncropped photo: an
/// embedded image (an EXIF or JFIF thumbnail, a maker-note preview, an MPF
/// secondary image, an XMP preview or GContainer item, extended XMP), bytes
/// after the end of the image (EOI or IEND), and dimension tags and
/// coordinate fields that disagree with the pixels. The aCropalypse kind of leak (CVE-2023-21036,
/// CVE-2023-28303) is the last of these.
///
/// One kind of secondary image is not a finding: an MPF index whose images
/// follow the primary one exactly, fill the rest of the file and are JPEGs
/// at the primary's proportions with no findings of their own, as a gain
/// map cut with its photo is (`crop`, companions kept). A whole-photo
/// image of a crop that happens to have the photo's proportions would pass
/// that test; its dimensions are all the check can go by.
public enum LeakCheck {
    /// The findings in the image `source`; none for a clean crop.
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read.
    public static func findings(in source: ImageSource) throws(ImagingError) -> [LeakFinding] {
        var found = try source.reader.leakFindings(in: source.input)
        // Coordinates in the XMP of any format that describe another size:
        // stale since a crop kept them.
        for packet in try source.metadata().xmp {
            for stale in XMPRegions.staleDimensions(in: packet, size: source.storedSize) {
                found.append(LeakFinding(place: "XMP", kind: .staleDimensions, detail: stale))
            }
        }
        return found
    }

    /// The findings of the one XMP image search (``XMPCleaner/imageLeaks(in:exempt:)``)
    /// in a container's XMP (`packet`, named `place`), as every format
    /// reports them: a gain map's version and directory point at no image
    /// outside a JPEG.
    static func xmpFindings(_ packet: [UInt8]?, place: String) -> [LeakFinding] {
        guard let packet else { return [] }
        return XMPCleaner.imageLeaks(
            in: String(decoding: packet, as: UTF8.self), exempt: XMPCleaner.gainMapItems
        ).map { LeakFinding(place: place, kind: .embeddedImage, detail: $0) }
    }

    /// A dimension `field` that says `value` where the pixels are
    /// `expected`: "PixelXDimension 4032, not the crop's 56".
    static func staleDimension(_ field: String, _ value: Int, _ expected: Int) -> LeakFinding.Found
    {
        .init(
            .staleDimensions, "\(field) \(value), not the crop's \(expected)",
            measured: [
                .init("field", .string(field)), .init("value", .number(value)),
                .init("expected", .number(expected)),
            ])
    }

    /// "an embedded TIFF image" when `data` holds a TIFF header (`II*\0` or
    /// `MM\0*`) whose first IFD lies inside `data` with 1 to 1000 entries:
    /// no ICC tag type and no EXIF value holds one. Four bytes alone are no
    /// image (a mangled file's value may hold its own header's).
    static func embeddedTIFF(_ data: [UInt8]) -> String? {
        for (signature, little) in [
            ([UInt8]([0x49, 0x49, 0x2A, 0]), true), ([0x4D, 0x4D, 0, 0x2A], false),
        ] {
            var from = data.startIndex
            while let hit = data[from...].firstIndex(of: signature[0]) {
                from = hit + 1
                guard hit + 8 <= data.count, data[hit..<hit + 4].elementsEqual(signature) else {
                    continue
                }
                let b = (4..<8).map { Int(data[hit + $0]) }
                let ifd =
                    little
                    ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24
                    : b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
                guard ifd >= 8, ifd <= data.count - hit - 2 else { continue }
                let at = hit + ifd
                let count =
                    little
                    ? Int(data[at]) | Int(data[at + 1]) << 8
                    : Int(data[at]) << 8 | Int(data[at + 1])
                if count >= 1, count <= 1000, at + 2 + 12 * count <= data.count {
                    return "an embedded TIFF image"
                }
            }
        }
        return nil
    }

    /// Whether `bytes` holds `pattern` anywhere.
    static func contains(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard bytes.count >= pattern.count, let first = pattern.first else { return false }
        var index = bytes.startIndex
        while let hit = bytes[index...].firstIndex(of: first) {
            if hit + pattern.count > bytes.count { return false }
            if bytes[hit..<hit + pattern.count].elementsEqual(pattern) { return true }
            index = hit + 1
        }
        return false
    }

    /// The finding for the `count` bytes after the end of the image at
    /// `end`, naming the first embedded image in them (read a MiB at a
    /// time).
    static func trailingFinding(
        place: String, end: Int, input: ImageInput, format: ImageFormat
    ) throws(ImagingError) -> LeakFinding {
        let bytes = input.byteCount - end
        var detail = "\(bytes) bytes after the end of the image"
        if let image = try embeddedImage(in: [end..<input.byteCount], input: input, format: format)
        {
            detail += ", holding \(image.dropFirst(3))"
        }
        return LeakFinding(
            place: place, kind: .trailingBytes, detail: detail,
            measured: [.init("offset", .number(end)), .init("bytes", .number(bytes))])
    }

    /// The first embedded image marker (``embeddedImage(_:)``) in the bytes
    /// of `ranges` of a file of `format`, read a MiB at a time (with an
    /// overlap, so that a marker across two reads is found).
    static func embeddedImage(in ranges: [Range<Int>], input: ImageInput, format: ImageFormat)
        throws(ImagingError) -> String?
    {
        // The longest marker: "ftyp" and a brand.
        let overlap = 7
        for range in ranges {
            var at = range.lowerBound
            while at < range.upperBound {
                let count = min(1 << 20, range.upperBound - at)
                let bytes = try input.read(at: at, count: count, format: format)
                if let image = embeddedImage(bytes) { return image }
                guard at + count < range.upperBound else { break }
                at += max(count - overlap, 1)
            }
        }
        return nil
    }

    /// What image `body` embeds, by its first marker found: a JPEG's SOI,
    /// a PNG's signature, a WebP's RIFF form, an ISOBMFF image file's
    /// `ftyp` (HEIF, AVIF), an HEVC decoder configuration or Annex B
    /// parameter set, an AV1 decoder configuration; `nil` for none. Coded
    /// picture data is never searched (any short pattern occurs in it).
    static func embeddedImage(_ body: [UInt8]) -> String? {
        if contains(body, jpegStart) { return "an embedded JPEG image" }
        if contains(body, pngStart) { return "an embedded PNG image" }
        if contains(body, Array("WEBPVP8".utf8)) { return "an embedded WebP image" }
        for brand in ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1", "avif", "avis"]
        where contains(body, Array("ftyp\(brand)".utf8)) {
            return "an embedded \(brand.hasPrefix("avi") ? "AVIF" : "HEIF") file"
        }
        if contains(body, Array("hvcC".utf8)) || contains(body, [0, 0, 1, 0x40, 0x01]) {
            return "an embedded HEVC image (its decoder configuration)"
        }
        if contains(body, Array("av1C".utf8)) {
            return "an embedded AV1 image (its decoder configuration)"
        }
        return nil
    }

}
