import CropGeometry

/// An entity group of `grpl` (ISO/IEC 14496-12 8.18.3): `altr` (the same
/// picture shown another way, as a `tmap` HDR rendition and its SDR
/// primary), `ster` (the two eyes of a stereo pair), and others.
struct HEIFEntityGroup: Sendable, Equatable {
    /// Its type: "altr", "ster", …
    var type: String
    /// Its ID, from the item IDs' number space.
    var id: Int
    /// The items (entities) it groups, in order.
    var entities: [Int]
}

/// An item that describes another (linked by `cdsc`): the XMP of a gain
/// map (its `hdrgm:*` or Apple's `HDRGainMap` fields), a depth map's
/// calibration, a matte's description.
struct HEIFDescription: Sendable {
    /// Its item ID in the source.
    var item: Int
    /// Its item type: "mime", "Exif", "uri ".
    var type: String
    /// Its content type ("application/rdf+xml"), or empty.
    var contentType: String
    /// Its data, whole.
    var data: [UInt8]
}

/// An auxiliary image beside the primary (`auxl`): an HDR gain map, a
/// depth or disparity map, a matte, a Styles map. It lies on its own grid
/// against the primary's, and a crop cuts it by the companion rule.
struct HEIFCompanion: Sendable {
    /// Its item ID.
    var item: Int
    /// Its `auxC` type ("urn:com:apple:photo:2020:aux:hdrgainmap").
    var role: String
    /// Its `auxC` box, whole (the type and any subtype bytes after it).
    var auxC: [UInt8]
    /// Its size as shown: its clean aperture's, else its `ispe`'s (0x0
    /// when it declares none).
    var width: Int
    var height: Int
    /// Its tiles; `nil` when they cannot be read (``problem`` says why).
    var layout: HEIFLayout?
    /// The clean aperture that cuts it (a crop CropKit wrote), if any:
    /// its grid is that rect's, aligned to the photo's own.
    var clap: PixelRect<StoredPixels>?
    /// Why it cannot be cut, or `nil`.
    var problem: String?
    /// Its colour and pixel boxes (`colr`, `pixi`), whole.
    var boxes: [[UInt8]]
    /// Its `nclx` colour, which an AV1 encode repeats in its sequence
    /// header.
    var nclx: HEIFColourDescription?
    /// The items that describe it.
    var descriptions: [HEIFDescription]

    /// What it is, in words: "HDR gain map", "depth map", "matte", …
    var name: String {
        if role.hasSuffix("hdrgainmap") { return "HDR gain map" }
        if role == "urn:mpeg:hevc:2015:auxid:2"
            || role == "urn:mpeg:mpegB:cicp:systems:auxiliary:depth"
            || role.contains("depth") || role.contains("disparity")
        {
            return "depth map"
        }
        if role.hasSuffix("matte") { return "matte" }
        if role.hasSuffix("styledeltamap") { return "Photographic Styles map" }
        if role.hasSuffix("linearthumbnail") { return "linear thumbnail" }
        return "auxiliary image"
    }

    /// Whether it shows the whole photo on no grid of the crop's (Apple's
    /// linear thumbnail): removed by a crop, never kept stale.
    var showsWholePhoto: Bool { role.hasSuffix("linearthumbnail") }
}

/// An ISO 21496-1 tone-map item (`tmap`): the HDR rendition derived from
/// the primary and a gain map (its two `dimg` inputs), its payload the
/// gain map's parameters, which a crop does not change.
struct HEIFToneMap: Sendable {
    /// Its item ID.
    var item: Int
    /// Its payload, whole.
    var data: [UInt8]
    /// Its properties but `ispe`, whole, with their essential flags.
    var boxes: [(box: [UInt8], essential: Bool)]
    /// The companion gain map it takes (its second input).
    var gainMap: Int
    /// Whether it was hidden.
    var hidden: Bool
}

/// The other eye of a stereo pair (a `ster` group with the primary): an
/// image on the primary's grid, cut by the same rect.
struct HEIFStereoEye: Sendable {
    /// Its item ID.
    var item: Int
    /// Its tiles; `nil` when they cannot be read (``problem`` says why).
    var layout: HEIFLayout?
    /// The clean aperture that cuts it, if any.
    var clap: PixelRect<StoredPixels>?
    /// Why it cannot be cut, or `nil`.
    var problem: String?
    /// Its colour and pixel boxes, whole.
    var boxes: [[UInt8]]
    /// The items that describe it (its own EXIF and XMP).
    var describedBy: [Int] = []
    /// The `ster` group.
    var group: HEIFEntityGroup
}

