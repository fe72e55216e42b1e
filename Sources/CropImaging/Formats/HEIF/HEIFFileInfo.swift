import CropGeometry

/// What a HEIF (HEIC) file's boxes say about its primary image, read by
/// CropKit's own parser (ISO/IEC 23008-12, MIAF) before libheif sees any
/// of it: the coded images (one, or a grid of tiles), the transforms, the
/// colour, the metadata and the other images the file holds.
///
/// The stored grid of a HEIF is its canvas (a grid's tiles assembled, or
/// the one coded image) with the clean aperture (`clap`) applied: every
/// crop rule of the other formats carries over. The rotation (`irot`) and
/// mirror (`imir`), in the order the file lists them, make the
/// ``orientation``; an EXIF orientation inside a HEIF is not applied (a
/// phone writes both, and applying both would turn the photo twice).
public struct HEIFFileInfo: Sendable {
    /// The file's brands: the major brand, then the compatible ones.
    public var brands: [String]
    /// The primary item's ID.
    public var primaryItem: Int
    /// The coded primary image: one coded image or a grid of tiles.
    public var layout: HEIFLayout
    /// The clean aperture on the canvas, if the file declares one.
    public var cleanAperture: PixelRect<StoredPixels>?
    /// The rotations and mirrors as listed, e.g. `["clap", "irot 270"]`.
    public var transforms: [String]
    /// The turn the transforms make, as one of the eight EXIF orientations.
    public var orientation: EXIFOrientation
    /// Bits a sample of the coded image (8 or 10 for an iPhone).
    public var bitDepth: Int
    /// The chroma format of the first coded image: "4:2:0", "4:4:4", …
    public var chroma: String
    /// The alpha plane, an auxiliary image of the canvas's size, if any.
    public var alpha: HEIFLayout?
    /// The ICC profile, if any: the primary item's, or (as an iPhone writes
    /// it) its tiles'.
    public var iccProfile: [UInt8]?
    /// Why the primary's `colr` profile is not one a crop carries
    /// (``ICCProfile/problem(in:)``), when it is not; ``iccProfile`` is
    /// then `nil`, and no `colr` box holding it is carried.
    public var profileProblem: String? = nil
    /// Whether the ICC profile came from the tiles, not the primary item.
    public var iccOnTiles: Bool
    /// The colour description (`colr` nclx), if any.
    public var nclx: HEIFColourDescription?
    /// The EXIF block (a TIFF header and its IFDs), if the primary image has
    /// one.
    public var exif: [UInt8]?
    /// The orientation the EXIF block states (not applied), if any.
    public var exifOrientation: Int?
    /// The XMP packet, if the primary image has one.
    public var xmp: [UInt8]?
    /// The auxiliary images of the primary (HDR gain map, depth, mattes),
    /// alpha excluded.
    public var auxiliaryImages: [HEIFOtherImage]
    /// The thumbnails of the primary image.
    public var thumbnails: [HEIFOtherImage]
    /// Other top-level images (not the primary, its tiles, thumbnails or
    /// auxiliary images).
    public var otherImages: [HEIFOtherImage]
    /// Problems that did not stop the read.
    public var warnings: [String]
    /// "a HEIF image sequence (msf1)" for a file whose major brand is a
    /// sequence's (`msf1`, `hevc`, `hevx`): its primary image is read.
    public var imageSequence: String? {
        guard let major = brands.first, ["msf1", "hevc", "hevx"].contains(major) else {
            return nil
        }
        return "a HEIF image sequence (\(major))"
    }
    /// The primary item's own colour and `pixi` boxes, whole.
    /// Every item's data in the file (those whose `iloc` reads), for the
    /// leak check to look through.
    var itemData: [HEIFItemData] = []
    /// The EXIF item the image's EXIF comes from.
    var exifItem: Int?
    /// The region items (`rgan`) that describe the primary image
    /// (``HEIFRegions``).
    var regionItems: [HEIFRegionItem] = []
    /// The top-level boxes after `ftyp`: `meta` whole, the others'
    /// payloads.
    var topLevelBoxes: [(type: String, range: Range<Int>)] = []
    /// The bytes of the top-level `uuid` box that holds C2PA content
    /// credentials, if any (``ContentCredentials``): never carried.
    var contentCredentials: Int?
    /// Boxes inside `meta` whose contents the reader does not use (`free`,
    /// `skip`, unknown boxes, and every property but a decoder
    /// configuration), with their payloads' ranges in the file, for the
    /// leak check to look through.
    var unreadMetaBoxes: [(type: String, range: Range<Int>)] = []
    /// The payload of `idat` in the file, if there is one.
    var idatRange: Range<Int>?
    /// The items some derived image (`dimg`) takes as input: the tiles of
    /// every grid, the inputs of every `iden` and `tmap`.
    var imageInputs: Set<Int> = []
    /// The entity groups of `grpl`.
    var groups: [HEIFEntityGroup] = []
    /// The auxiliary images beside the primary (not its alpha), as a crop
    /// cuts them.
    var companions: [HEIFCompanion] = []
    /// The ISO 21496-1 `tmap` item whose inputs are the primary and a
    /// companion gain map, if the file has one.
    var toneMap: HEIFToneMap?
    /// The other eyes of a stereo pair (`ster` groups with the primary).
    var stereoEyes: [HEIFStereoEye] = []
    var primaryBoxes: [[UInt8]] = []
    /// The primary item's `irot` and `imir` boxes, whole, in `ipma` order.
    var transformBoxes: [[UInt8]] = []
    /// The chroma format's code in `hvcC` (0 = 4:0:0, 1 = 4:2:0, 2 = 4:2:2,
    /// 3 = 4:4:4).
    var chromaCode = 1

