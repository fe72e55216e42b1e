import CropGeometry
import Foundation

/// Looks through a crop for anything that shows the uncropped photo: an
/// embedded image (an EXIF or JFIF thumbnail, a maker-note preview, an MPF
/// secondary image, an XMP preview or GContainer item, extended XMP), bytes
/// after the end of the image (EOI or IEND), and dimension tags that
/// disagree with the pixels. The aCropalypse kind of leak (CVE-2023-21036,
/// CVE-2023-28303) is the last of these.
///
/// One kind of secondary image is not a finding: an MPF index whose images
/// follow the primary one exactly, fill the rest of the file and are JPEGs
/// at the primary's proportions with no findings of their own, as a gain
/// map cropped with its photo is (`crop --gain-map crop`). A whole-photo
/// image of a crop that happens to have the photo's proportions would pass
/// that test; its dimensions are all the check can go by.
public enum LeakCheck {
    /// The findings in the image `source`; none for a clean crop.
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read.
    public static func findings(in source: ImageSource) throws(ImagingError) -> [LeakFinding] {
        switch source.header {
        case .jpeg(let info): try jpegFindings(info, input: source.input)
        case .png(let info): try pngFindings(info, input: source.input)
        case .heif(let info): try heifFindings(info, input: source.input)
        }
    }

    /// A HEIF's findings: images other than the primary (thumbnails,
    /// auxiliary images but alpha, other top-level images), EXIF or XMP that
    /// shows more, pixels coded beyond the clean aperture, and bytes no
    /// item uses.
    private static func heifFindings(_ info: HEIFFileInfo, input: ImageInput)
        throws(ImagingError) -> [LeakFinding]
    {
        var found: [LeakFinding] = []
        let size = PixelSize<StoredPixels>(width: info.width, height: info.height)
        for image in info.thumbnails {
            found.append(
                LeakFinding(
                    place: "item \(image.item)",
                    detail: "a thumbnail \(image.width)x\(image.height)"))
        }
        for image in info.auxiliaryImages {
            found.append(
                LeakFinding(
                    place: "item \(image.item)",
                    detail: "an auxiliary image (\(image.role.isEmpty ? image.type : image.role))"))
        }
        for image in info.otherImages {
            found.append(
                LeakFinding(place: "item \(image.item)", detail: "another image (\(image.type))"))
        }
        if let exif = info.exif {
            for leak in EXIFRewriter(tiff: exif)?.leaks(size: size) ?? ["EXIF that cannot be read"]
            {
                found.append(LeakFinding(place: "Exif item", detail: leak))
            }
            if let image = embeddedImage(exif) {
                found.append(LeakFinding(place: "Exif item", detail: image))
            }
        }
        if let xmp = info.xmp {
            let text = String(decoding: xmp, as: UTF8.self)
            for property in XMPCleaner.previews
            where text.contains("\(property)=") || text.contains("<\(property)") {
                found.append(
                    LeakFinding(
                        place: "XMP item", detail: "\(property), a preview or an image item"))
            }
        }
        found += try heifDataFindings(info, input: input)
        if HEIFDecoder.libheifVersion != nil {
            found += try hiddenPixelFindings(info, input: input)
        }
        return found
    }

