import CropGeometry
import Foundation

/// The leak rules for HEIF: what in a HEIF file could show more than its
/// primary image.
extension LeakCheck {
    /// A HEIF's findings: images other than the primary (thumbnails,
    /// auxiliary images but alpha, other top-level images), EXIF or XMP that
    /// shows more, pixels coded beyond the clean aperture, and bytes no
    /// item uses.
    static func heifFindings(_ info: HEIFFileInfo, input: ImageInput)
        throws(ImagingError) -> [LeakFinding]
    {
        var found: [LeakFinding] = []
        let size = PixelSize<StoredPixels>(width: info.width, height: info.height)
        for image in info.thumbnails {
            found.append(
                LeakFinding(
                    place: "item \(image.item)", kind: .embeddedImage,
                    detail: "a thumbnail \(image.width)x\(image.height)"))
        }
        // A companion cut with the photo is no leak: an auxiliary image on
        // a grid aligned to the photo's, the `tmap` rendition of the photo
        // and such a gain map at the photo's size, the other eye at the
        // photo's size. (A whole photo's gain map beside a crop of the same
        // proportions cannot be told from a cut one; a differently shaped
        // crop shows it.)
        let companions = Set(alignedCompanions(info))
        for image in info.auxiliaryImages where !companions.contains(image.item) {
            found.append(
                LeakFinding(
                    place: "item \(image.item)", kind: .embeddedImage,
                    detail: "an auxiliary image (\(image.role.isEmpty ? image.type : image.role))"))
        }
        for image in info.otherImages where !companions.contains(image.item) {
            found.append(
                LeakFinding(
                    place: "item \(image.item)", kind: .embeddedImage,
                    detail: "another image (\(image.type))"))
        }
        let gainMapKept = info.companions.contains {
            companions.contains($0.item) && $0.role.hasSuffix("hdrgainmap")
        }
        if let exif = info.exif {
            for leak in EXIFRewriter(tiff: exif)?.leaks(size: size) ?? [EXIFRewriter.unreadable] {
                found.append(LeakFinding(place: "Exif item", leak))
            }
            if let image = embeddedImage(exif) {
                found.append(LeakFinding(place: "Exif item", kind: .embeddedImage, detail: image))
            }
        }
        if let xmp = info.xmp {
            let text = String(decoding: xmp, as: UTF8.self)
            for leak in XMPCleaner.imageLeaks(
                in: text, exempt: gainMapKept ? XMPCleaner.gainMapItems : [])
            {
                found.append(LeakFinding(place: "XMP item", kind: .embeddedImage, detail: leak))
            }
        }
        found += try heifDataFindings(info, input: input)
        if HEIFDecoder.libheifVersion != nil {
            found += try hiddenPixelFindings(info, input: input)
        }
        return found
    }

    /// The items of `info` that are companions cut with its photo: its
    /// auxiliary images whose grids are aligned to the photo's (not one of
    /// the whole photo, such as Apple's linear thumbnail), a `tmap` of the
    /// photo's displayed size over such a gain map, and the other eye of a
    /// stereo pair at the photo's size.
    static func alignedCompanions(_ info: HEIFFileInfo) -> [Int] {
        let photo = PixelSize<StoredPixels>(width: info.width, height: info.height)
        let aligned = info.companions.filter { companion in
            guard companion.problem == nil, !companion.showsWholePhoto,
                let grid = CompanionGrid(
                    imageSize: photo,
                    companionSize: PixelSize(width: companion.width, height: companion.height))
            else { return false }
            return grid.isAligned
        }.map(\.item)
        var items = aligned
        let shown =
            info.orientation.swapsAxes ? (info.height, info.width) : (info.width, info.height)
        if let toneMap = info.toneMap, aligned.contains(toneMap.gainMap),
            let image = info.otherImages.first(where: { $0.item == toneMap.item }),
            (image.width, image.height) == shown
        {
            items.append(toneMap.item)
        }
        items += info.stereoEyes.filter { $0.problem == nil }.map(\.item)
        return items
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
        // The other eye's own EXIF is its, as the photo's is the photo's.
        let eyes = Set(info.stereoEyes.filter { $0.problem == nil }.flatMap(\.describedBy))
        for data in info.itemData where !tiles.contains(data.item) && !reported.contains(data.item)
        {
            let place = "item \(data.item) (\(data.type))"
            // A coded image no one shows and nothing derives from: hidden,
            // or of a kind the reader lists nowhere, it may hold the whole
            // photo (libheif and a hex editor show it all the same).
            if coded.contains(data.type), data.item != info.primaryItem,
                !info.imageInputs.contains(data.item)
            {
                found.append(
                    LeakFinding(
                        place: place, kind: .embeddedImage,
                        detail:
                            "an image item that no image uses (\(data.extents.reduce(0) { $0 + $1.count }) bytes of \(HEIFCodec.allTypes[data.type]?.name ?? data.type)): hidden, but a whole picture"
                    ))
            }
            if data.type == "Exif", data.item != info.exifItem, !eyes.contains(data.item) {
                found.append(
                    LeakFinding(
                        place: place, kind: .embeddedImage,
                        detail:
                            "an EXIF item that is not the image's own (a second one, or linked to no image or only to a tile)"
                    ))
            }
            if data.type == "Exif", data.item != info.exifItem {
                let bytes = try readAll(data.extents, input: input, limit: 1 << 20)
                if bytes.count > 4 {
                    let skip = (0..<4).reduce(0) { $0 << 8 | Int(bytes[$1]) }
                    if skip <= bytes.count - 4,
                        let leaks = EXIFRewriter(tiff: Array(bytes[(4 + skip)...]))?.leaks(
                            size: size)
                    {
                        for leak in leaks { found.append(LeakFinding(place: place, leak)) }
                    }
                }
            }
            // Coded pictures are not searched for markers (their entropy-
            // coded bytes hold any three bytes somewhere); every other item
            // is, but the image's own EXIF, searched above.
            if !coded.contains(data.type), data.item != info.exifItem,
                let image = try embeddedImage(in: data.extents, input: input, format: .heif)
            {
                found.append(LeakFinding(place: place, kind: .embeddedImage, detail: image))
            }
        }
        // Boxes inside meta the reader passes over (free, skip, unknown
        // ones, properties), and the bytes of idat no item uses.
        for box in info.unreadMetaBoxes {
            if let image = try embeddedImage(in: [box.range], input: input, format: .heif) {
                found.append(
                    LeakFinding(
                        place: "'\(box.type)' in 'meta' at byte \(box.range.lowerBound)",
                        kind: .embeddedImage,
                        detail: box.type == "colr"
                            ? "a colour box holds \(image)"
                            : "a box the image does not use holds \(image.dropFirst(3))"))
            }
        }
        if let idat = info.idatRange {
            let unused = unusedParts(of: idat, used: info.itemData.flatMap(\.extents))
            if let image = try embeddedImage(in: unused, input: input, format: .heif) {
                found.append(
                    LeakFinding(
                        place: "'idat' at byte \(idat.lowerBound)", kind: .embeddedImage,
                        detail: "bytes no item uses hold \(image.dropFirst(3))"))
            }
        }
        // Bytes no item uses: boxes other than meta and mdat, and the parts
        // of mdat outside every item's data.
        let used =
            (info.itemData.flatMap(\.extents)
                + info.topLevelBoxes.filter { $0.type == "meta" }.map(\.range))
        for box in info.topLevelBoxes where box.type != "meta" {
            let unused = unusedParts(of: box.range, used: used)
            if let image = try embeddedImage(in: unused, input: input, format: .heif) {
                found.append(
                    LeakFinding(
                        place: "'\(box.type)' at byte \(box.range.lowerBound)",
                        kind: .embeddedImage,
                        detail: "bytes no item uses hold \(image.dropFirst(3))"))
            }
        }
        return found
    }

