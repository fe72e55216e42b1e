internal import CImagingShims
import CropGeometry

/// Writes a HEIF: items with properties (shared when equal), references
/// and data, the data after the `meta` box in one `mdat`.
struct HEIFFileWriter {
    /// The codec of the coded items, which names the file's brands.
    var codec: HEIFCodec = .hevc

    /// A file of `codec`'s brands, with no items yet.
    init(codec: HEIFCodec = .hevc) { self.codec = codec }

    /// An item's data: bytes made here, or ranges of the source file.
    enum Data {
        case bytes([UInt8])
        case extents([Range<Int>])

        var count: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .extents(let ranges): ranges.reduce(0) { $0 + $1.count }
            }
        }
    }

    struct Item {
        var id: Int
        var type: String
        var hidden: Bool
        var contentType: String?
        var properties: [(index: Int, essential: Bool)]
        var data: Data = .bytes([])
    }

    private(set) var items: [Item] = []
    private var properties: [[UInt8]] = []
    private var references: [(type: String, from: Int, to: [Int])] = []
    /// Entity groups (`altr`, `ster`), written in `grpl` with IDs after the
    /// items'.
    private var groups: [(type: String, entities: [Int])] = []
    var primary = 1
    /// Boxes written at the end of `meta` as they are (whole), for tests
    /// that hide things where a reader does not look.
    var extraMetaBoxes: [[UInt8]] = []
    /// Boxes written at the end of `iprp` as they are, likewise.
    var extraPropertyBoxes: [[UInt8]] = []

    mutating func property(_ box: [UInt8]) -> Int {
        if let found = properties.firstIndex(of: box) { return found + 1 }
        properties.append(box)
        return properties.count
    }

    mutating func addItem(
        type: String, hidden: Bool, properties boxes: [([UInt8], Bool)], contentType: String? = nil
    ) -> Int {
        let id = items.count + 1
        let list = boxes.map { (property($0.0), $0.1) }
        items.append(
            Item(id: id, type: type, hidden: hidden, contentType: contentType, properties: list))
        return id
    }

    mutating func addProperty(to item: Int, _ box: [UInt8], essential: Bool) {
        let index = property(box)
        items[item - 1].properties.append((index, essential))
    }

    mutating func setData(_ item: Int, _ data: Data) { items[item - 1].data = data }

    mutating func reference(_ type: String, from: Int, to: [Int]) {
        references.append((type, from, to))
    }

    /// Adds a `grid` item of `rows`×`columns` `tiles` (item IDs, row by
    /// row) making a `width`×`height` image: its `ispe`, then `properties`,
    /// its `dimg` reference to the tiles and its grid description as data.
    /// Returns its ID.
    mutating func addGrid(
        of tiles: [Int], rows: Int, columns: Int, width: Int, height: Int, hidden: Bool = false,
        properties boxes: [([UInt8], Bool)] = []
    ) -> Int {
        let grid = addItem(
            type: "grid", hidden: hidden,
            properties: [(Self.ispe(width: width, height: height), false)] + boxes)
        reference("dimg", from: grid, to: tiles)
        setData(
            grid,
            .bytes(Self.gridDescription(rows: rows, columns: columns, width: width, height: height))
        )
        return grid
    }

    /// Adds `exif` (an `Exif` item, its TIFF header at offset 0) and `xmp`
    /// (a `mime` item) describing each of `images`, each image its own
    /// copy: libheif 1.15 refuses an item that describes two images
    /// ("Metadata not correctly assigned to image").
    mutating func addDescriptions(exif: [UInt8]?, xmp: String?, of images: [Int]) {
        for image in images {
            if let exif {
                let item = addItem(type: "Exif", hidden: true, properties: [])
                setData(item, .bytes([0, 0, 0, 0] + exif))
                reference("cdsc", from: item, to: [image])
            }
            if let xmp {
                let item = addItem(
                    type: "mime", hidden: true, properties: [], contentType: "application/rdf+xml")
                setData(item, .bytes(Array(xmp.utf8)))
                reference("cdsc", from: item, to: [image])
            }
        }
    }

    /// Groups `entities` (item IDs) as an entity group of `type`.
    mutating func group(_ type: String, _ entities: [Int]) { groups.append((type, entities)) }

    /// Writes the file to `sink`, copying extents from `input`; returns
    /// its size.
    func write(to sink: some ByteSink, input: ImageInput) throws(ImagingError) -> Int {
        var w = HEIFBoxWriter()
        w.begin("ftyp")
        w.fourCC(codec.brand)
        w.u32(0)
        for brand in ["mif1", codec.brand] { w.fourCC(brand) }
        w.end()
        w.begin("meta", version: 0)
        w.begin("hdlr", version: 0)
        w.u32(0)
        w.fourCC("pict")
        w.append([UInt8](repeating: 0, count: 12))
        w.string("")
        w.end()
        w.begin("pitm", version: 0)
        w.u16(primary)
        w.end()
        w.begin("iloc", version: 0)
        w.u16(0x4400)
        w.u16(items.count)
        var offsetFields: [Int] = []
        for item in items {
            w.u16(item.id)
            w.u16(0)
            w.u16(1)
            offsetFields.append(w.bytes.count)
            w.u32(0)
            w.u32(item.data.count)
        }
        w.end()
        w.begin("iinf", version: 0)
        w.u16(items.count)
        for item in items {
            w.begin("infe", version: 2, flags: item.hidden ? 1 : 0)
            w.u16(item.id)
            w.u16(0)
            w.fourCC(item.type)
            w.string("")
            if let type = item.contentType { w.string(type) }
            w.end()
        }
        w.end()
        if !references.isEmpty {
            w.begin("iref", version: 0)
            for reference in references {
                w.begin(reference.type)
                w.u16(reference.from)
                w.u16(reference.to.count)
                for to in reference.to { w.u16(to) }
                w.end()
            }
            w.end()
        }
        w.begin("iprp")
        w.begin("ipco")
        for box in properties { w.append(box) }
        w.end()
        w.begin("ipma", version: 0, flags: 1)
        let described = items.filter { !$0.properties.isEmpty }
        w.u32(described.count)
        for item in described {
            w.u16(item.id)
            w.u8(item.properties.count)
            for (index, essential) in item.properties { w.u16((essential ? 0x8000 : 0) | index) }
        }
        w.end()
        for box in extraPropertyBoxes { w.append(box) }
        w.end()
        if !groups.isEmpty {
            w.begin("grpl")
            for (n, group) in groups.enumerated() {
                w.begin(group.type, version: 0)
                w.u32(items.count + 1 + n)
                w.u32(group.entities.count)
                for entity in group.entities { w.u32(entity) }
                w.end()
            }
            w.end()
        }
        for box in extraMetaBoxes { w.append(box) }
        w.end()
        // mdat: each item's data in order.
        let dataStart = w.bytes.count + 8
        var offset = dataStart
        for (item, field) in zip(items, offsetFields) {
            w.patch(u32: offset, at: field)
            offset += item.data.count
        }
        guard offset <= Int(UInt32.max) else {
            throw .unsupported(format: .heif, detail: "the crop would be over 4 GB")
        }
        let mdatSize = offset - dataStart + 8
        w.u32(mdatSize)
        w.fourCC("mdat")
        try sink.write(w.bytes[...])
        for item in items {
            switch item.data {
            case .bytes(let bytes): try sink.write(bytes[...])
            case .extents(let ranges):
                for range in ranges {
                    var at = range.lowerBound
                    while at < range.upperBound {
                        let count = min(1 << 20, range.upperBound - at)
                        try sink.write(try input.read(at: at, count: count, format: .heif)[...])
                        at += count
                    }
                }
            }
        }
        return offset
    }

    static func ispe(width: Int, height: Int) -> [UInt8] {
        var w = HEIFBoxWriter()
        w.begin("ispe", version: 0)
        w.u32(width)
        w.u32(height)
        w.end()
        return w.bytes
    }

    /// A `clap` cutting `rect` out of a `width`×`height` image: its centre
    /// offset from the image's by (2x + w − W) / 2 and (2y + h − H) / 2.
    static func clap(_ rect: PixelRect<StoredPixels>, width: Int, height: Int) -> [UInt8] {
        var w = HEIFBoxWriter()
        w.begin("clap")
        for value in [
            rect.width, 1, rect.height, 1, 2 * rect.x + rect.width - width, 2,
            2 * rect.y + rect.height - height, 2,
        ] {
            w.u32(Int(UInt32(bitPattern: Int32(value))))
        }
        w.end()
        return w.bytes
    }

    /// The `irot` and `imir` boxes that show stored pixels turned as
    /// `orientation`, as libheif writes them, and their names.
    static func transformBoxes(_ orientation: EXIFOrientation) -> (
        boxes: [[UInt8]], names: [String]
    ) {
        let (rotation, mirror): (Int?, Int?) =
            switch orientation {
            case .up: (nil, nil)
            case .upMirrored: (nil, 1)
            case .down: (180, nil)
            case .downMirrored: (nil, 0)
            case .leftMirrored: (270, 1)
            case .right: (270, nil)
            case .rightMirrored: (270, 0)
            case .left: (90, nil)
            }
        var boxes: [[UInt8]] = []
        var names: [String] = []
        if let rotation {
            var w = HEIFBoxWriter()
            w.begin("irot")
            w.u8(rotation / 90)
            w.end()
            boxes.append(w.bytes)
            names.append("irot \(rotation)")
        }
        if let mirror {
            var w = HEIFBoxWriter()
            w.begin("imir")
            w.u8(mirror)
            w.end()
            boxes.append(w.bytes)
            names.append("imir \(mirror)")
        }
        return (boxes, names)
    }

    /// An `ImageGrid` description.
    static func gridDescription(rows: Int, columns: Int, width: Int, height: Int) -> [UInt8] {
        let wide = width > 0xFFFF || height > 0xFFFF
        var w = HEIFBoxWriter()
        w.u8(0)
        w.u8(wide ? 1 : 0)
        w.u8(rows - 1)
        w.u8(columns - 1)
        if wide {
            w.u32(width)
            w.u32(height)
        } else {
            w.u16(width)
            w.u16(height)
        }
        return w.bytes
    }
}
