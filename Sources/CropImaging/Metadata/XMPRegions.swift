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
    /// read and written (as a top-left rectangle normalized to the stored
    /// image; a point has no size), and which items are people.
    struct Schema: Sendable {
        /// "MWG", "MP".
        var label: String
        /// The block's opening tag's start, and its closing tag.
        var open: String
        var close: String
        /// The property that names an item.
        var nameTag: String
        /// An item's area, or `nil` (with why) when it cannot be read.
        var read:
            @Sendable (String) -> Result<(x: Double, y: Double, w: Double, h: Double), Unreadable>
        /// The item with its area set.
        var write: @Sendable (String, (x: Double, y: Double, w: Double, h: Double)) -> String
        /// Whether an item shows or names a person.
        var isPerson: @Sendable (String) -> Bool
        /// Whether the block says the stored size its areas apply to.
        var hasDimensions: Bool
    }

    /// Why an area cannot be read.
    struct Unreadable: Error {
        var why: String
    }

    /// MWG regions: `stArea` x, y the centre, w, h, normalized, with
    /// `AppliedToDimensions`.
    static let mwg = Schema(
        label: "MWG", open: "<mwg-rs:Regions", close: "</mwg-rs:Regions>",
        nameTag: "mwg-rs:Name",
        read: { item in
            guard let x = number("stArea:x", in: item), let y = number("stArea:y", in: item)
            else { return .failure(Unreadable(why: "its area cannot be read")) }
            let w = number("stArea:w", in: item) ?? 0
            let h = number("stArea:h", in: item) ?? 0
            guard (value("stArea:unit", in: item) ?? "normalized") == "normalized",
                [x, y, w, h].allSatisfy(\.isFinite), w >= 0, h >= 0
            else { return .failure(Unreadable(why: "its area is not a normalized rectangle")) }
            return .success((x - w / 2, y - h / 2, w, h))
        },
        write: { item, area in
            var written = item
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
        nameTag: "MPReg:PersonDisplayName",
        read: { item in
            let numbers = (value("MPReg:Rectangle", in: item) ?? "").split(separator: ",").map {
                Double($0.trimmingCharacters(in: .whitespaces))
            }
            guard numbers.count == 4, let x = numbers[0], let y = numbers[1], let w = numbers[2],
                let h = numbers[3], [x, y, w, h].allSatisfy(\.isFinite), w >= 0, h >= 0
            else { return .failure(Unreadable(why: "its rectangle cannot be read")) }
            return .success((x, y, w, h))
        },
        write: { item, area in
            setting(
                "MPReg:Rectangle",
                to: [area.x, area.y, area.w, area.h].map { String(format: "%.6f", $0) }.joined(
                    separator: ", "), in: item)
        },
        isPerson: { _ in true }, hasDimensions: false)

    /// `text` with its regions (MWG's, Microsoft's) mapped, and what
    /// changed; `text` unchanged when it has none.
    static func map(
        _ text: String, places: CropPlaces?, keepsStoredGrid: Bool, stripPeople: Bool = false
    ) -> (String, [String]) {
        var out = text
        var changes: [String] = []
        for schema in [mwg, mp] {
            let (mapped, said) = map(
                out, schema: schema, places: places, keepsStoredGrid: keepsStoredGrid,
                stripPeople: stripPeople)
            out = mapped
            changes += said
        }
        return (out, changes)
    }

    /// The most regions (and nested items) a list may hold to be mapped:
    /// far more than any photo names; a longer list is removed whole.
    static let maximumRegions = 1000

    /// `text` with the regions of `schema` mapped.
    private static func map(
        _ text: String, schema: Schema, places: CropPlaces?, keepsStoredGrid: Bool,
        stripPeople: Bool
    ) -> (String, [String]) {
        guard let start = text.range(of: schema.open),
            let end = text.range(of: schema.close, range: start.upperBound..<text.endIndex)
        else { return (text, []) }
        let block = String(text[start.lowerBound..<end.upperBound])
        // Removed whole where there is no crop to map by.
        guard let places else {
            return (
                text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: ""),
                ["\(schema.label) regions removed: no crop to map them by"]
            )
        }
        // Bounded work: a list longer than any photo's is removed whole.
        let items = block.utf8.split(separator: UInt8(ascii: "<")).lazy.filter {
            $0.starts(with: "rdf:li".utf8)
        }.count
        guard items <= maximumRegions else {
            return (
                text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: ""),
                [
                    "\(schema.label) regions removed: \(items) items, more than the \(maximumRegions) CropKit maps"
                ]
            )
        }
        let size = places.outputSize(keepsStoredGrid: keepsStoredGrid)
        let stored = places.upright.sourceSize
        var out = ""
        var mapped: [String] = []
        var clipped: [String] = []
        var removed: [String] = []
        var people = 0
        var rest = block[...]
        // Each top-level `rdf:li` of the list, in order; everything
        // between them kept as it is.
        while let open = rest.range(of: "<rdf:li") {
            out += rest[..<open.lowerBound]
            guard let close = Self.itemEnd(rest, from: open.lowerBound) else {
                rest = rest[open.lowerBound...]
                break
            }
            let item = String(rest[open.lowerBound..<close])
            rest = rest[close...]
            let name = Self.value(schema.nameTag, in: item) ?? "unnamed"
            // A person's region under --strip people.
            if stripPeople, schema.isPerson(item) {
                people += 1
                continue
            }
            let area: (x: Double, y: Double, w: Double, h: Double)
            switch schema.read(item) {
            case .success(let read): area = read
            case .failure(let unreadable):
                // Not an area this code can read: removed, never stale.
                removed.append("\(name) (\(unreadable.why))")
                continue
            }
            let (sw, sh) = (Double(stored.width), Double(stored.height))
            let place: Place<StoredPixels> =
                area.w == 0 && area.h == 0
                ? .point(Point(x: area.x * sw, y: area.y * sh))
                : .rect(
                    Rect(x: area.x * sw, y: area.y * sh, width: area.w * sw, height: area.h * sh))
            let result = places.map(stored: place, keepsStoredGrid: keepsStoredGrid)
            guard let box = result.place?.boundingBox else {
                removed.append("\(name) (outside the crop)")
                continue
            }
            let (ow, oh) = (Double(size.width), Double(size.height))
            out += schema.write(item, (box.x / ow, box.y / oh, box.width / ow, box.height / oh))
            mapped.append(name)
            if result.clipped { clipped.append(name) }
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
        return (text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: out), changes)
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
        for tag in ["mwg-rs:Name", "MPReg:PersonDisplayName"] {
            var rest = text[...]
            while let open = rest.range(of: "<\(tag)>"),
                let close = rest.range(of: "</\(tag)>", range: open.upperBound..<rest.endIndex)
            {
                found.append(String(rest[open.upperBound..<close.lowerBound]))
                rest = rest[close.upperBound...]
            }
            for quote in ["\"", "'"] {
                rest = text[...]
                while let open = rest.range(of: " \(tag)=\(quote)"),
                    let close = rest.range(of: quote, range: open.upperBound..<rest.endIndex)
                {
                    found.append(String(rest[open.upperBound..<close.lowerBound]))
                    rest = rest[close.upperBound...]
                }
            }
        }
        if let open = text.range(of: "<Iptc4xmpExt:PersonInImage>"),
            let close = text.range(
                of: "</Iptc4xmpExt:PersonInImage>", range: open.upperBound..<text.endIndex)
        {
            var rest = text[open.upperBound..<close.lowerBound]
            while let li = rest.range(of: "<rdf:li>"),
                let end = rest.range(of: "</rdf:li>", range: li.upperBound..<rest.endIndex)
            {
                found.append(String(rest[li.upperBound..<end.lowerBound]))
                rest = rest[end.upperBound...]
            }
        }
        return found
    }

    /// Where the `rdf:li` opened at `open` ends (after its `</rdf:li>`, or
    /// its `/>`), counting the items nested in it; `nil` when it does not.
    private static func itemEnd(_ text: Substring, from open: Substring.Index) -> Substring.Index? {
        guard let tagEnd = text[open...].firstIndex(of: ">") else { return nil }
        if text[text.index(before: tagEnd)] == "/" { return text.index(after: tagEnd) }
        var depth = 1
        var at = text.index(after: tagEnd)
        while depth > 0 {
            let nextOpen = text.range(of: "<rdf:li", range: at..<text.endIndex)
            guard let nextClose = text.range(of: "</rdf:li>", range: at..<text.endIndex) else {
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
        if let open = item.range(of: "<\(property)>"),
            let close = item.range(of: "</\(property)>", range: open.upperBound..<item.endIndex)
        {
            return String(item[open.upperBound..<close.lowerBound]).trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
        for quote in ["\"", "'"] {
            if let open = item.range(of: " \(property)=\(quote)"),
                let close = item.range(of: quote, range: open.upperBound..<item.endIndex)
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
        if let open = out.range(of: "<\(property)>"),
            let close = out.range(of: "</\(property)>", range: open.upperBound..<out.endIndex)
        {
            out.replaceSubrange(open.upperBound..<close.lowerBound, with: value)
            return out
        }
        for quote in ["\"", "'"] {
            if let open = out.range(of: " \(property)=\(quote)"),
                let close = out.range(of: quote, range: open.upperBound..<out.endIndex)
            {
                out.replaceSubrange(open.upperBound..<close.lowerBound, with: value)
                return out
            }
        }
        return out
    }
}
