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
    /// `text` with its MWG regions mapped, and what changed; `text`
    /// unchanged when it has none.
    static func map(
        _ text: String, places: CropPlaces?, keepsStoredGrid: Bool, stripPeople: Bool = false
    ) -> (String, [String]) {
        guard let start = text.range(of: "<mwg-rs:Regions"),
            let end = text.range(of: "</mwg-rs:Regions>", range: start.upperBound..<text.endIndex)
        else { return (text, []) }
        let block = String(text[start.lowerBound..<end.upperBound])
        // Removed whole where there is no crop to map by, or no list.
        guard let places else {
            return (
                text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: ""),
                ["MWG regions removed: no crop to map them by"]
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
            let name = Self.value("mwg-rs:Name", in: item) ?? "unnamed"
            // A person's region (a face, or one with a name) under
            // --strip people.
            if stripPeople,
                Self.value("mwg-rs:Type", in: item) == "Face"
                    || Self.value("mwg-rs:Name", in: item) != nil
            {
                people += 1
                continue
            }
            guard let x = Self.number("stArea:x", in: item),
                let y = Self.number("stArea:y", in: item)
            else {
                // Not an area this code can read: removed, never stale.
                removed.append("\(name) (its area cannot be read)")
                continue
            }
            let w = Self.number("stArea:w", in: item) ?? 0
            let h = Self.number("stArea:h", in: item) ?? 0
            let unit = Self.value("stArea:unit", in: item) ?? "normalized"
            guard unit == "normalized", w >= 0, h >= 0, x.isFinite, y.isFinite, w.isFinite,
                h.isFinite
            else {
                removed.append("\(name) (its area is not a normalized rectangle)")
                continue
            }
            let (sw, sh) = (Double(stored.width), Double(stored.height))
            let place: Place<StoredPixels> =
                w == 0 && h == 0
                ? .point(Point(x: x * sw, y: y * sh))
                : .rect(
                    Rect(x: (x - w / 2) * sw, y: (y - h / 2) * sh, width: w * sw, height: h * sh))
            let result = places.map(stored: place, keepsStoredGrid: keepsStoredGrid)
            guard let box = result.place?.boundingBox else {
                removed.append("\(name) (outside the crop)")
                continue
            }
            let (ow, oh) = (Double(size.width), Double(size.height))
            var written = item
            for (property, value) in [
                ("stArea:x", (box.x + box.width / 2) / ow),
                ("stArea:y", (box.y + box.height / 2) / oh),
                ("stArea:w", box.width / ow), ("stArea:h", box.height / oh),
            ] where property == "stArea:x" || property == "stArea:y" || w > 0 || h > 0 {
                written = Self.setting(property, to: String(format: "%.6f", value), in: written)
            }
            out += written
            mapped.append(name)
            if result.clipped { clipped.append(name) }
        }
        out += rest
        // The dimensions the areas apply to: the output's stored size.
        for (property, value) in [("stDim:w", size.width), ("stDim:h", size.height)] {
            out = Self.setting(property, to: String(value), in: out)
        }
        var changes: [String] = []
        let kept = mapped
        if kept.isEmpty {
            // Nothing left to describe: the whole block goes.
            out = ""
        } else {
            changes.append(
                "mapped \(kept.count) MWG region(s) (\(kept.joined(separator: ", ")))"
                    + (clipped.isEmpty ? "" : ", \(clipped.count) clipped to the crop")
                    + "; AppliedToDimensions set to \(size.width)x\(size.height)")
        }
        if people > 0 {
            changes.append("removed \(people) MWG region(s) of people (--strip people)")
        }
        if !removed.isEmpty {
            changes.append(
                "removed \(removed.count) MWG region(s): \(removed.joined(separator: ", "))"
            )
        }
        return (text.replacingCharacters(in: start.lowerBound..<end.upperBound, with: out), changes)
    }

    /// The other properties that name people, removed whole by `--strip
    /// people`: Microsoft's people regions and IPTC's persons shown.
    static let peopleProperties = ["MP:RegionInfo", "Iptc4xmpExt:PersonInImage"]

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
    private static func number(_ property: String, in item: String) -> Double? {
        value(property, in: item).flatMap { Double($0) }
    }

    /// `item` with `property` set to `value`, in the form it has.
    private static func setting(_ property: String, to value: String, in item: String) -> String {
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