    /// The stored width: the canvas after the clean aperture.
    public var width: Int { cleanAperture?.width ?? layout.width }
    /// The stored height.
    public var height: Int { cleanAperture?.height ?? layout.height }
    /// Where the stored grid's (0, 0) lies on the canvas.
    public var origin: (x: Int, y: Int) { (cleanAperture?.x ?? 0, cleanAperture?.y ?? 0) }
}

extension HEIFFileInfo {
    /// The most items, properties and references a file may declare.
    static let maxItems = 10_000
    /// The most extents one item's data may have.
    static let maxExtents = 1_024

    /// Reads the boxes of the HEIF in `input`.
    ///
    /// - Throws: ``ImagingError/corrupt(format:detail:)`` for a malformed
    ///   box, count or reference; ``ImagingError/unsupported(format:detail:)``
    ///   for a valid file CropKit cannot crop (an AV1 image, a derived image
    ///   other than a grid); ``ImagingError/limitExceeded(_:limit:actual:)``.
    static func read(_ input: ImageInput, limits: DecodeLimits) throws(ImagingError)
        -> HEIFFileInfo
    {
        try limits.check(fileSize: input.byteCount)
        var parser = try HEIFParser(input: input, limits: limits)
        return try parser.parse()
    }
}

/// One item's data: where it lies in the file.
struct HEIFItemData: Sendable {
    var item: Int
    var type: String
    var hidden: Bool
    var contentType: String
    var extents: [Range<Int>]
}

/// One item of `iinf`, with its location and properties.
struct HEIFItem {
    var id: Int
    var type: String
    var hidden: Bool
    var contentType = ""
    var construction = 0
    var extents: [(offset: Int, length: Int)] = []
    var baseOffset = 0
    /// Indices into the property list (0-based), in `ipma` order, with the
    /// essential flag.
    var properties: [(index: Int, essential: Bool)] = []
}

/// The parse of one file: the top-level boxes, then `meta`'s children.
struct HEIFParser {
    let input: ImageInput
    let limits: DecodeLimits
    var meta: [UInt8] = []
    /// Where `meta`'s bytes start in the file.
    var metaOffset = 0
    var brands: [String] = []
    var items: [Int: HEIFItem] = [:]
    var itemOrder: [Int] = []
    /// The top-level boxes after `ftyp`: `meta` whole, the others' payloads.
    var topLevel: [(type: String, range: Range<Int>)] = []
    /// The bytes of a top-level `uuid` box holding C2PA content
    /// credentials, if there is one.
    var contentCredentials: Int?
    var primary: Int?
    /// Property boxes of `ipco`, in order.
    var properties: [HEIFBox] = []
    /// Why each `colr` property holding a profile (`prof`, `rICC`) is not
    /// one a crop carries (``ICCProfile/problem(in:)``), by where its box
    /// starts; a profile that is one has no entry.
    var profileProblems: [Int: String] = [:]
    /// References: type → from → to.
    var references: [String: [Int: [Int]]] = [:]
    var idat: Range<Int>?
    /// Boxes of `meta`, `iprp` and `ipco` whose contents are not read.
    var unread: [HEIFBox] = []
    /// The entity groups of `grpl` (`altr`, `ster`, …), in order.
    var groups: [HEIFEntityGroup] = []
    var warnings: [String] = []

    init(input: ImageInput, limits: DecodeLimits) throws(ImagingError) {
        self.input = input
        self.limits = limits
    }

    func corrupt(_ detail: String) -> ImagingError { .corrupt(format: .heif, detail: detail) }

    mutating func parse() throws(ImagingError) -> HEIFFileInfo {
        try readTopLevel()
        var reader = HEIFReader(meta)
        let version = try reader.u32("the version of 'meta'")
        guard version >> 24 == 0 else {
            throw corrupt("'meta' has version \(version >> 24); only 0 is defined")
        }
        // Items first: the other boxes refer to them, in any order.
        var boxes: [String: HEIFBox] = [:]
        while let box = try reader.box(in: "meta") {
            if ["hdlr", "pitm", "iinf", "iloc", "iref", "iprp", "idat"].contains(box.type) {
                guard boxes[box.type] == nil else {
                    throw corrupt("'meta' holds two '\(box.type)' boxes")
                }
                boxes[box.type] = box
            } else if box.type == "grpl" {
                try readGroups(box)
            } else if box.type != "dinf" {
                unread.append(box)
            }
        }
        for type in ["hdlr", "pitm", "idat", "iinf", "iloc", "iref", "iprp"] {
            guard let box = boxes[type] else { continue }
            switch box.type {
            case "hdlr":
                var (r, _, _) = try box.fullReader(meta)
                try r.skip(4, "'hdlr'")
                let handler = try r.fourCC("'hdlr'")
                guard handler == "pict" else {
                    throw HEIFFailure.unsupported(
                        "the file's handler is '\(handler)', not 'pict' (an image)")
                }
            case "pitm":
                var (r, version, _) = try box.fullReader(meta)
                primary = version == 0 ? try r.u16("'pitm'") : try r.u32("'pitm'")
            case "iinf": try readItemInfo(box)
            case "iloc": try readLocations(box)
            case "iref": try readReferences(box)
            case "iprp": try readProperties(box)
            case "idat": idat = box.payload
            default: break
            }
        }
        guard boxes["hdlr"] != nil else { throw corrupt("'meta' has no 'hdlr' box") }
        guard let primary else { throw corrupt("'meta' has no 'pitm' box: no primary image") }
        guard let item = items[primary] else {
            throw corrupt("'pitm' names item \(primary), which 'iinf' does not list")
        }
        return try info(primary: item)
    }

