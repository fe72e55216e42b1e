/// The location properties of an XMP packet, found by reading it as XML:
/// each element and attribute named by its namespace URI (so
/// `xmlns:e="http://ns.adobe.com/exif/1.0/"` makes `e:GPSLatitude` the EXIF
/// GPS latitude, whatever the prefix), attribute values in single or double
/// quotes with any white space around `=`. Removing them cuts exactly those
/// bytes out of the packet and leaves every other byte as it was.
///
/// The schemas and what of each is location:
///
/// | schema (namespace URI) | removed |
/// | --- | --- |
/// | EXIF `http://ns.adobe.com/exif/1.0/`, CIPA `http://cipa.jp/exif/1.0/` | every `GPS…` property |
/// | DJI `http://www.dji.com/drone-dji/1.0/` | `Gps…`, latitude, longitude (`GpsLongtitude` too), altitudes, `Rtk…`, `LRFTarget…` |
/// | Google `http://ns.google.com/…`, Apple `http://ns.apple.com/…` | names holding GPS, latitude, longitude, altitude or location |
/// | IPTC Core `http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/` | `Location`, `CountryCode` |
/// | IPTC Extension `http://iptc.org/std/Iptc4xmpExt/2008-02-29/` | `LocationCreated`, `LocationShown` |
/// | Photoshop `http://ns.adobe.com/photoshop/1.0/` | `City`, `State`, `Country` |
public enum XMPLocation {
    /// Whether the property `local` of the namespace `uri` tells where the
    /// photo was taken.
    public static func isLocation(uri: String, local: String) -> Bool {
        let lower = local.lowercased()
        let words = ["gps", "latitude", "longitude", "longtitude", "altitude"]
        switch uri {
        case "http://ns.adobe.com/exif/1.0/", "http://cipa.jp/exif/1.0/":
            return local.hasPrefix("GPS")
        case "http://www.dji.com/drone-dji/1.0/":
            return words.contains { lower.contains($0) } || lower.hasPrefix("rtk")
                || lower.hasPrefix("lrftarget")
        case "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/":
            return local == "Location" || local == "CountryCode"
        case "http://iptc.org/std/Iptc4xmpExt/2008-02-29/":
            return local == "LocationCreated" || local == "LocationShown"
        case "http://ns.adobe.com/photoshop/1.0/":
            return local == "City" || local == "State" || local == "Country"
        case _
        where uri.hasPrefix("http://ns.google.com/") || uri.hasPrefix("http://ns.apple.com/"):
            return (words + ["location"]).contains { lower.contains($0) }
        default:
            return false
        }
    }

    /// `text` without its location properties, and the names removed as
    /// the packet wrote them (`drone-dji:GpsLatitude`); `nil` when the
    /// packet is not well-formed enough to read as XML (the caller then
    /// drops it whole rather than guess).
    public static func removing(from text: String) -> (text: String, removed: [String])? {
        let bytes = Array(text.utf8)
        guard let found = XMLPropertyScan(bytes).properties() else { return nil }
        var cuts: [Range<Int>] = []
        var removed: [String] = []
        for property in found where isLocation(uri: property.uri, local: property.local) {
            // Inside a property already cut (a structure's fields).
            if let last = cuts.last, last.contains(property.range.lowerBound) { continue }
            cuts.append(property.range)
            removed.append(property.name)
        }
        guard !cuts.isEmpty else { return (text, []) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var at = 0
        for cut in cuts {
            out += bytes[at..<cut.lowerBound]
            at = cut.upperBound
        }
        out += bytes[at...]
        return (String(decoding: out, as: UTF8.self), removed)
    }
}

/// Reads XML far enough to name every element and attribute by namespace:
/// start, end and empty tags with their attributes, namespace declarations
/// and their scopes; comments, processing instructions, CDATA and a
/// DOCTYPE are stepped over. Text is not decoded (names never need it).
struct XMLPropertyScan {
    /// An element or attribute: its namespace, local name, name as written
    /// and the bytes it spans (an attribute with the white space before it).
    struct Property {
        var uri: String
        var local: String
        var name: String
        var range: Range<Int>
    }

    private let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private struct Open {
        var name: String
        var start: Int
        var scope: [String: String]
    }

    /// Every element and attribute in document order (an element at its
    /// start), or `nil` for a packet that is not well-formed: a tag not
    /// closed, an end tag that does not match, a prefix never declared.
    func properties() -> [Property]? {
        var scan = self
        return scan.run()
    }

