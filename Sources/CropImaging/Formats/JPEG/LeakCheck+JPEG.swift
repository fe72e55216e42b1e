import CropGeometry
import Foundation

/// The leak rules for JPEG: what in a JPEG file could show more than its
/// primary image.
extension LeakCheck {
    static func jpegFindings(
        _ info: JPEGFileInfo, input: ImageInput, describesGainMap: Bool = false
    ) throws(ImagingError) -> [LeakFinding] {
        var found: [LeakFinding] = []
        let end = try info.endOfImage(in: input)
        // A gain map cropped with the photo: its MPF index, its XMP container
        // description and the bytes after EOI are the crop's own.
        var gainMapKept = false
        for segment in info.segments where segment.marker == 0xE2 {
            let body = try input.read(
                at: segment.bodyOffset, count: segment.bodyLength, format: .jpeg)
            if body.starts(with: Array("MPF\0".utf8)), let end,
                try indexesOnlyCroppedGainMaps(
                    body, segment: segment, end: end, info: info, input: input)
            {
                gainMapKept = true
            }
        }
        let size = PixelSize<StoredPixels>(width: info.width, height: info.height)
        // A depth map cut with the photo: an extended XMP packet that holds
        // Google's depth map alone, on a grid aligned to the photo's, which
        // the main XMP names.
        var depthKept = false
        if let packet = try? GoogleDepth.extendedPacket(info, input: input),
            ExtendedXMP.propertyNames(in: packet) == ["GDepth:Data"],
            let png = GoogleDepth.depthPNG(inPacket: packet),
            let map = try? ImageSource(ImageInput(bytes: png, name: "depth map")),
            let grid = CompanionGrid(imageSize: size, companionSize: map.storedSize),
            grid.isAligned
        {
            depthKept = true
        }
        var extended: [String: [String]]?
        for segment in info.segments
        where (0xE0...0xEF).contains(segment.marker) || segment.marker == 0xFE {
            let body = try input.read(
                at: segment.bodyOffset, count: segment.bodyLength, format: .jpeg)
            var place = segment.name
            if body.starts(with: JPEGMetadata.exifSignature) {
                place += " EXIF"
                let tiff = Array(body[6...])
                for leak in EXIFRewriter(tiff: tiff)?.leaks(size: size) ?? [EXIFRewriter.unreadable]
                {
                    found.append(LeakFinding(place: place, leak))
                }
            } else if body.starts(with: JPEGMetadata.xmpSignature) {
                place += " XMP"
                let text = String(decoding: body, as: UTF8.self)
                let exempt =
                    (gainMapKept || describesGainMap ? XMPCleaner.gainMapItems : [])
                    .union(depthKept ? ["xmpNote:HasExtendedXMP"] : [])
                for leak in XMPCleaner.imageLeaks(in: text, exempt: exempt) {
                    found.append(LeakFinding(place: place, kind: .embeddedImage, detail: leak))
                }
                for (property, isWidth) in XMPCleaner.dimensions {
                    let expected = isWidth ? size.width : size.height
                    for value in xmpValues(property, in: text) where value != expected {
                        found.append(
                            LeakFinding(
                                place: place, staleDimension(property, value, expected)))
                    }
                }
            } else if body.starts(with: JPEGMetadata.extendedXMPSignature), !depthKept {
                if extended == nil { extended = try ExtendedXMP.properties(of: info, input: input) }
                let held = ExtendedXMP.guid(body).flatMap { extended?[$0] } ?? []
                found.append(
                    LeakFinding(
                        place: place + " extended XMP", kind: .embeddedImage,
                        detail: ExtendedXMP.describe(held)))
            } else if body.starts(with: Array("MPF\0".utf8)) {
                if !gainMapKept {
                    found.append(
                        LeakFinding(
                            place: place + " MPF", kind: .imageIndex,
                            detail: "an index of secondary images"))
                }
            } else if body.starts(with: Array("JFIF\0".utf8)), body.count >= 14,
                body[12] != 0 || body[13] != 0
            {
                found.append(
                    LeakFinding(place: place + " JFIF", kind: .embeddedImage, detail: "a thumbnail")
                )
            } else if body.starts(with: Array("JFXX\0".utf8)) {
                found.append(
                    LeakFinding(place: place + " JFXX", kind: .embeddedImage, detail: "a thumbnail")
                )
            }
            if let image = embeddedImage(body) {
                found.append(LeakFinding(place: place, kind: .embeddedImage, detail: image))
            }
        }
        if let end, end < input.byteCount, !gainMapKept {
            found.append(
                try trailingFinding(place: "after EOI", end: end, input: input, format: .jpeg))
        }
        return found
    }

    /// Whether an MPF index names only images that follow the primary one
    /// exactly and fill the rest of the file, each a JPEG at the primary's
    /// proportions with no findings of its own (a gain map cropped with its
    /// photo), and so shows nothing beyond the crop.
    static func indexesOnlyCroppedGainMaps(
        _ body: [UInt8], segment: JPEGSegment, end: Int, info: JPEGFileInfo, input: ImageInput
    ) throws(ImagingError) -> Bool {
        guard let index = MPFIndex(body: body, bodyOffset: segment.bodyOffset) else { return false }
        var next = end
        for entry in index.entries where entry.offset > 0 {
            guard index.base + entry.offset == next, next + entry.size <= input.byteCount else {
                return false
            }
            let bytes = try input.read(at: next, count: entry.size, format: .jpeg)
            guard let map = try? ImageSource(ImageInput(bytes: bytes, name: "MPF image")),
                let mapInfo = map.header as? JPEGFileInfo
            else { return false }
            // mw:mh = w:h, up to two pixels of outward rounding each way:
            // mw·h − mh·w = h·ex − w·ey for |ex|, |ey| <= 2.
            let (w, h) = (info.width, info.height)
            let (mw, mh) = (mapInfo.width, mapInfo.height)
            // The gain map's own XMP describes it (`hdrgm:Version` and
            // its parameters, kept whole): not an image of anything else.
            guard abs(mw * h - mh * w) <= 2 * (w + h),
                try jpegFindings(mapInfo, input: map.input, describesGainMap: true).isEmpty
            else {
                return false
            }
            next += entry.size
        }
        return next == input.byteCount
    }

    /// The numbers `property` is given, as an attribute or an element.
    static func xmpValues(_ property: String, in text: String) -> [Int] {
        var values: [Int] = []
        for (open, close) in [("\(property)=\"", "\""), ("<\(property)>", "</\(property)>")] {
            var rest = text[...]
            while let start = rest.range(of: open) {
                rest = rest[start.upperBound...]
                guard let end = rest.range(of: close) else { break }
                if let value = Int(rest[..<end.lowerBound]) { values.append(value) }
                rest = rest[end.upperBound...]
            }
        }
        return values
    }
}