    /// Finds `ftyp` (first), `meta` (read whole, bounded by the metadata
    /// limit) and steps over everything else.
    mutating func readTopLevel() throws(ImagingError) {
        var offset = 0
        var first = true
        while offset < input.byteCount {
            let headerBytes = min(16, input.byteCount - offset)
            let head = try input.read(at: offset, count: headerBytes, format: .heif)
            guard headerBytes >= 8 else {
                throw corrupt("the file ends inside a box header at byte \(offset) (truncated?)")
            }
            var sizeReader = HEIFReader(head)
            var size = try sizeReader.u32("a box header")
            let type = try sizeReader.fourCC("a box header")
            var header = 8
            if size == 1 {
                size = try sizeReader.unsigned(size: 8, "the 64-bit size of '\(type)'")
                header = 16
            } else if size == 0 {
                size = input.byteCount - offset
            }
            guard size >= header, size <= input.byteCount - offset else {
                throw corrupt(
                    "box '\(type)' at byte \(offset) declares \(size) bytes; the file has \(input.byteCount - offset) left (truncated?)"
                )
            }
            if first {
                guard type == "ftyp" else {
                    throw corrupt("the file does not start with an 'ftyp' box (found '\(type)')")
                }
                let payload = try input.read(
                    at: offset + header, count: min(size - header, 4096), format: .heif)
                var r = HEIFReader(payload)
                brands.append(try r.fourCC("'ftyp'"))
                try r.skip(4, "'ftyp'")
                while r.remaining >= 4 { brands.append(try r.fourCC("'ftyp'")) }
                first = false
            } else if type == "meta" {
                guard meta.isEmpty else {
                    throw corrupt("the file holds two top-level 'meta' boxes")
                }
                guard size - header <= limits.maxMetadataBytes else {
                    throw .limitExceeded(
                        .metadataBytes, limit: limits.maxMetadataBytes, actual: size - header)
                }
                meta = try input.read(at: offset + header, count: size - header, format: .heif)
                metaOffset = offset + header
                topLevel.append((type, offset..<offset + size))
            } else {
                topLevel.append((type, offset + header..<offset + size))
                if type == "uuid", size - header >= 16,
                    try input.read(at: offset + header, count: 16, format: .heif)
                        == ContentCredentials.bmffUUID
                {
                    contentCredentials = size
                }
            }
            offset += size
        }
        guard !brands.isEmpty else { throw corrupt("the file is empty") }
        let imageBrands: Set<String> = [
            "mif1", "msf1", "miaf", "heic", "heix", "heim", "heis", "hevc", "hevx", "avif", "avis",
        ]
        guard !meta.isEmpty else {
            if imageBrands.isDisjoint(with: brands) {
                throw HEIFFailure.unsupported(
                    "the file is ISO media of the brands \(brands.joined(separator: ", ")) (a video?), not a HEIF image"
                )
            }
            throw corrupt("the file has no 'meta' box, so no image is described (truncated?)")
        }
    }

    mutating func readItemInfo(_ box: HEIFBox) throws(ImagingError) {
        var (r, version, _) = try box.fullReader(meta)
        let count = version == 0 ? try r.u16("'iinf'") : try r.u32("'iinf'")
        guard count <= HEIFFileInfo.maxItems else {
            throw HEIFFailure.limit(
                "'iinf' lists \(count) items; CropKit reads at most \(HEIFFileInfo.maxItems)")
        }
        var found = 0
        while let entry = try r.box(in: "iinf") {
            guard entry.type == "infe" else { continue }
            found += 1
            var (e, version, flags) = try entry.fullReader(meta)
            guard version >= 2 else {
                warnings.append("an 'infe' box of version \(version) (before HEIF) was skipped")
                continue
            }
            let id = version == 2 ? try e.u16("'infe'") : try e.u32("'infe'")
            try e.skip(2, "'infe'")
            let type = try e.fourCC("'infe'")
            var item = HEIFItem(id: id, type: type, hidden: flags & 1 != 0)
            _ = e.string()
            if type == "mime", e.remaining > 0 { item.contentType = e.string() }
            guard items[id] == nil else { throw corrupt("'iinf' lists item \(id) twice") }
            items[id] = item
            itemOrder.append(id)
        }
        if found != count {
            warnings.append("'iinf' says \(count) items and holds \(found)")
        }
    }