    private mutating func run() -> [Property]? {
        var stack: [Open] = []
        var found: [Property] = []
        var pendingElements: [Int] = []  // indices in found of open elements
        let root: [String: String] = ["xml": "http://www.w3.org/XML/1998/namespace"]
        while at < bytes.count {
            guard bytes[at] == UInt8(ascii: "<") else {
                at += 1
                continue
            }
            let start = at
            if starts("<!--") {
                guard skip(past: "-->") else { return nil }
                continue
            }
            if starts("<![CDATA[") {
                guard skip(past: "]]>") else { return nil }
                continue
            }
            if starts("<?") {
                guard skip(past: "?>") else { return nil }
                continue
            }
            if starts("<!") {
                guard skip(past: ">") else { return nil }
                continue
            }
            if starts("</") {
                at += 2
                let name = readName()
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ">"), let open = stack.popLast(),
                    open.name == name, let index = pendingElements.popLast()
                else { return nil }
                at += 1
                found[index].range = open.start..<at
                continue
            }
            at += 1
            let name = readName()
            guard !name.isEmpty else { return nil }
            // The attributes, with the white space before each.
            var attributes: [(name: String, value: String, range: Range<Int>)] = []
            var empty = false
            while true {
                let before = at
                skipSpace()
                guard at < bytes.count else { return nil }
                if bytes[at] == UInt8(ascii: ">") {
                    at += 1
                    break
                }
                if starts("/>") {
                    at += 2
                    empty = true
                    break
                }
                guard at > before else { return nil }  // attributes need space between
                let attribute = readName()
                guard !attribute.isEmpty else { return nil }
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "=") else { return nil }
                at += 1
                skipSpace()
                guard at < bytes.count,
                    bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'")
                else { return nil }
                let quote = bytes[at]
                at += 1
                let valueStart = at
                while at < bytes.count, bytes[at] != quote { at += 1 }
                guard at < bytes.count else { return nil }
                let value = String(decoding: bytes[valueStart..<at], as: UTF8.self)
                at += 1
                attributes.append((attribute, value, before..<at))
            }
            var scope = stack.last?.scope ?? root
            for attribute in attributes {
                if attribute.name == "xmlns" {
                    scope[""] = attribute.value
                } else if attribute.name.hasPrefix("xmlns:") {
                    scope[String(attribute.name.dropFirst(6))] = attribute.value
                }
            }
            guard let (uri, local) = Self.resolve(name, scope, element: true) else { return nil }
            let element = found.count
            found.append(Property(uri: uri, local: local, name: name, range: start..<at))
            for attribute in attributes
            where attribute.name != "xmlns" && !attribute.name.hasPrefix("xmlns:") {
                guard let (uri, local) = Self.resolve(attribute.name, scope, element: false) else {
                    return nil
                }
                found.append(
                    Property(uri: uri, local: local, name: attribute.name, range: attribute.range))
            }
            if !empty {
                pendingElements.append(element)
                stack.append(Open(name: name, start: start, scope: scope))
            }
        }
        return stack.isEmpty ? found : nil
    }

    /// A name's namespace and local part; an unprefixed attribute has none.
    private static func resolve(_ name: String, _ scope: [String: String], element: Bool) -> (
        String, String
    )? {
        if let colon = name.firstIndex(of: ":") {
            guard let uri = scope[String(name[..<colon])] else { return nil }
            return (uri, String(name[name.index(after: colon)...]))
        }
        return (element ? scope[""] ?? "" : "", name)
    }

    private func starts(_ text: String) -> Bool {
        let pattern = Array(text.utf8)
        return at + pattern.count <= bytes.count
            && bytes[at..<at + pattern.count].elementsEqual(pattern)
    }

    private mutating func skip(past text: String) -> Bool {
        let pattern = Array(text.utf8)
        while at + pattern.count <= bytes.count {
            if bytes[at..<at + pattern.count].elementsEqual(pattern) {
                at += pattern.count
                return true
            }
            at += 1
        }
        return false
    }

    private mutating func skipSpace() {
        while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    /// A name: everything up to white space, `=`, `>`, `/` or a quote.
    private mutating func readName() -> String {
        let start = at
        while at < bytes.count,
            ![0x20, 0x09, 0x0A, 0x0D, 0x3D, 0x3E, 0x2F, 0x22, 0x27, 0x3C].contains(bytes[at])
        {
            at += 1
        }
        return String(decoding: bytes[start..<at], as: UTF8.self)
    }
}