    /// What the items and boxes a viewer may never show hold: an image
    /// embedded in any item's data (a `mime`, `uri ` or `jpeg` item, an
    /// EXIF item not the image's own or linked only to a tile, which may
    /// also hold an IFD1 thumbnail), and in bytes no item uses (a `free`
    /// box, unused `mdat` bytes). The data is read a MiB at a time.
    static func heifDataFindings(_ info: HEIFFileInfo, input: ImageInput) throws(ImagingError)
        -> [LeakFinding]
    {
        var found: [LeakFinding] = []
        let coded: Set<String> = ["hvc1", "hvt1", "av01", "grid", "iden", "tmap", "j2k1", "unci"]
        let tiles = Set(info.layout.tiles.map(\.item) + (info.alpha?.tiles.map(\.item) ?? []))
        let reported = Set(
            (info.thumbnails + info.auxiliaryImages + info.otherImages).map(\.item))
        let size = PixelSize<StoredPixels>(width: info.width, height: info.height)
        for data in info.itemData where !tiles.contains(data.item) && !reported.contains(data.item)
        {
            let place = "item \(data.item) (\(data.type))"
            if data.type == "Exif", data.item != info.exifItem {
                found.append(
                    LeakFinding(
                        place: place,
                        detail:
                            "an EXIF item that is not the image's own (a second one, or linked to no image or only to a tile)"
                    ))
                let bytes = try readAll(data.extents, input: input, limit: 1 << 20)
                if bytes.count > 4 {
                    let skip = (0..<4).reduce(0) { $0 << 8 | Int(bytes[$1]) }
                    if skip <= bytes.count - 4,
                        let leaks = EXIFRewriter(tiff: Array(bytes[(4 + skip)...]))?.leaks(
                            size: size)
                    {
                        for leak in leaks { found.append(LeakFinding(place: place, detail: leak)) }
                    }
                }
            }
            // Coded pictures are not searched for markers (their entropy-
            // coded bytes hold any three bytes somewhere); every other item
            // is, but the image's own EXIF, searched above.
            if !coded.contains(data.type), data.item != info.exifItem,
                let image = try embeddedImage(in: data.extents, input: input)
            {
                found.append(LeakFinding(place: place, detail: image))
            }
        }
        // Bytes no item uses: boxes other than meta and mdat, and the parts
        // of mdat outside every item's data.
        let used =
            (info.itemData.flatMap(\.extents)
            + info.topLevelBoxes.filter { $0.type == "meta" }.map(\.range))
            .sorted { $0.lowerBound < $1.lowerBound }
        for box in info.topLevelBoxes where box.type != "meta" {
            var unused: [Range<Int>] = []
            var at = box.range.lowerBound
            for range in used where range.upperBound > at && range.lowerBound < box.range.upperBound
            {
                if range.lowerBound > at { unused.append(at..<range.lowerBound) }
                at = max(at, range.upperBound)
            }
            if at < box.range.upperBound { unused.append(at..<box.range.upperBound) }
            if let image = try embeddedImage(in: unused, input: input) {
                found.append(
                    LeakFinding(
                        place: "'\(box.type)' at byte \(box.range.lowerBound)",
                        detail: "bytes no item uses hold \(image.dropFirst(3))"))
            }
        }
        return found
    }

    /// The first embedded image marker in the bytes of `ranges`, read a MiB
    /// at a time (with an overlap, so that a marker across two reads is
    /// found).
    static func embeddedImage(in ranges: [Range<Int>], input: ImageInput) throws(ImagingError)
        -> String?
    {
        let overlap = pngStart.count - 1
        for range in ranges {
            var at = range.lowerBound
            while at < range.upperBound {
                let count = min(1 << 20, range.upperBound - at)
                let bytes = try input.read(at: at, count: count, format: .heif)
                if let image = embeddedImage(bytes) { return image }
                guard at + count < range.upperBound else { break }
                at += max(count - overlap, 1)
            }
        }
        return nil
    }

    /// The bytes of `ranges`, up to `limit`.
    static func readAll(_ ranges: [Range<Int>], input: ImageInput, limit: Int)
        throws(ImagingError) -> [UInt8]
    {
        var out: [UInt8] = []
        for range in ranges where out.count < limit {
            let count = min(range.count, limit - out.count)
            out += try input.read(at: range.lowerBound, count: count, format: .heif)
        }
        return out
    }

    /// Pixels a HEIF codes but does not show (beyond its clean aperture or
    /// its grid's output) that are not the shown edge repeated: an image
    /// of more than the crop, hidden. Each tile with such pixels is decoded
    /// and every hidden pixel compared with the first hidden pixel of its
    /// row or column beyond the edge (a repeated edge, however lossily
    /// coded, is nearly constant from there on; comparing with the last
    /// shown pixel instead would count the coding error at the edge); more
    /// than 2 % of them (at least 16) differing by over 24 of 255, and not
    /// one flat fill, is a finding. Real content beyond the edge differs
    /// from its own first column or row, but where it is flat (sky, a
    /// wall).
    static func hiddenPixelFindings(_ info: HEIFFileInfo, input: ImageInput)
        throws(ImagingError) -> [LeakFinding]
    {
        let shown = PixelRect<StoredPixels>(
            x: info.origin.x, y: info.origin.y, width: info.width, height: info.height)
        return try hiddenPixelFindings(
            tiles: Array(info.layout.tiles.indices), of: info, shown: shown, input: input
        ).compactMap { $0 }
    }

    /// ``hiddenPixelFinding(tile:of:shown:input:)`` of each of `tiles`, in
    /// their order, the tiles decoded in parallel.
    static func hiddenPixelFindings(
        tiles: [Int], of info: HEIFFileInfo, shown: PixelRect<StoredPixels>, input: ImageInput
    ) throws(ImagingError) -> [LeakFinding?] {
        final class Results: @unchecked Sendable {
            var findings: [LeakFinding?]
            init(_ count: Int) { findings = Array(repeating: nil, count: count) }
        }
        let results = Results(tiles.count)
        let errors = ErrorBox()
        DispatchQueue.concurrentPerform(iterations: tiles.count) { n in
            do throws(ImagingError) {
                // Each iteration writes its own slot only.
                results.findings[n] = try hiddenPixelFinding(
                    tile: tiles[n], of: info, shown: shown, input: input)
            } catch {
                errors.record(error, order: n)
            }
        }
        if let error = errors.first { throw error }
        return results.findings
    }

