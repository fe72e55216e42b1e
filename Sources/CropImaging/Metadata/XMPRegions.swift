import CropGeometry
import Foundation

/// The MWG regions of an XMP packet (`mwg-rs:Regions`: faces, pets, focus
/// areas, each a centre and size normalized to the **stored** image, MWG
/// Guidelines 2.0 §5.9) carried into a crop (DESIGN.md, "Coordinates in
/// metadata"): each region's area mapped by the crop's ``CropPlaces`` and
/// clipped (a straightened crop gives the box of the turned, clipped
/// region), a region with nothing inside removed with its name, and
/// `AppliedToDimensions` set to the output's stored size. Areas are read
/// and written in either RDF form (`<stArea:x>0.5</stArea:x>` or
/// `stArea:x="0.5"`), with six decimals, as exiftool writes them.
enum XMPRegions {
    /// One schema of regions: where its list lives, how an item's area is
    /// read (a place in the stored image's pixels) and written (a place in
    /// the output's, in the schema's own shapes and units), and which items
    /// are people.
    struct Schema: Sendable {
        /// "MWG", "MP", "IPTC".
        var label: String
        /// The block's opening tag's start, and its closing tag.
        var open: String
        var close: String
        /// The name of an item, if it has one.
        var name: @Sendable (String) -> String?
        /// An item's area in the pixels of a stored image of the size
        /// given, or why it cannot be read.
        var read:
            @Sendable (String, PixelSize<StoredPixels>) -> Result<Place<StoredPixels>, Unreadable>
        /// The item with its area set to a place in an output of the size
        /// given.
        var write: @Sendable (String, Place<OutputPixels>, PixelSize<OutputPixels>) -> String
        /// Whether an item shows or names a person.
        var isPerson: @Sendable (String) -> Bool
        /// Whether the block says the stored size its areas apply to.
        var hasDimensions: Bool
    }

    /// Why an area cannot be read.
    struct Unreadable: Error {
        var why: String
    }

    /// A normalized top-left rectangle (a point when it has no size) in the
    /// pixels of a stored image of `size`.
    private static func place(
        normalized area: (x: Double, y: Double, w: Double, h: Double),
        in size: PixelSize<StoredPixels>
    ) -> Place<StoredPixels> {
        let (sw, sh) = (Double(size.width), Double(size.height))
        return area.w == 0 && area.h == 0
            ? .point(Point(x: area.x * sw, y: area.y * sh))
            : .rect(Rect(x: area.x * sw, y: area.y * sh, width: area.w * sw, height: area.h * sh))
    }

    /// The box of `place`, normalized to an output of `size`.
    private static func normalizedBox(
        _ place: Place<OutputPixels>, in size: PixelSize<OutputPixels>
    )
        -> (x: Double, y: Double, w: Double, h: Double)
    {
        let box = place.boundingBox ?? Rect(x: 0, y: 0, width: 0, height: 0)
        let (ow, oh) = (Double(size.width), Double(size.height))
        return (box.x / ow, box.y / oh, box.width / ow, box.height / oh)
    }

    /// MWG regions: `stArea` x, y the centre, w, h, normalized, with
    /// `AppliedToDimensions`.
    static let mwg = Schema(
        label: "MWG", open: "<mwg-rs:Regions", close: "</mwg-rs:Regions>",
        name: { value("mwg-rs:Name", in: $0) },
        read: { item, size in
            guard let x = number("stArea:x", in: item), let y = number("stArea:y", in: item)
            else { return .failure(Unreadable(why: "its area cannot be read")) }
            let w = number("stArea:w", in: item) ?? 0
            let h = number("stArea:h", in: item) ?? 0
            guard (value("stArea:unit", in: item) ?? "normalized") == "normalized",
                [x, y, w, h].allSatisfy(\.isFinite), w >= 0, h >= 0
            else { return .failure(Unreadable(why: "its area is not a normalized rectangle")) }
            return .success(place(normalized: (x - w / 2, y - h / 2, w, h), in: size))
        },
        write: { item, place, size in
            var written = item
            let area = normalizedBox(place, in: size)
            let point = area.w == 0 && area.h == 0
            for (property, v) in [
                ("stArea:x", area.x + area.w / 2), ("stArea:y", area.y + area.h / 2),
                ("stArea:w", area.w), ("stArea:h", area.h),
            ] where !point || property == "stArea:x" || property == "stArea:y" {
                written = setting(property, to: String(format: "%.6f", v), in: written)
            }
            return written
        },
        isPerson: { item in
            value("mwg-rs:Type", in: item) == "Face" || value("mwg-rs:Name", in: item) != nil
        },
        hasDimensions: true)