extension HEIFFileInfo {
    /// The most auxiliary images a crop cuts (an iPhone 16 writes six).
    static let maxCompanions = 16
}

extension HEIFParser {
    /// The entity groups of `grpl`, each checked against the box it lies
    /// in (its count never promises more than the box holds).
    mutating func readGroups(_ box: HEIFBox) throws(ImagingError) {
        var r = box.reader(meta)
        while let group = try r.box(in: "grpl") {
            var (g, _, _) = try group.fullReader(meta)
            let id = try g.u32("'\(group.type)' in 'grpl'")
            let count = try g.u32("'\(group.type)' in 'grpl'")
            guard count <= g.remaining / 4 else {
                throw corrupt(
                    "'\(group.type)' group \(id) lists \(count) entities in \(g.remaining) bytes")
            }
            var entities: [Int] = []
            for _ in 0..<count { entities.append(try g.u32("'\(group.type)' in 'grpl'")) }
            groups.append(HEIFEntityGroup(type: group.type, id: id, entities: entities))
        }
    }

    /// The orientation an item's `irot` and `imir` give, and its `clap`
    /// (which MIAF puts before them).
    func transforms(of item: HEIFItem) throws(ImagingError) -> (EXIFOrientation, clap: HEIFBox?) {
        var matrix = (1, 0, 0, 1)
        var clap: HEIFBox?
        var turned = false
        for (index, _) in item.properties {
            let box = properties[index]
            var r = box.reader(meta)
            if box.type == "irot" || box.type == "imir" { turned = true }
            switch box.type {
            case "clap":
                guard !turned else {
                    throw HEIFFailure.unsupported("'clap' follows 'irot' or 'imir'")
                }
                clap = box
            case "irot":
                let angle = (try r.u8("'irot'") & 3) * 90
                for _ in 0..<angle / 90 { matrix = (matrix.1, -matrix.0, matrix.3, -matrix.2) }
            case "imir":
                matrix =
                    try r.u8("'imir'") & 1 == 0
                    ? (matrix.0, -matrix.1, matrix.2, -matrix.3)
                    : (-matrix.0, matrix.1, -matrix.2, matrix.3)
            default: break
            }
        }
        return (HEIFParser.orientation(matrix), clap)
    }

    /// The `colr` and `pixi` boxes of `item`, whole.
    func colourBoxes(of item: HEIFItem) -> [[UInt8]] {
        item.properties.map { properties[$0.index] }.filter {
            carriesColour($0) || $0.type == "pixi"
        }
        .map { Array(meta[$0.whole]) }
    }

    /// The items that describe `item` (`cdsc` to it), read whole within the
    /// metadata limit; one that cannot be read is left out.
    func descriptions(of item: Int) -> [HEIFDescription] {
        var found: [HEIFDescription] = []
        for id in itemOrder where references["cdsc"]?[id]?.contains(item) == true {
            guard let other = items[id], ["mime", "Exif", "uri "].contains(other.type),
                let data = try? self.data(of: other, limit: limits.maxMetadataBytes)
            else { continue }
            found.append(
                HEIFDescription(
                    item: id, type: other.type, contentType: other.contentType, data: data))
        }
        return found
    }

    /// Why an image beside the primary cannot be cut with it, or `nil`:
    /// it is turned unlike the primary.
    func alignmentProblem(_ other: HEIFItem, primary: HEIFItem) -> String? {
        guard let own = try? transforms(of: other), let photo = try? transforms(of: primary) else {
            return "its transforms cannot be read"
        }
        if own.0 != photo.0 {
            return
                "it is turned (orientation \(own.0.rawValue)) unlike the photo (\(photo.0.rawValue)): its alignment is unknown"
        }
        return nil
    }