    /// The finding for the samples tile `index` of `info` codes outside
    /// `shown` (a rect on the grid's canvas), judged as
    /// ``hiddenPixelFindings(_:input:)`` judges them (the tile decoded), or
    /// nil when it codes nothing beyond `shown`, does not touch it, or what
    /// it codes there is the shown edge repeated or a flat fill. The HEIC
    /// writer asks the same of the tiles it would copy, so that what it
    /// writes is what this check calls clean.
    static func hiddenPixelFinding(
        tile index: Int, of info: HEIFFileInfo, shown: PixelRect<StoredPixels>,
        input: ImageInput
    ) throws(ImagingError) -> LeakFinding? {
        let layout = info.layout
        let shift = max(info.bitDepth - 8, 0)
        let sampleBytes = info.bitDepth > 8 ? 2 : 1
        let tile = layout.tiles[index]
        let left = index % layout.columns * layout.tileWidth
        let top = index / layout.columns * layout.tileHeight
        let area = PixelRect<StoredPixels>(
            x: left, y: top, width: tile.width, height: tile.height)
        let inside =
            shown.x <= area.x && shown.y <= area.y && area.maxX <= shown.maxX
            && area.maxY <= shown.maxY
        let touches =
            area.x < shown.maxX && shown.x < area.maxX && area.y < shown.maxY
            && shown.y < area.maxY
        guard !inside, touches else { return nil }
        let pixels = try HEIFDecoder.decodeWhole(tile, input: input, bitDepth: info.bitDepth)
        let row = tile.width * 3 * sampleBytes
        func value(_ x: Int, _ y: Int, _ c: Int) -> Int {
            let at = y * row + (x * 3 + c) * sampleBytes
            return
                (sampleBytes == 2
                ? Int(pixels[at]) << 8 | Int(pixels[at + 1]) : Int(pixels[at]))
                >> shift
        }
        var hidden = 0
        var differing = 0
        var low = [Int.max, Int.max, Int.max]
        var high = [Int.min, Int.min, Int.min]
        for y in 0..<tile.height {
            for x in 0..<tile.width {
                let (cx, cy) = (left + x, top + y)
                guard cx < shown.x || cx >= shown.maxX || cy < shown.y || cy >= shown.maxY
                else {
                    continue
                }
                hidden += 1
                // The first hidden pixel beyond the edge, in this one's
                // row or column (or corner): a repeated edge, however
                // coded, is nearly constant from there on.
                let rx = cx < shown.x ? shown.x - 1 : cx >= shown.maxX ? shown.maxX : cx
                let ry = cy < shown.y ? shown.y - 1 : cy >= shown.maxY ? shown.maxY : cy
                let nx = min(max(rx - left, 0), tile.width - 1)
                let ny = min(max(ry - top, 0), tile.height - 1)
                if (0..<3).contains(where: { abs(value(x, y, $0) - value(nx, ny, $0)) > 24 }) {
                    differing += 1
                    for c in 0..<3 {
                        low[c] = min(low[c], value(x, y, c))
                        high[c] = max(high[c], value(x, y, c))
                    }
                }
            }
        }
        // A flat fill (an iPhone pads its edge tiles with black) is not
        // an image.
        if differing >= 16, differing * 50 > hidden,
            !(0..<3).allSatisfy({ high[$0] - low[$0] <= 64 })
        {
            return LeakFinding(
                place: "tile \(index) (item \(tile.item))",
                detail:
                    "\(differing) of its \(hidden) hidden pixels (beyond the clean aperture or the grid's output) are not the shown edge repeated: pixels beyond the image, hidden, not removed"
            )
        }
        return nil
    }

    /// Markers of embedded images: a JPEG's SOI and a PNG's signature.
    static let jpegStart: [UInt8] = [0xFF, 0xD8, 0xFF]
    static let pngStart: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

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

    static func embeddedImage(_ body: [UInt8]) -> String? {
        if contains(body, jpegStart) { return "an embedded JPEG image" }
        if contains(body, pngStart) { return "an embedded PNG image" }
        return nil
    }