    /// Microsoft's people regions (`MP:RegionInfo`): `MPReg:Rectangle` the
    /// top-left x, y and w, h, normalized. Their specification does not say
    /// whether they apply to the stored or the displayed image; CropKit
    /// reads them as MWG's, on the stored image, as exiftool's MWG
    /// conversion does (no orientation step between the two).
    static let mp = Schema(
        label: "MP", open: "<MP:RegionInfo", close: "</MP:RegionInfo>",
        name: { value("MPReg:PersonDisplayName", in: $0) },
        read: { item, size in
            let numbers = (value("MPReg:Rectangle", in: item) ?? "").split(separator: ",").map {
                Double($0.trimmingCharacters(in: .whitespaces))
            }
            guard numbers.count == 4, let x = numbers[0], let y = numbers[1], let w = numbers[2],
                let h = numbers[3], [x, y, w, h].allSatisfy(\.isFinite), w >= 0, h >= 0
            else { return .failure(Unreadable(why: "its rectangle cannot be read")) }
            return .success(place(normalized: (x, y, w, h), in: size))
        },
        write: { item, place, size in
            let area = normalizedBox(place, in: size)
            return setting(
                "MPReg:Rectangle",
                to: [area.x, area.y, area.w, area.h].map { String(format: "%.6f", $0) }.joined(
                    separator: ", "), in: item)
        },
        isPerson: { _ in true }, hasDimensions: false)

