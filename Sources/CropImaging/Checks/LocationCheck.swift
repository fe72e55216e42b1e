import CropGeometry

/// Where an image file says it was taken: the personal data a crop keeps by
/// default (``MetadataPolicy/stripLocation`` removes it), found by reading
/// the written file back, so that a report can say so. "leaks: clean" is
/// about pixels beyond the rect; a crop that is clean may still hold the
/// photo's location.
public enum LocationCheck {
    /// The places in `source` that hold a location: "EXIF GPS (7 tags)"
    /// (a GPS block of more than its version), "XMP exif:GPSLatitude,
    /// exif:GPSLongitude" (any location property of the schemas
    /// ``XMPLocation`` knows); empty when there are none.
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read.
    public static func places(in source: ImageSource) throws(ImagingError) -> [String] {
        var exif: [[UInt8]] = []
        var xmp: [String] = []
        switch source.header {
        case .jpeg(let info):
            for segment in info.segments where segment.marker == 0xE1 {
                let body = try source.input.read(
                    at: segment.bodyOffset, count: segment.bodyLength, format: .jpeg)
                if body.starts(with: JPEGMetadata.exifSignature) {
                    exif.append(Array(body[6...]))
                } else if body.starts(with: JPEGMetadata.xmpSignature) {
                    xmp.append(
                        String(decoding: body[JPEGMetadata.xmpSignature.count...], as: UTF8.self))
                }
            }
        case .heif(let info):
            if let block = info.exif { exif.append(block) }
            if let packet = info.xmp { xmp.append(String(decoding: packet, as: UTF8.self)) }
        case .png:
            try LeakCheck.forEachPNGChunk(in: source.input, upTo: 16 << 20, except: "IDAT") {
                type, data in
                if type == "eXIf" {
                    exif.append(data)
                } else if type == "iTXt", data.starts(with: Array("XML:com.adobe.xmp\0\0".utf8)) {
                    // Uncompressed iTXt: keyword, flag 0, method, then
                    // language and translated keyword, each ended by NUL.
                    var at = 19
                    for _ in 0..<2 {
                        while at < data.count, data[at] != 0 { at += 1 }
                        at += 1
                    }
                    if at < data.count { xmp.append(String(decoding: data[at...], as: UTF8.self)) }
                }
            }
        }
        var places: [String] = []
        for block in exif {
            let gps = (EXIFRewriter(tiff: block)?.tags().tags ?? []).filter {
                $0.hasPrefix("gps:") && $0 != "gps:0"
            }
            if !gps.isEmpty { places.append("EXIF GPS (\(gps.count) tags)") }
        }
        for packet in xmp {
            if let removed = XMPLocation.removing(from: packet)?.removed, !removed.isEmpty {
                places.append("XMP " + removed.joined(separator: ", "))
            }
        }
        return places
    }
}