    private static func jpegFindings(_ info: JPEGFileInfo, input: ImageInput) throws(ImagingError)
        -> [LeakFinding]
    {
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
        for segment in info.segments
        where (0xE0...0xEF).contains(segment.marker) || segment.marker == 0xFE {
            let body = try input.read(
                at: segment.bodyOffset, count: segment.bodyLength, format: .jpeg)
            var place = segment.name
            if body.starts(with: JPEGMetadata.exifSignature) {
                place += " EXIF"
                let tiff = Array(body[6...])
                for leak in EXIFRewriter(tiff: tiff)?.leaks(size: size) ?? [
                    "EXIF that cannot be read"
                ] {
                    found.append(LeakFinding(place: place, detail: leak))
                }
            } else if body.starts(with: JPEGMetadata.xmpSignature) {
                place += " XMP"
                let text = String(decoding: body, as: UTF8.self)
                for property in XMPCleaner.previews
                where !(gainMapKept && XMPCleaner.gainMapItems.contains(property))
                    && (text.contains("\(property)=") || text.contains("<\(property)"))
                {
                    found.append(
                        LeakFinding(place: place, detail: "\(property), a preview or an image item")
                    )
                }
                for (property, isWidth) in XMPCleaner.dimensions {
                    let expected = isWidth ? size.width : size.height
                    for value in xmpValues(property, in: text) where value != expected {
                        found.append(
                            LeakFinding(
                                place: place,
                                detail: "\(property) \(value), not the crop's \(expected)"))
                    }
                }
            } else if body.starts(with: JPEGMetadata.extendedXMPSignature) {
                found.append(
                    LeakFinding(
                        place: place + " extended XMP", detail: "extended XMP (depth maps, images)")
                )
            } else if body.starts(with: Array("MPF\0".utf8)) {
                if !gainMapKept {
                    found.append(
                        LeakFinding(place: place + " MPF", detail: "an index of secondary images"))
                }
            } else if body.starts(with: Array("JFIF\0".utf8)), body.count >= 14,
                body[12] != 0 || body[13] != 0
            {
                found.append(LeakFinding(place: place + " JFIF", detail: "a thumbnail"))
            } else if body.starts(with: Array("JFXX\0".utf8)) {
                found.append(LeakFinding(place: place + " JFXX", detail: "a thumbnail"))
            }
            if let image = embeddedImage(body) {
                found.append(LeakFinding(place: place, detail: image))
            }
        }
        if let end, end < input.byteCount, !gainMapKept {
            found.append(
                LeakFinding(
                    place: "after EOI",
                    detail: "\(input.byteCount - end) bytes after the end of the image"))
        }
        return found
    }

    /// Whether an MPF index names only images that follow the primary one
    /// exactly and fill the rest of the file, each a JPEG at the primary's
    /// proportions with no findings of its own (a gain map cropped with its
    /// photo), and so shows nothing beyond the crop.
    private static func indexesOnlyCroppedGainMaps(
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
                case .jpeg(let mapInfo) = map.header
            else { return false }
            // mw:mh = w:h, up to two pixels of outward rounding each way:
            // mw·h − mh·w = h·ex − w·ey for |ex|, |ey| <= 2.
            let (w, h) = (info.width, info.height)
            let (mw, mh) = (mapInfo.width, mapInfo.height)
            guard abs(mw * h - mh * w) <= 2 * (w + h), try findings(in: map).isEmpty else {
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

    private static func pngFindings(_ info: PNGFileInfo, input: ImageInput) throws(ImagingError)
        -> [LeakFinding]
    {
        var found: [LeakFinding] = []
        // Every chunk but the image data, read from the file: the ones a
        // crop does not carry can hold images too.
        let size = PixelSize<StoredPixels>(width: info.width, height: info.height)
        try forEachPNGChunk(in: input, upTo: 64 << 20, except: "IDAT") { type, data in
            if let image = embeddedImage(data) {
                found.append(LeakFinding(place: type, detail: image))
            }
            if type == "eXIf" {
                for leak in EXIFRewriter(tiff: data)?.leaks(size: size) ?? [] {
                    found.append(LeakFinding(place: "eXIf", detail: leak))
                }
            }
        }
        if let end = info.endOfImage, end < input.byteCount {
            found.append(
                LeakFinding(
                    place: "after IEND",
                    detail: "\(input.byteCount - end) bytes after the end of the image"))
        }
        return found
    }

    /// Calls `body` with the type and data of every chunk of the PNG in
    /// `input` up to IEND, read from the file, but those of type `skipped`
    /// and those longer than `limit` bytes; stops at a length that runs
    /// past the file.
    static func forEachPNGChunk(
        in input: ImageInput, upTo limit: Int, except skipped: String,
        _ body: (String, [UInt8]) throws(ImagingError) -> Void
    ) throws(ImagingError) {
        var offset = 8
        while offset + 12 <= input.byteCount {
            let header = try input.read(at: offset, count: 8, format: .png)
            let length =
                Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            let type = String(decoding: header[4..<8], as: UTF8.self)
            guard length >= 0, offset + 12 + length <= input.byteCount else { break }
            if type != skipped && length <= limit {
                try body(type, try input.read(at: offset + 8, count: length, format: .png))
            }
            offset += 12 + length
            if type == "IEND" { break }
        }
    }
}