    /// IPTC's image regions (`Iptc4xmpExt:ImageRegion`): each item's
    /// `RegionBoundary` a rectangle (top-left `rbX`, `rbY`, `rbW`, `rbH`), a
    /// circle (centre and `rbRx`) or a polygon (`rbVertices`), in pixels or
    /// relative to the image (a relative radius to its width). Like
    /// Microsoft's, their specification does not say whether they apply
    /// before or after the orientation; CropKit reads them on the stored
    /// image, as MWG's. Written back in the item's own unit, as the shape
    /// the mapping gives: a turned rectangle becomes a polygon, a circle
    /// the crop cuts the rectangle round its part inside.
    static let iptc = Schema(
        label: "IPTC", open: "<Iptc4xmpExt:ImageRegion", close: "</Iptc4xmpExt:ImageRegion>",
        name: { item in
            // The x-default of its language alternative, else its id.
            if let name = value("Iptc4xmpExt:Name", in: item) {
                guard let li = name.bytes(of: "<rdf:li"),
                    let start = name[li.upperBound...].firstIndex(of: ">"),
                    let end = name.bytes(of: "</rdf:li>", in: start..<name.endIndex)
                else { return name }
                return String(name[name.index(after: start)..<end.lowerBound])
            }
            return value("Iptc4xmpExt:rId", in: item)
        },
        read: { item, size in
            guard let boundary = iptcBoundary(in: item) else {
                return .failure(Unreadable(why: "it has no RegionBoundary"))
            }
            let text = String(item[boundary])
            let unit = value("Iptc4xmpExt:rbUnit", in: text)
            guard unit == "pixel" || unit == "relative" else {
                return .failure(Unreadable(why: "its unit is not pixel or relative"))
            }
            let (sx, sy) =
                unit == "pixel" ? (1.0, 1.0) : (Double(size.width), Double(size.height))
            func point(_ text: String) -> Point<StoredPixels>? {
                guard let x = number("Iptc4xmpExt:rbX", in: text),
                    let y = number("Iptc4xmpExt:rbY", in: text), x.isFinite, y.isFinite
                else { return nil }
                return Point(x: x * sx, y: y * sy)
            }
            switch value("Iptc4xmpExt:rbShape", in: text) {
            case "rectangle":
                guard let corner = point(text), let w = number("Iptc4xmpExt:rbW", in: text),
                    let h = number("Iptc4xmpExt:rbH", in: text), w.isFinite, h.isFinite, w >= 0,
                    h >= 0
                else { return .failure(Unreadable(why: "its rectangle cannot be read")) }
                return .success(
                    .rect(Rect(x: corner.x, y: corner.y, width: w * sx, height: h * sy)))
            case "circle":
                guard let centre = point(text), let rx = number("Iptc4xmpExt:rbRx", in: text),
                    rx.isFinite, rx >= 0
                else { return .failure(Unreadable(why: "its circle cannot be read")) }
                return .success(.circle(center: centre, radius: rx * sx))
            case "polygon":
                guard let open = text.bytes(of: "<Iptc4xmpExt:rbVertices"),
                    let close = text.range(
                        of: "</Iptc4xmpExt:rbVertices>", range: open.upperBound..<text.endIndex)
                else { return .failure(Unreadable(why: "its polygon has no vertices")) }
                var vertices: [Point<StoredPixels>] = []
                var rest = text[open.upperBound..<close.lowerBound]
                while let li = rest.bytes(of: "<rdf:li") {
                    let end =
                        rest.bytes(of: "</rdf:li>", in: li.upperBound..<rest.endIndex)?
                        .upperBound ?? rest.endIndex
                    guard let vertex = point(String(rest[li.lowerBound..<end])) else {
                        return .failure(Unreadable(why: "a vertex of its polygon cannot be read"))
                    }
                    vertices.append(vertex)
                    rest = rest[end...]
                }
                guard vertices.count >= 3 else {
                    return .failure(Unreadable(why: "its polygon has fewer than 3 vertices"))
                }
                return .success(.polygon(vertices))
            default:
                return .failure(Unreadable(why: "its shape is not a rectangle, circle or polygon"))
            }
        },
        write: { item, place, size in
            guard let boundary = iptcBoundary(in: item) else { return item }
            let relative = value("Iptc4xmpExt:rbUnit", in: String(item[boundary])) == "relative"
            let (sx, sy) =
                relative ? (1 / Double(size.width), 1 / Double(size.height)) : (1.0, 1.0)
            func property(_ name: String, _ v: Double) -> String {
                "<Iptc4xmpExt:\(name)>\(decimal(v))</Iptc4xmpExt:\(name)>"
            }
            var parts = [String]()
            switch place {
            case .point(let p):
                parts = [
                    "<Iptc4xmpExt:rbShape>rectangle</Iptc4xmpExt:rbShape>",
                    property("rbX", p.x * sx), property("rbY", p.y * sy), property("rbW", 0),
                    property("rbH", 0),
                ]
            case .rect(let r):
                parts = [
                    "<Iptc4xmpExt:rbShape>rectangle</Iptc4xmpExt:rbShape>",
                    property("rbX", r.x * sx), property("rbY", r.y * sy),
                    property("rbW", r.width * sx), property("rbH", r.height * sy),
                ]
            case .circle(let c, let radius):
                parts = [
                    "<Iptc4xmpExt:rbShape>circle</Iptc4xmpExt:rbShape>",
                    property("rbX", c.x * sx), property("rbY", c.y * sy),
                    property("rbRx", radius * sx),
                ]
            case .polygon(let corners):
                let vertices = corners.map {
                    "<rdf:li rdf:parseType='Resource'>\(property("rbX", $0.x * sx))\(property("rbY", $0.y * sy))</rdf:li>"
                }
                parts = [
                    "<Iptc4xmpExt:rbShape>polygon</Iptc4xmpExt:rbShape>",
                    "<Iptc4xmpExt:rbVertices><rdf:Seq>\(vertices.joined())</rdf:Seq></Iptc4xmpExt:rbVertices>",
                ]
            }
            parts.insert(
                "<Iptc4xmpExt:rbUnit>\(relative ? "relative" : "pixel")</Iptc4xmpExt:rbUnit>", at: 1
            )
            var written = item
            written.replaceSubrange(
                boundary,
                with:
                    "<Iptc4xmpExt:RegionBoundary rdf:parseType='Resource'>\(parts.joined())</Iptc4xmpExt:RegionBoundary>"
            )
            return written
        },
        isPerson: { item in
            item.contains("imageregiontype/human") || item.contains("Iptc4xmpExt:PersonInImage")
        },
        hasDimensions: false)