    /// The parts of `whole` that no range of `used` covers.
    static func unusedParts(of whole: Range<Int>, used: [Range<Int>]) -> [Range<Int>] {
        var unused: [Range<Int>] = []
        var at = whole.lowerBound
        for range in used.sorted(by: { $0.lowerBound < $1.lowerBound })
        where range.upperBound > at && range.lowerBound < whole.upperBound {
            if range.lowerBound > at { unused.append(at..<range.lowerBound) }
            at = max(at, range.upperBound)
        }
        if at < whole.upperBound { unused.append(at..<whole.upperBound) }
        return unused
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
        try concurrentResults(tiles.count) { n throws(ImagingError) in
            try hiddenPixelFinding(tile: tiles[n], of: info, shown: shown, input: input)
        }
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
        var hidden = 0
        var differing = 0
        var low = [Int.max, Int.max, Int.max]
        var high = [Int.min, Int.min, Int.min]
        pixels.withUnsafeBufferPointer { pixels in
            func value(_ x: Int, _ y: Int, _ c: Int) -> Int {
                let at = y * row + (x * 3 + c) * sampleBytes
                return
                    (sampleBytes == 2
                    ? Int(pixels[at]) << 8 | Int(pixels[at + 1]) : Int(pixels[at]))
                    >> shift
            }
            for y in 0..<tile.height {
                let cy = top + y
                // Within the shown rows only the columns left and right of
                // it are hidden; the rest of the row is not looked at.
                let spans =
                    cy < shown.y || cy >= shown.maxY
                    ? [0..<tile.width]
                    : [
                        0..<min(max(shown.x - left, 0), tile.width),
                        min(max(shown.maxX - left, 0), tile.width)..<tile.width,
                    ]
                for span in spans {
                    for x in span {
                        let cx = left + x
                        hidden += 1
                        // The first hidden pixel beyond the edge, in this
                        // one's row or column (or corner): a repeated edge,
                        // however coded, is nearly constant from there on.
                        let rx = cx < shown.x ? shown.x - 1 : cx >= shown.maxX ? shown.maxX : cx
                        let ry = cy < shown.y ? shown.y - 1 : cy >= shown.maxY ? shown.maxY : cy
                        let nx = min(max(rx - left, 0), tile.width - 1)
                        let ny = min(max(ry - top, 0), tile.height - 1)
                        let (a0, a1, a2) = (value(x, y, 0), value(x, y, 1), value(x, y, 2))
                        if abs(a0 - value(nx, ny, 0)) > 24 || abs(a1 - value(nx, ny, 1)) > 24
                            || abs(a2 - value(nx, ny, 2)) > 24
                        {
                            differing += 1
                            low[0] = min(low[0], a0)
                            low[1] = min(low[1], a1)
                            low[2] = min(low[2], a2)
                            high[0] = max(high[0], a0)
                            high[1] = max(high[1], a1)
                            high[2] = max(high[2], a2)
                        }
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
                place: "tile \(index) (item \(tile.item))", kind: .hiddenPixels,
                detail:
                    "\(differing) of its \(hidden) hidden pixels (beyond the clean aperture or the grid's output) are not the shown edge repeated: pixels beyond the image, hidden, not removed"
            )
        }
        return nil
    }

    /// Markers of embedded images: a JPEG's SOI and a PNG's signature.
    static let jpegStart: [UInt8] = [0xFF, 0xD8, 0xFF]
    static let pngStart: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}