    mutating func readLocations(_ box: HEIFBox) throws(ImagingError) {
        var (r, version, _) = try box.fullReader(meta)
        guard version <= 2 else { throw corrupt("'iloc' has version \(version); 0-2 are defined") }
        let sizes = try r.u16("'iloc'")
        let offsetSize = sizes >> 12
        let lengthSize = sizes >> 8 & 15
        let baseSize = sizes >> 4 & 15
        let indexSize = version >= 1 ? sizes & 15 : 0
        let count = version < 2 ? try r.u16("'iloc'") : try r.u32("'iloc'")
        guard count <= HEIFFileInfo.maxItems else {
            throw HEIFFailure.limit(
                "'iloc' lists \(count) items; CropKit reads at most \(HEIFFileInfo.maxItems)")
        }
        for _ in 0..<count {
            let id = version < 2 ? try r.u16("'iloc'") : try r.u32("'iloc'")
            var construction = 0
            if version >= 1 { construction = try r.u16("'iloc'") & 15 }
            _ = try r.u16("'iloc'")
            let base = try r.unsigned(size: baseSize, "a base offset in 'iloc'")
            let extentCount = try r.u16("'iloc'")
            guard extentCount <= HEIFFileInfo.maxExtents else {
                throw HEIFFailure.limit(
                    "item \(id) has \(extentCount) extents in 'iloc'; CropKit reads at most \(HEIFFileInfo.maxExtents)"
                )
            }
            var extents: [(Int, Int)] = []
            for _ in 0..<extentCount {
                if indexSize > 0 {
                    _ = try r.unsigned(size: indexSize, "an extent index in 'iloc'")
                }
                let offset = try r.unsigned(size: offsetSize, "an extent offset in 'iloc'")
                let length = try r.unsigned(size: lengthSize, "an extent length in 'iloc'")
                extents.append((offset, length))
            }
            guard var item = items[id] else {
                warnings.append("'iloc' locates item \(id), which 'iinf' does not list")
                continue
            }
            item.construction = construction
            item.baseOffset = base
            item.extents = extents
            items[id] = item
        }
    }

    mutating func readReferences(_ box: HEIFBox) throws(ImagingError) {
        var (r, version, _) = try box.fullReader(meta)
        var total = 0
        while let reference = try r.box(in: "iref") {
            var e = reference.reader(meta)
            let from = version == 0 ? try e.u16("'iref'") : try e.u32("'iref'")
            let count = try e.u16("'iref'")
            var to: [Int] = []
            for _ in 0..<count {
                to.append(version == 0 ? try e.u16("'iref'") : try e.u32("'iref'"))
            }
            total += count
            guard total <= HEIFFileInfo.maxItems * 4 else {
                throw HEIFFailure.limit(
                    "'iref' holds more than \(HEIFFileInfo.maxItems * 4) references")
            }
            guard references[reference.type, default: [:]][from] == nil else {
                throw corrupt("item \(from) has two '\(reference.type)' references")
            }
            references[reference.type, default: [:]][from] = to
        }
    }

    mutating func readProperties(_ box: HEIFBox) throws(ImagingError) {
        var r = box.reader(meta)
        var associations: [HEIFBox] = []
        while let child = try r.box(in: "iprp") {
            if child.type == "ipco" {
                var c = child.reader(meta)
                while let property = try c.box(in: "ipco") {
                    properties.append(property)
                    if property.type == "colr", property.payload.count >= 4 {
                        // Each profile judged once, however many tiles
                        // share it.
                        let kind = String(
                            decoding: meta[property.payload.prefix(4)], as: UTF8.self)
                        if kind == "prof" || kind == "rICC",
                            let problem = ICCProfile.problem(
                                in: Array(meta[property.payload.dropFirst(4)]))
                        {
                            profileProblems[property.start] = problem
                        }
                    }
                    if property.type != "hvcC", property.type != "av1C" { unread.append(property) }
                    guard properties.count <= HEIFFileInfo.maxItems else {
                        throw HEIFFailure.limit(
                            "'ipco' holds more than \(HEIFFileInfo.maxItems) properties")
                    }
                }
            } else if child.type == "ipma" {
                associations.append(child)
            } else {
                unread.append(child)
            }
        }
        // One association entry an item (ISO/IEC 23008-12, 9.3.1): with two,
        // readers disagree (libheif takes one, another both), so the crop
        // would cover other pixels than a viewer shows.
        var associated: Set<Int> = []
        for ipma in associations {
            var (a, version, flags) = try ipma.fullReader(meta)
            let count = try a.u32("'ipma'")
            guard count <= HEIFFileInfo.maxItems else {
                throw HEIFFailure.limit(
                    "'ipma' lists \(count) items; CropKit reads at most \(HEIFFileInfo.maxItems)")
            }
            for _ in 0..<count {
                let id = version < 1 ? try a.u16("'ipma'") : try a.u32("'ipma'")
                guard associated.insert(id).inserted else {
                    throw corrupt(
                        "'ipma' associates item \(id) twice; the specification allows one entry an item, and readers disagree on which counts (its rotation, its size)"
                    )
                }
                let propertyCount = try a.u8("'ipma'")
                var list: [(Int, Bool)] = []
                for _ in 0..<propertyCount {
                    let value = flags & 1 != 0 ? try a.u16("'ipma'") : try a.u8("'ipma'")
                    let wide = flags & 1 != 0
                    let index = value & (wide ? 0x7FFF : 0x7F)
                    let essential = value & (wide ? 0x8000 : 0x80) != 0
                    guard index > 0 else { continue }
                    guard index <= properties.count else {
                        throw corrupt(
                            "'ipma' gives item \(id) property \(index); 'ipco' holds \(properties.count)"
                        )
                    }
                    list.append((index - 1, essential))
                }
                items[id]?.properties += list
            }
        }
    }

    // MARK: The primary image

    func property(_ type: String, of item: HEIFItem) -> HEIFBox? {
        item.properties.lazy.map { properties[$0.index] }.first { $0.type == type }
    }