    /// The range of an IPTC region's `RegionBoundary` element (either
    /// form, with its end tag or empty) in `item`.
    private static func iptcBoundary(in item: String) -> Range<String.Index>? {
        let tag = "Iptc4xmpExt:RegionBoundary"
        guard let open = item.bytes(of: "<\(tag)"),
            let tagEnd = item[open.upperBound...].firstIndex(of: ">")
        else { return nil }
        if item[item.index(before: tagEnd)] == "/" {
            return open.lowerBound..<item.index(after: tagEnd)
        }
        guard let close = item.bytes(of: "</\(tag)>", in: tagEnd..<item.endIndex) else {
            return nil
        }
        return open.lowerBound..<close.upperBound
    }

    /// `v` with at most six decimals and no trailing zeros: a whole pixel
    /// is written as a whole number.
    static func decimal(_ v: Double) -> String {
        var text = String(format: "%.6f", v)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// `text` with its regions (MWG's, Microsoft's, IPTC's) and Google's
    /// focal point mapped, and what changed; `text` unchanged when it has
    /// none.
    static func map(
        _ text: String, places: CropPlaces?, keepsStoredGrid: Bool, stripPeople: Bool = false
    ) -> (String, [String], [MetadataChange]) {
        var out = text
        var changes: [String] = []
        var typed: [MetadataChange] = []
        for schema in [mwg, mp, iptc] {
            let (mapped, said, regions) = map(
                out, schema: schema, places: places, keepsStoredGrid: keepsStoredGrid,
                stripPeople: stripPeople)
            out = mapped
            changes += said
            typed += regions
        }
        let (focused, said, focus) = mapFocus(
            out, places: places, keepsStoredGrid: keepsStoredGrid)
        return (focused, changes + said, typed + focus)
    }

    /// Whether `text` names a place this type maps: a region list of any
    /// schema, or Google's focal point.
    static func mentionsPlaces(_ text: String) -> Bool {
        [mwg, mp, iptc].contains { XMPCleaner.mentions(text, $0.open) }
            || XMPCleaner.mentions(text, "GFocus:FocalPoint")
    }

    /// `text` with Google's focal point (`GFocus:FocalPointX`, `Y`: a point
    /// of a Lens Blur depth photo, normalized to the image, read on the
    /// stored image as the depth map's own grid is) mapped into the crop,
    /// or removed when it lies outside it or cannot be read; and what
    /// changed.
    static func mapFocus(_ text: String, places: CropPlaces?, keepsStoredGrid: Bool) -> (
        String, [String], [MetadataChange]
    ) {
        let names = ["GFocus:FocalPointX", "GFocus:FocalPointY"]
        guard names.contains(where: { XMPCleaner.mentions(text, $0) }) else {
            return (text, [], [])
        }
        var out = text
        func removed(_ why: String) -> (String, [String], [MetadataChange]) {
            for name in names { _ = XMPCleaner.removing(name, from: &out) }
            let said = "GFocus focal point removed: \(why)"
            return (out, [said], [.init("GFocus:FocalPoint", .removed, summary: said)])
        }
        guard let places else { return removed("no crop to map it by") }
        guard let x = number(names[0], in: text), let y = number(names[1], in: text),
            x.isFinite, y.isFinite
        else { return removed("it cannot be read as two numbers") }
        let stored = places.upright.sourceSize
        let result = places.map(
            stored: .point(Point(x: x * Double(stored.width), y: y * Double(stored.height))),
            keepsStoredGrid: keepsStoredGrid)
        guard case .point(let p)? = result.place else { return removed("it lies outside the crop") }
        let size = places.outputSize(keepsStoredGrid: keepsStoredGrid)
        let (nx, ny) = (decimal(p.x / Double(size.width)), decimal(p.y / Double(size.height)))
        out = setting(names[0], to: nx, in: out)
        out = setting(names[1], to: ny, in: out)
        let said = "GFocus focal point mapped to \(nx),\(ny)"
        // The point in the output's pixels.
        return (
            out, [said],
            [
                .init(
                    "GFocus:FocalPoint", .mapped,
                    values: [Int((p.x - 0.5).rounded()), Int((p.y - 0.5).rounded())],
                    summary: said)
            ]
        )
    }

    /// The most regions (and nested items) a list may hold to be mapped:
    /// far more than any photo names; a longer list is removed whole.
    static let maximumRegions = 1000

    /// `text` with the regions of `schema` mapped.
    private static func map(
        _ text: String, schema: Schema, places: CropPlaces?, keepsStoredGrid: Bool,
        stripPeople: Bool
    ) -> (String, [String], [MetadataChange]) {
        // A byte search first: Foundation's range(of:) over a whole packet
        // costs more than the mapping.
        guard XMPCleaner.mentions(text, schema.open), let start = text.bytes(of: schema.open),
            let end = text.bytes(of: schema.close, in: start.upperBound..<text.endIndex)
        else { return (text, [], []) }
        let block = String(text[start.lowerBound..<end.upperBound])
        let regions = "\(schema.label) regions"
        // Removed whole where there is no crop to map by.
        guard let places else {
            let said = "\(schema.label) regions removed: no crop to map them by"
            return (
                text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: ""),
                [said], [.init(regions, .removed, summary: said)]
            )
        }
        // Bounded work: a list longer than any photo's is removed whole.
        let items = itemCount(block[...])
        guard items <= maximumRegions else {
            let said =
                "\(schema.label) regions removed: \(items) items, more than the \(maximumRegions) CropKit maps"
            return (
                text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: ""),
                [said], [.init(regions, .removed, summary: said)]
            )
        }
        let size = places.outputSize(keepsStoredGrid: keepsStoredGrid)
        let stored = places.upright.sourceSize
        var out = ""
        var mapped: [String] = []
        var clipped: [String] = []
        var removed: [String] = []
        var people = 0
        // Each region's outcome as a field: where it went, or why it went.
        var typed: [MetadataChange] = []
        var rest = block[...]
        // Each top-level `rdf:li` of the list, in order; everything
        // between them kept as it is.
        while let open = rest.bytes(of: "<rdf:li") {
            out += rest[..<open.lowerBound]
            guard let close = Self.itemEnd(rest, from: open.lowerBound) else {
                rest = rest[open.lowerBound...]
                break
            }
            let item = String(rest[open.lowerBound..<close])
            rest = rest[close...]
            let name = schema.name(item) ?? "unnamed"
            // A person's region under --strip people.
            if stripPeople, schema.isPerson(item) {
                people += 1
                typed.append(
                    .init(
                        "\(schema.label) region \(name)", .removed,
                        summary: "\(schema.label) region \(name) removed (--strip people)"))
                continue
            }
            let place: Place<StoredPixels>
            switch schema.read(item, stored) {
            case .success(let read): place = read
            case .failure(let unreadable):
                // Not an area this code can read: removed, never stale.
                removed.append("\(name) (\(unreadable.why))")
                typed.append(
                    .init(
                        "\(schema.label) region \(name)", .removed,
                        summary: "\(schema.label) region \(name) removed: \(unreadable.why)"))
                continue
            }
            let result = places.map(stored: place, keepsStoredGrid: keepsStoredGrid)
            guard let kept = result.place else {
                removed.append("\(name) (outside the crop)")
                typed.append(
                    .init(
                        "\(schema.label) region \(name)", .removed,
                        summary: "\(schema.label) region \(name) removed: outside the crop"))
                continue
            }
            out += schema.write(item, kept, size)
            mapped.append(name)
            if result.clipped { clipped.append(name) }
            typed.append(
                Self.mapped("\(schema.label) region \(name)", kept, clipped: result.clipped))
        }
        out += rest
        // The dimensions the areas apply to: the output's stored size.
        if schema.hasDimensions {
            for (property, value) in [("stDim:w", size.width), ("stDim:h", size.height)] {
                out = Self.setting(property, to: String(value), in: out)
            }
        }
        var changes: [String] = []
        if mapped.isEmpty {
            // Nothing left to describe: the whole block goes.
            out = ""
        } else {
            changes.append(
                "mapped \(mapped.count) \(schema.label) region(s) (\(mapped.joined(separator: ", ")))"
                    + (clipped.isEmpty ? "" : ", \(clipped.count) clipped to the crop")
                    + (schema.hasDimensions
                        ? "; AppliedToDimensions set to \(size.width)x\(size.height)" : ""))
        }
        if people > 0 {
            changes.append(
                "removed \(people) \(schema.label) region(s) of people (--strip people)")
        }
        if !removed.isEmpty {
            changes.append(
                "removed \(removed.count) \(schema.label) region(s): \(removed.joined(separator: ", "))"
            )
        }
        if schema.hasDimensions && !mapped.isEmpty {
            typed.append(
                .init(
                    "\(schema.label) AppliedToDimensions", .set, values: [size.width, size.height],
                    summary: "AppliedToDimensions set to \(size.width)x\(size.height)"))
        }
        return (
            text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: out), changes,
            typed
        )
    }

    /// A region or point `field` mapped to `place` (in the output's stored
    /// pixels): its values there, a point's x, y, else its bounding box's
    /// x, y, width, height, rounded to whole pixels.
    static func mapped<Space>(_ field: String, _ place: Place<Space>, clipped: Bool)
        -> MetadataChange
    {
        let values: [Int]
        if case .point(let p) = place {
            values = [Int((p.x - 0.5).rounded()), Int((p.y - 0.5).rounded())]
        } else if let box = place.boundingBox {
            values = [box.x, box.y, box.width, box.height].map { Int($0.rounded()) }
        } else {
            values = []
        }
        let at =
            values.count == 4
            ? "\(values[0]),\(values[1]) \(values[2])x\(values[3])"
            : values.map(String.init).joined(separator: ",")
        return .init(
            field, .mapped, values: values,
            summary: "\(field) mapped to \(at)" + (clipped ? ", clipped to the crop" : ""))
    }

    /// The regions `text` names, each with its shape, values and space,
    /// for `info`: "XMP MWG region Alice: a rectangle 0.1x0.16, top-left
    /// 0.01,0.37 (normalized to the stored image; mapped by a crop)". A
    /// region whose area cannot be read is listed as such; a list longer
    /// than ``maximumRegions`` by its length.
    static func describe(_ text: String) -> [ImageFileSummary.Detail.Entry] {
        var found: [ImageFileSummary.Detail.Entry] = []
        for schema in [mwg, mp, iptc] {
            guard XMPCleaner.mentions(text, schema.open), let start = text.bytes(of: schema.open),
                let end = text.bytes(of: schema.close, in: start.upperBound..<text.endIndex)
            else { continue }
            var rest = text[start.upperBound..<end.lowerBound]
            let field = "XMP \(schema.label) region"
            // Bounded work: a list longer than any photo's is not walked.
            guard itemCount(rest) <= maximumRegions else {
                found.append(
                    MetadataPlace.entry(
                        "XMP \(schema.label) regions: more than \(maximumRegions) (removed by a crop)",
                        field: field, shape: nil, values: [], space: nil, crop: "removed"))
                continue
            }
            while let open = rest.bytes(of: "<rdf:li"),
                let close = itemEnd(rest, from: open.lowerBound)
            {
                let item = String(rest[open.lowerBound..<close])
                rest = rest[close...]
                let name = schema.name(item) ?? "unnamed"
                // Read on a 1x1 image: normalized values stay normalized,
                // IPTC's pixels stay pixels.
                guard case .success(let place) = schema.read(item, PixelSize(width: 1, height: 1))
                else {
                    found.append(
                        MetadataPlace.entry(
                            "XMP \(schema.label) region \(name): an area that cannot be read (removed by a crop)",
                            field: field, name: schema.name(item), shape: nil, values: [],
                            space: nil, crop: "removed"))
                    continue
                }
                let pixels =
                    schema.label == "IPTC" && value("Iptc4xmpExt:rbUnit", in: item) == "pixel"
                let (space, spaceWords) =
                    pixels
                    ? ("storedPixels", "pixels of the stored image")
                    : schema.label == "IPTC"
                        ? ("relative", "relative to the stored image, a radius to its width")
                        : ("normalized", "normalized to the stored image")
                let shape: String
                let words: String
                let values: [Double]
                switch place {
                case .point(let p):
                    (shape, values) = ("point", [p.x, p.y])
                    words = "a point \(decimal(p.x)),\(decimal(p.y))"
                case .rect(let r):
                    (shape, values) = ("rectangle", [r.x, r.y, r.width, r.height])
                    words =
                        "a rectangle \(decimal(r.width))x\(decimal(r.height)), top-left \(decimal(r.x)),\(decimal(r.y))"
                case .circle(let c, let radius):
                    (shape, values) = ("circle", [c.x, c.y, radius])
                    words =
                        "a circle of radius \(decimal(radius)) by its centre \(decimal(c.x)),\(decimal(c.y))"
                case .polygon(let corners):
                    (shape, values) = ("polygon", corners.flatMap { [$0.x, $0.y] })
                    words =
                        "a polygon of \(corners.count) vertices "
                        + corners.map { "\(decimal($0.x)),\(decimal($0.y))" }.joined(separator: " ")
                }
                found.append(
                    MetadataPlace.entry(
                        "XMP \(schema.label) region \(name): \(words) (\(spaceWords); mapped by a crop)",
                        field: field, name: schema.name(item), shape: shape, values: values,
                        space: space, crop: "mapped"))
            }
        }
        return found
    }

    /// A stale `AppliedToDimensions` in `text`: one that is not the stored
    /// size of the image it describes (a crop by a tool that kept it), for
    /// a leak report.
    static func staleDimensions(in text: String, size: PixelSize<StoredPixels>) -> [String] {
        guard XMPCleaner.mentions(text, "<mwg-rs:AppliedToDimensions"),
            let open = text.bytes(of: "<mwg-rs:AppliedToDimensions"),
            let close = text.range(
                of: "AppliedToDimensions>", range: open.upperBound..<text.endIndex)
                ?? text[open.upperBound...].bytes(of: "/>")
        else { return [] }
        let block = String(text[open.lowerBound..<close.upperBound])
        guard let w = number("stDim:w", in: block), let h = number("stDim:h", in: block),
            w != Double(size.width) || h != Double(size.height)
        else { return [] }
        return [
            "MWG regions' AppliedToDimensions \(decimal(w))x\(decimal(h)), not the image's \(size.width)x\(size.height)"
        ]
    }

    /// The other properties that name people, removed whole by `--strip
    /// people` (Microsoft's people regions go through ``mp``): IPTC's
    /// persons shown.
    static let peopleProperties = ["Iptc4xmpExt:PersonInImage"]

    /// The names of people `text` holds (MWG region names, Microsoft's
    /// `MPReg:PersonDisplayName`, IPTC's `PersonInImage` entries), for the
    /// report's line on what a crop kept.
    static func people(in text: String) -> [String] {
        var found: [String] = []
        for tag in ["mwg-rs:Name", "MPReg:PersonDisplayName"] where XMPCleaner.mentions(text, tag) {
            var rest = text[...]
            while let open = rest.bytes(of: "<\(tag)>"),
                let close = rest.bytes(of: "</\(tag)>", in: open.upperBound..<rest.endIndex)
            {
                found.append(String(rest[open.upperBound..<close.lowerBound]))
                rest = rest[close.upperBound...]
            }
            for quote in ["\"", "'"] {
                rest = text[...]
                while let open = rest.bytes(of: " \(tag)=\(quote)"),
                    let close = rest.bytes(of: quote, in: open.upperBound..<rest.endIndex)
                {
                    found.append(String(rest[open.upperBound..<close.lowerBound]))
                    rest = rest[close.upperBound...]
                }
            }
        }
        if XMPCleaner.mentions(text, "<Iptc4xmpExt:PersonInImage>"),
            let open = text.bytes(of: "<Iptc4xmpExt:PersonInImage>"),
            let close = text.range(
                of: "</Iptc4xmpExt:PersonInImage>", range: open.upperBound..<text.endIndex)
        {
            var rest = text[open.upperBound..<close.lowerBound]
            while let li = rest.bytes(of: "<rdf:li>"),
                let end = rest.bytes(of: "</rdf:li>", in: li.upperBound..<rest.endIndex)
            {
                found.append(String(rest[li.upperBound..<end.lowerBound]))
                rest = rest[end.upperBound...]
            }
        }
        return found
    }

    /// How many `rdf:li` items `block` holds, nested ones too: one pass.
    private static func itemCount(_ block: Substring) -> Int {
        block.utf8.split(separator: UInt8(ascii: "<")).lazy.filter {
            $0.starts(with: "rdf:li".utf8)
        }.count
    }

    /// Where the `rdf:li` opened at `open` ends (after its `</rdf:li>`, or
    /// its `/>`), counting the items nested in it; `nil` when it does not.
    private static func itemEnd(_ text: Substring, from open: Substring.Index) -> Substring.Index? {
        guard let tagEnd = text[open...].firstIndex(of: ">") else { return nil }
        if text[text.index(before: tagEnd)] == "/" { return text.index(after: tagEnd) }
        var depth = 1
        var at = text.index(after: tagEnd)
        while depth > 0 {
            let nextOpen = text.bytes(of: "<rdf:li", in: at..<text.endIndex)
            guard let nextClose = text.bytes(of: "</rdf:li>", in: at..<text.endIndex) else {
                return nil
            }
            if let nextOpen, nextOpen.lowerBound < nextClose.lowerBound {
                let end = text[nextOpen.upperBound...].firstIndex(of: ">") ?? nextOpen.upperBound
                if text[text.index(before: end)] != "/" { depth += 1 }
                at = text.index(after: end)
            } else {
                depth -= 1
                at = nextClose.upperBound
            }
        }
        return at
    }

    /// The text of `property` in `item`, as an element or an attribute.
    static func value(_ property: String, in item: String) -> String? {
        if let open = item.bytes(of: "<\(property)>"),
            let close = item.bytes(of: "</\(property)>", in: open.upperBound..<item.endIndex)
        {
            return String(item[open.upperBound..<close.lowerBound]).trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
        for quote in ["\"", "'"] {
            if let open = item.bytes(of: " \(property)=\(quote)"),
                let close = item.bytes(of: quote, in: open.upperBound..<item.endIndex)
            {
                return String(item[open.upperBound..<close.lowerBound])
            }
        }
        return nil
    }

    /// `property`'s value in `item` as a number.
    static func number(_ property: String, in item: String) -> Double? {
        value(property, in: item).flatMap { Double($0) }
    }

    /// `item` with `property` set to `value`, in the form it has.
    static func setting(_ property: String, to value: String, in item: String) -> String {
        var out = item
        if let open = out.bytes(of: "<\(property)>"),
            let close = out.bytes(of: "</\(property)>", in: open.upperBound..<out.endIndex)
        {
            out.replaceSubrange(open.upperBound..<close.lowerBound, with: value)
            return out
        }
        for quote in ["\"", "'"] {
            if let open = out.bytes(of: " \(property)=\(quote)"),
                let close = out.bytes(of: quote, in: open.upperBound..<out.endIndex)
            {
                out.replaceSubrange(open.upperBound..<close.lowerBound, with: value)
                return out
            }
        }
        return out
    }
}

extension StringProtocol {
    /// The first range of `pattern` in the text (within `bounds` when
    /// given), found by comparing UTF-8 bytes in place: Foundation's
    /// `range(of:)` bridges to `NSString` for each call, which cost a crop
    /// of a photo with regions more than the mapping itself.
    func bytes(of pattern: String, in bounds: Range<Index>? = nil) -> Range<Index>? {
        let view = bounds.map { utf8[$0] } ?? utf8[...]
        let needle = Array(pattern.utf8)
        guard let first = needle.first else { return nil }
        let found: Int?? = view.withContiguousStorageIfAvailable { bytes -> Int? in
            guard bytes.count >= needle.count else { return nil }
            var at = 0
            while at <= bytes.count - needle.count {
                if bytes[at] == first {
                    var k = 1
                    while k < needle.count, bytes[at + k] == needle[k] { k += 1 }
                    if k == needle.count { return at }
                }
                at += 1
            }
            return nil
        }
        guard let found else { return view.firstRange(of: needle) }
        guard let offset = found else { return nil }
        let start = utf8.index(view.startIndex, offsetBy: offset)
        return start..<utf8.index(start, offsetBy: needle.count)
    }
}