    /// The auxiliary images beside `primary` that are not its alpha, read
    /// as a crop cuts them.
    func companions(of primary: HEIFItem, auxiliary: [HEIFOtherImage]) -> [HEIFCompanion] {
        let primaryClaims = references["auxl"]?[primary.id] ?? []
        // A phone writes a handful (an iPhone 16 six); a file that claims
        // thousands would cost a decode each.
        let most = HEIFFileInfo.maxCompanions
        return auxiliary.enumerated().compactMap { number, image -> HEIFCompanion? in
            guard let item = items[image.item] else { return nil }
            let auxC = property("auxC", of: item).map { Array(meta[$0.whole]) } ?? []
            var companion = HEIFCompanion(
                item: item.id, role: image.role, auxC: auxC, width: image.width,
                height: image.height, layout: nil, clap: nil, problem: nil,
                boxes: colourBoxes(of: item),
                nclx: nil, descriptions: descriptions(of: item.id))
            for box in item.properties.map({ properties[$0.index] }) where box.type == "colr" {
                var r = box.reader(meta)
                guard (try? r.fourCC("'colr'")) == "nclx",
                    let primaries = try? r.u16("'colr'"), let transfer = try? r.u16("'colr'"),
                    let matrix = try? r.u16("'colr'"), let range = try? r.u8("'colr'")
                else { continue }
                companion.nclx = HEIFColourDescription(
                    primaries: primaries, transfer: transfer, matrix: matrix,
                    fullRange: range & 0x80 != 0)
            }
            if number >= most {
                companion.problem =
                    "the file has more than \(most) auxiliary images; those after the \(most)th are not cut"
            } else if primaryClaims.contains(item.id) {
                companion.problem =
                    "its 'auxl' references are cyclic (the photo is also named an auxiliary image of it)"
            } else if auxC.isEmpty {
                companion.problem = "it has no 'auxC': what it is is unknown"
            } else if let problem = alignmentProblem(item, primary: primary) {
                companion.problem = problem
            } else {
                do throws(ImagingError) {
                    let layout = try self.layout(item, role: "the \(companion.name)")
                    if let box = try transforms(of: item).clap {
                        let clap = try cleanAperture(
                            box, width: layout.width, height: layout.height)
                        companion.clap = clap
                        (companion.width, companion.height) = (clap.width, clap.height)
                    }
                    if layout.tiles[0].bitDepth > 12 {
                        companion.problem = "it has \(layout.tiles[0].bitDepth)-bit samples"
                    } else if layout.tiles.contains(where: {
                        $0.bitDepth != layout.tiles[0].bitDepth
                            || $0.chromaCode != layout.tiles[0].chromaCode
                    }) {
                        companion.problem = "its tiles differ in bit depth or chroma"
                    } else {
                        companion.layout = layout
                    }
                } catch {
                    companion.problem = error.description
                }
            }
            return companion
        }
    }

    /// The `tmap` item derived from the primary and one of its companion
    /// gain maps, if the file has one.
    func toneMap(of primary: HEIFItem, companions: [HEIFCompanion]) -> HEIFToneMap? {
        for id in itemOrder {
            guard let item = items[id], item.type == "tmap",
                let inputs = references["dimg"]?[id], inputs.count == 2, inputs[0] == primary.id,
                companions.contains(where: { $0.item == inputs[1] }),
                let data = try? self.data(of: item, limit: 65_536)
            else { continue }
            let boxes = item.properties.map { (properties[$0.index], $0.essential) }
                .filter { $0.0.type != "ispe" }.map { (Array(meta[$0.0.whole]), $0.1) }
            return HEIFToneMap(
                item: id, data: data, boxes: boxes, gainMap: inputs[1], hidden: item.hidden)
        }
        return nil
    }

    /// The other eyes of `ster` groups that hold the primary.
    func stereoEyes(of primary: HEIFItem, shown: (Int, Int)) -> [HEIFStereoEye] {
        var eyes: [HEIFStereoEye] = []
        for group in groups where group.type == "ster" && group.entities.contains(primary.id) {
            // A pair has one other eye: each item once, one at most.
            for id in group.entities where id != primary.id {
                guard eyes.isEmpty, let item = items[id] else { continue }
                var eye = HEIFStereoEye(
                    item: id, layout: nil, clap: nil, problem: nil, boxes: colourBoxes(of: item),
                    group: group)
                eye.describedBy = itemOrder.filter {
                    references["cdsc"]?[$0]?.contains(id) == true
                }
                if let problem = alignmentProblem(item, primary: primary) {
                    eye.problem = problem
                } else {
                    do throws(ImagingError) {
                        let layout = try self.layout(item, role: "the other eye")
                        let clap = try transforms(of: item).clap.map { box throws(ImagingError) in
                            try cleanAperture(box, width: layout.width, height: layout.height)
                        }
                        eye.clap = clap
                        let size = (clap?.width ?? layout.width, clap?.height ?? layout.height)
                        if size != shown {
                            eye.problem =
                                "it is \(size.0)x\(size.1), the photo \(shown.0)x\(shown.1)"
                        } else if layout.tiles[0].bitDepth > 12 {
                            eye.problem = "it has \(layout.tiles[0].bitDepth)-bit samples"
                        } else {
                            eye.layout = layout
                        }
                    } catch {
                        eye.problem = error.description
                    }
                }
                eyes.append(eye)
            }
        }
        return eyes
    }
}