    /// Refuses coded images whose data overlap (within one image or
    /// between two): an `iloc` listing one block of bytes many times makes
    /// a small file decode and write far more than it holds (a 1.5 MB file
    /// wrote a 332 MB crop).
    static func checkDisjoint(_ images: [HEIFCodedImage]) throws(ImagingError) {
        var ranges: [(range: Range<Int>, item: Int)] = []
        for image in images {
            for range in image.extents where !range.isEmpty { ranges.append((range, image.item)) }
        }
        ranges.sort { $0.range.lowerBound < $1.range.lowerBound }
        for (a, b) in zip(ranges, ranges.dropFirst()) where b.range.lowerBound < a.range.upperBound
        {
            throw ImagingError.corrupt(
                format: .heif,
                detail:
                    "the coded data of item \(a.item) and item \(b.item) overlap (bytes \(b.range.lowerBound)..<\(min(a.range.upperBound, b.range.upperBound))): one block of bytes read more than once amplifies a small file; refused"
            )
        }
    }

    /// The file byte ranges of an item's data, checked against the file.
    func extents(of item: HEIFItem) throws(ImagingError) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        for extent in item.extents {
            let (start, startOverflow) = item.baseOffset.addingReportingOverflow(extent.offset)
            var base = 0
            var available = input.byteCount
            switch item.construction {
            case 0: break
            case 1:
                guard let idat else {
                    throw corrupt("item \(item.id) lies in 'idat', which is missing")
                }
                base = metaOffset + idat.lowerBound
                available = idat.count
            default:
                throw HEIFFailure.unsupported(
                    "item \(item.id)'s data is built from other items (construction method \(item.construction))"
                )
            }
            let length =
                extent.length == 0 && item.extents.count == 1 ? available - start : extent.length
            let (stop, stopOverflow) = start.addingReportingOverflow(length)
            guard !startOverflow, !stopOverflow, start >= 0, length >= 0, stop <= available else {
                throw corrupt(
                    "item \(item.id)'s data (\(extent.length) bytes at \(start)) lies past the end of the \(item.construction == 1 ? "'idat' box" : "file") (\(available) bytes; truncated?)"
                )
            }
            ranges.append(base + start..<base + stop)
        }
        guard !ranges.isEmpty else { throw corrupt("item \(item.id) has no data in 'iloc'") }
        return ranges
    }

    /// A small item's data (a grid description, EXIF, XMP), read whole.
    func data(of item: HEIFItem, limit: Int) throws(ImagingError) -> [UInt8] {
        let ranges = try extents(of: item)
        let total = ranges.reduce(0) { $0 + $1.count }
        guard total <= limit else {
            throw .limitExceeded(.metadataBytes, limit: limit, actual: total)
        }
        var bytes: [UInt8] = []
        for range in ranges {
            bytes += try input.read(at: range.lowerBound, count: range.count, format: .heif)
        }
        return bytes
    }

    func size(of item: HEIFItem) throws(ImagingError) -> (width: Int, height: Int)? {
        guard let ispe = property("ispe", of: item) else { return nil }
        var (r, _, _) = try ispe.fullReader(meta)
        return (try r.u32("'ispe'"), try r.u32("'ispe'"))
    }

    /// Whether `box` is a `colr` a crop carries: an `nclx`, or a profile
    /// (`prof`, `rICC`) that is one (``profileProblems``). A `colr`
    /// holding anything else, a whole photo among them, is never copied
    /// into a crop.
    func carriesColour(_ box: HEIFBox) -> Bool {
        box.type == "colr" && box.payload.count >= 4 && profileProblems[box.start] == nil
    }

    /// One hvc1 or av01 item as a coded image; `colour` is used when it has
    /// no `colr` of its own.
    func codedImage(_ item: HEIFItem, colour: [[UInt8]], role: String) throws(ImagingError)
        -> HEIFCodedImage
    {
        guard let codec = HEIFCodec.allTypes[item.type] else {
            throw corrupt(
                "\(role) is item \(item.id) of type '\(item.type)', not a coded image ('hvc1' or 'av01')"
            )
        }
        for (index, essential) in item.properties where essential {
            let type = properties[index].type
            guard
                [
                    codec.configurationType, "ispe", "colr", "pixi", "clap", "irot", "imir",
                    "auxC", "lsel",
                ].contains(type)
            else {
                throw HEIFFailure.unsupported(
                    "\(role) (item \(item.id)) needs property '\(type)', which CropKit does not know"
                )
            }
        }
        let configurationType = codec.configurationType
        guard let configurationBox = property(configurationType, of: item) else {
            throw corrupt(
                "\(role) (item \(item.id)) has no '\(configurationType)' (decoder configuration)")
        }
        guard configurationBox.payload.count >= (codec == .hevc ? 23 : 4) else {
            throw corrupt("'\(configurationType)' of item \(item.id) is too short")
        }
        guard let size = try size(of: item) else {
            throw corrupt("\(role) (item \(item.id)) has no 'ispe' (its size)")
        }
        guard size.width > 0, size.height > 0 else {
            throw corrupt(
                "\(role) (item \(item.id)) declares a size of \(size.width)x\(size.height)")
        }
        try limits.check(width: size.width, height: size.height)
        let own = item.properties.map { properties[$0.index] }.filter { carriesColour($0) }
        let at = configurationBox.payload.lowerBound
        let bitDepth: Int
        let chromaCode: Int
        switch codec {
        case .hevc:
            // HEVCDecoderConfigurationRecord: chromaFormat and
            // bitDepthLumaMinus8 at bytes 16 and 17 of the payload.
            bitDepth = Int(meta[at + 17] & 7) + 8
            chromaCode = Int(meta[at + 16] & 3)
        case .av1:
            // AV1CodecConfigurationRecord: marker and version (0x81), then
            // seq_profile and level, then tier, high_bitdepth, twelve_bit,
            // monochrome, chroma_subsampling_x and _y.
            guard meta[at] == 0x81 else {
                throw corrupt("'av1C' of item \(item.id) is not version 1")
            }
            let flags = meta[at + 2]
            bitDepth = flags & 0x40 == 0 ? 8 : flags & 0x20 == 0 ? 10 : 12
            let (subX, subY) = (flags & 0x08 != 0, flags & 0x04 != 0)
            chromaCode = flags & 0x10 != 0 ? 0 : subX && subY ? 1 : subX ? 2 : 3
        }
        return HEIFCodedImage(
            item: item.id, width: size.width, height: size.height, extents: try extents(of: item),
            codec: codec, configuration: Array(meta[configurationBox.whole]),
            colourBoxes: own.isEmpty ? colour : own.map { Array(meta[$0.whole]) },
            pixi: property("pixi", of: item).map { Array(meta[$0.whole]) },
            bitDepth: bitDepth, chromaCode: chromaCode)
    }

    /// An image item (hvc1 or grid) as tiles.
    func layout(_ item: HEIFItem, role: String) throws(ImagingError) -> HEIFLayout {
        let colour = item.properties.map { properties[$0.index] }.filter { carriesColour($0) }
            .map { Array(meta[$0.whole]) }
        if item.type == "grid" {
            let description = try data(of: item, limit: 64)
            var r = HEIFReader(description)
            _ = try r.u8("the grid description")
            let flags = try r.u8("the grid description")
            let rows = try r.u8("the grid description") + 1
            let columns = try r.u8("the grid description") + 1
            let width =
                flags & 1 != 0
                ? try r.u32("the grid description") : try r.u16("the grid description")
            let height =
                flags & 1 != 0
                ? try r.u32("the grid description") : try r.u16("the grid description")
            guard width > 0, height > 0 else {
                throw corrupt("the grid (item \(item.id)) declares an output of \(width)x\(height)")
            }
            try limits.check(width: width, height: height)
            let refs = references["dimg"]?[item.id] ?? []
            guard refs.count == rows * columns else {
                throw corrupt(
                    "the grid (item \(item.id)) is \(columns)x\(rows) = \(rows * columns) tiles but references \(refs.count)"
                )
            }
            // One tile referenced many times amplifies: a 26 KB grid naming
            // one tile 10,000 times would be decoded and written 10,000 times.
            var seen: Set<Int> = []
            for ref in refs where !seen.insert(ref).inserted {
                throw corrupt(
                    "the grid (item \(item.id)) references tile item \(ref) \(refs.filter { $0 == ref }.count) times; each tile is referenced once"
                )
            }
            var tiles: [HEIFCodedImage] = []
            for (n, ref) in refs.enumerated() {
                guard let tile = items[ref] else {
                    throw corrupt("grid tile \(n) is item \(ref), which 'iinf' does not list")
                }
                tiles.append(try codedImage(tile, colour: colour, role: "grid tile \(n)"))
            }
            let tileWidth = tiles[0].width
            let tileHeight = tiles[0].height
            guard tiles.allSatisfy({ $0.width == tileWidth && $0.height == tileHeight }) else {
                throw corrupt("the grid's tiles are not all \(tileWidth)x\(tileHeight)")
            }
            guard tileWidth * columns >= width, tileHeight * rows >= height else {
                throw corrupt(
                    "the grid's \(columns)x\(rows) tiles of \(tileWidth)x\(tileHeight) do not cover its \(width)x\(height) output"
                )
            }
            try Self.checkDisjoint(tiles)
            return HEIFLayout(
                width: width, height: height, columns: columns, rows: rows, tileWidth: tileWidth,
                tileHeight: tileHeight, isGrid: true, tiles: tiles)
        }
        let image = try codedImage(item, colour: colour, role: role)
        try Self.checkDisjoint([image])
        return HEIFLayout(
            width: image.width, height: image.height, columns: 1, rows: 1, tileWidth: image.width,
            tileHeight: image.height, isGrid: false, tiles: [image])
    }

    func info(primary item: HEIFItem) throws(ImagingError) -> HEIFFileInfo {
        guard HEIFCodec.allTypes[item.type] != nil || item.type == "grid" else {
            throw HEIFFailure.unsupported(
                "the primary image is a '\(item.type)' item; CropKit crops 'hvc1' and 'av01' images and 'grid's of them"
            )
        }
        let layout = try layout(item, role: "the primary image")
        var warnings = self.warnings

        // Transforms, in the order the file lists them.
        var transforms: [String] = []
        var matrix = (1, 0, 0, 1)
        var cleanAperture: PixelRect<StoredPixels>?
        for (index, _) in item.properties {
            let box = properties[index]
            switch box.type {
            case "clap":
                guard transforms.isEmpty else {
                    throw HEIFFailure.unsupported(
                        "'clap' follows \(transforms.joined(separator: ", ")); MIAF puts the clean aperture first"
                    )
                }
                cleanAperture = try self.cleanAperture(
                    box, width: layout.width, height: layout.height)
                transforms.append("clap")
            case "irot":
                var r = box.reader(meta)
                let angle = (try r.u8("'irot'") & 3) * 90
                transforms.append("irot \(angle)")
                // Anti-clockwise a quarter: (x, y) → (y, -x).
                for _ in 0..<angle / 90 { matrix = (matrix.1, -matrix.0, matrix.3, -matrix.2) }
            case "imir":
                var r = box.reader(meta)
                let axis = try r.u8("'imir'") & 1
                transforms.append("imir \(axis)")
                // Axis 0 exchanges top and bottom, axis 1 left and right.
                matrix =
                    axis == 0
                    ? (matrix.0, -matrix.1, matrix.2, -matrix.3)
                    : (-matrix.0, matrix.1, -matrix.2, matrix.3)
            default: break
            }
        }
        let orientation = HEIFParser.orientation(matrix)

        // Colour: the primary's own, else its tiles' (where an iPhone puts it).
        var icc: [UInt8]?
        var profileProblem: String?
        var iccOnTiles = false
        var nclx: HEIFColourDescription?
        let ownColour = item.properties.map { properties[$0.index] }.filter { $0.type == "colr" }
        let tileColour =
            layout.tiles.first.map { tile in
                (items[tile.item]?.properties ?? []).map { properties[$0.index] }.filter {
                    $0.type == "colr"
                }
            } ?? []
        for (boxes, onTiles) in [(ownColour, false), (tileColour, true)] {
            for box in boxes {
                var r = box.reader(meta)
                let kind = try r.fourCC("'colr'")
                if kind == "prof" || kind == "rICC", icc == nil {
                    let profile = Array(meta[r.offset..<box.payload.upperBound])
                    if profile.isEmpty {
                        warnings.append("an empty ICC profile (0 bytes) was ignored")
                    } else if let problem = profileProblems[box.start] {
                        profileProblem = problem
                    } else {
                        icc = profile
                        iccOnTiles = onTiles
                    }
                } else if kind == "nclx", nclx == nil {
                    nclx = HEIFColourDescription(
                        primaries: try r.u16("'colr'"), transfer: try r.u16("'colr'"),
                        matrix: try r.u16("'colr'"), fullRange: try r.u8("'colr'") & 0x80 != 0)
                }
            }
        }

        // Bit depth and chroma from the first tile's decoder configuration.
        let chromaCode = layout.tiles[0].chromaCode
        let bitDepth = layout.tiles[0].bitDepth
        let chroma = ["4:0:0", "4:2:0", "4:2:2", "4:4:4"][chromaCode]
        guard bitDepth <= 12 else { throw HEIFFailure.unsupported("\(bitDepth)-bit samples") }
        for tile in layout.tiles where tile.bitDepth != bitDepth {
            throw corrupt("the tiles do not all have \(bitDepth)-bit samples")
        }

        // The images that refer to the primary.
        var alpha: HEIFLayout?
        var auxiliary: [HEIFOtherImage] = []
        var thumbnails: [HEIFOtherImage] = []
        var regions: [HEIFRegionItem] = []
        var exif: [UInt8]?
        var exifItem: Int?
        var exifOrientation: Int?
        var xmp: [UInt8]?
        var related: Set<Int> = [item.id]
        related.formUnion(layout.tiles.map(\.item))
        for id in itemOrder {
            guard let other = items[id], id != item.id else { continue }
            if references["auxl"]?[id]?.contains(item.id) == true {
                related.insert(id)
                related.formUnion(references["dimg"]?[id] ?? [])
                var role = ""
                if let auxC = property("auxC", of: other) {
                    var (r, _, _) = try auxC.fullReader(meta)
                    role = r.string()
                }
                if role == "urn:mpeg:hevc:2015:auxid:1"
                    || role == "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"
                {
                    let plane = try self.layout(other, role: "the alpha image")
                    guard plane.width == layout.width, plane.height == layout.height else {
                        throw HEIFFailure.unsupported(
                            "the alpha image is \(plane.width)x\(plane.height), the image \(layout.width)x\(layout.height)"
                        )
                    }
                    alpha = plane
                    if references["prem"]?[item.id] != nil || references["prem"]?[id] != nil {
                        warnings.append(
                            "the colour is premultiplied by alpha; it is written as stored")
                    }
                } else {
                    let size = try? self.size(of: other)
                    auxiliary.append(
                        HEIFOtherImage(
                            item: id, type: other.type, role: role, width: size?.width ?? 0,
                            height: size?.height ?? 0))
                }
            } else if references["thmb"]?[id]?.contains(item.id) == true {
                related.insert(id)
                let size = try? self.size(of: other)
                thumbnails.append(
                    HEIFOtherImage(
                        item: id, type: other.type, role: "thumbnail", width: size?.width ?? 0,
                        height: size?.height ?? 0))
            } else if references["cdsc"]?[id]?.contains(item.id) == true {
                related.insert(id)
                if other.type == "Exif", exif == nil {
                    let data = try self.data(of: other, limit: limits.maxMetadataBytes)
                    guard data.count >= 4 else {
                        warnings.append("the EXIF item is too short and was ignored")
                        continue
                    }
                    let skip = (0..<4).reduce(0) { $0 << 8 | Int(data[$1]) }
                    guard skip <= data.count - 4 else {
                        warnings.append(
                            "the EXIF item's TIFF header offset lies past its end; ignored")
                        continue
                    }
                    exif = Array(data[(4 + skip)...])
                    exifItem = id
                    exifOrientation = exif.flatMap { EXIFRewriter(tiff: $0)?.tags().orientation }
                } else if other.type == "mime", other.contentType == "application/rdf+xml",
                    xmp == nil
                {
                    xmp = try self.data(of: other, limit: limits.maxMetadataBytes)
                } else if other.type == "rgan" {
                    regions.append(
                        HEIFRegionItem(
                            item: id, data: try self.data(of: other, limit: limits.maxMetadataBytes)
                        ))
                }
            }
        }
        var otherImages: [HEIFOtherImage] = []
        for id in itemOrder where !related.contains(id) {
            guard let other = items[id], !other.hidden,
                ["hvc1", "grid", "av01", "iden", "tmap", "jpeg", "j2k1", "unci"].contains(
                    other.type)
            else { continue }
            if references["dimg"]?.values.contains(where: { $0.contains(id) }) == true,
                other.type != "tmap"
            {
                continue
            }
            let size = try? self.size(of: other)
            otherImages.append(
                HEIFOtherImage(
                    item: id, type: other.type, role: other.type == "tmap" ? "gain map (tmap)" : "",
                    width: size?.width ?? 0, height: size?.height ?? 0))
        }
        var info = HEIFFileInfo(
            brands: brands, primaryItem: item.id, layout: layout, cleanAperture: cleanAperture,
            transforms: transforms, orientation: orientation, bitDepth: bitDepth, chroma: chroma,
            alpha: alpha, iccProfile: icc, profileProblem: profileProblem, iccOnTiles: iccOnTiles,
            nclx: nclx, exif: exif,
            exifOrientation: exifOrientation, xmp: xmp, auxiliaryImages: auxiliary,
            thumbnails: thumbnails, otherImages: otherImages, warnings: warnings)
        let own = item.properties.map { properties[$0.index] }
        info.regionItems = regions
        info.primaryBoxes = own.filter { carriesColour($0) || $0.type == "pixi" }.map {
            Array(meta[$0.whole])
        }
        info.transformBoxes = own.filter { $0.type == "irot" || $0.type == "imir" }.map {
            Array(meta[$0.whole])
        }
        info.chromaCode = chromaCode
        info.exifItem = exifItem
        info.groups = groups
        info.companions = companions(of: item, auxiliary: auxiliary)
        info.toneMap = toneMap(of: item, companions: info.companions)
        info.stereoEyes = stereoEyes(of: item, shown: (info.width, info.height))
        info.topLevelBoxes = topLevel
        info.contentCredentials = contentCredentials
        info.unreadMetaBoxes = unread.map {
            ($0.type, metaOffset + $0.payload.lowerBound..<metaOffset + $0.payload.upperBound)
        }
        info.idatRange = idat.map { metaOffset + $0.lowerBound..<metaOffset + $0.upperBound }
        info.imageInputs = Set((references["dimg"] ?? [:]).values.flatMap { $0 })
        for id in itemOrder {
            guard let other = items[id], let ranges = try? extents(of: other) else { continue }
            info.itemData.append(
                HEIFItemData(
                    item: id, type: other.type, hidden: other.hidden,
                    contentType: other.contentType,
                    extents: ranges))
        }
        return info
    }

    /// The clean aperture as whole pixels of the canvas: its centre is
    /// offset from the canvas's by the box's fractions (ISO/IEC 14496-12
    /// 12.1.4), so its left edge is `offset + (W - width) / 2`.
    func cleanAperture(_ box: HEIFBox, width: Int, height: Int) throws(ImagingError)
        -> PixelRect<StoredPixels>
    {
        var r = box.reader(meta)
        var values: [Int] = []
        for _ in 0..<8 { values.append(Int(Int32(truncatingIfNeeded: try r.u32("'clap'")))) }
        let (wn, wd, hn, hd, xn, xd, yn, yd) = (
            values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7]
        )
        guard wd > 0, hd > 0, xd > 0, yd > 0 else {
            throw corrupt("'clap' has a zero or negative denominator")
        }
        // In halves of a pixel: 2 * left = 2 * xn / xd + W - wn / wd.
        guard wn % wd == 0, hn % hd == 0, (2 * xn) % xd == 0, (2 * yn) % yd == 0 else {
            throw HEIFFailure.unsupported("'clap' does not cut whole pixels")
        }
        let cw = wn / wd
        let ch = hn / hd
        guard cw > 0, ch > 0, cw <= width, ch <= height else {
            throw corrupt(
                "'clap' (\(cw)x\(ch)) does not lie inside the \(width)x\(height) image")
        }
        let left2 = 2 * xn / xd + width - cw
        let top2 = 2 * yn / yd + height - ch
        guard left2 % 2 == 0, top2 % 2 == 0 else {
            throw HEIFFailure.unsupported("'clap' does not cut whole pixels")
        }
        let rect = PixelRect<StoredPixels>(x: left2 / 2, y: top2 / 2, width: cw, height: ch)
        guard cw > 0, ch > 0, rect.x >= 0, rect.y >= 0, rect.x + cw <= width, rect.y + ch <= height
        else {
            throw corrupt(
                "'clap' (\(cw)x\(ch) at \(rect.x),\(rect.y)) does not lie inside the \(width)x\(height) image"
            )
        }
        return rect
    }

    /// The EXIF orientation whose turn maps the vector (1, 0) and (0, 1)
    /// (x right, y down) as `m` = (a, b, c, d) does: (x, y) → (ax + cy, bx + dy).
    static func orientation(_ m: (Int, Int, Int, Int)) -> EXIFOrientation {
        switch m {
        case (1, 0, 0, 1): .up
        case (-1, 0, 0, 1): .upMirrored
        case (-1, 0, 0, -1): .down
        case (1, 0, 0, -1): .downMirrored
        case (0, 1, 1, 0): .leftMirrored
        case (0, 1, -1, 0): .right
        case (0, -1, -1, 0): .rightMirrored
        default: .left
        }
    }
}

/// Failures raised inside the parser that are not corruption.
enum HEIFFailure {
    static func unsupported(_ detail: String) -> ImagingError {
        .unsupported(format: .heif, detail: detail)
    }
    static func limit(_ detail: String) -> ImagingError {
        .structureLimit(format: .heif, detail: detail)
    }
}
