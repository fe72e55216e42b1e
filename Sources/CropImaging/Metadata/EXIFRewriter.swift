import CropGeometry
import CropRecords

/// Rewrites an EXIF (TIFF) structure for a crop: what stays true is kept,
/// what shows the uncropped photo is removed.
///
/// Read: IFD0, the Exif IFD, the Interoperability IFD and the GPS IFD, each
/// entry's value copied out wherever it lies. Written anew, in the same byte
/// order, with fresh offsets:
/// - IFD1 (the thumbnail of the whole photo) is never written, nor the
///   strip and JPEG-interchange tags that point at image data, nor SubIFDs;
/// - the MakerNote is dropped unless kept (it may hold a preview, and its
///   own offsets may not survive the move), but Apple's, which holds no
///   preview, counts its offsets from its own start and carries the HDR
///   headroom a renderer needs for the gain map;
/// - PixelXDimension, PixelYDimension (and ImageWidth, ImageLength where
///   present) are set to the crop's size; the orientation is kept or set;
/// - SubjectArea and SubjectLocation, places in the stored pixels, are
///   mapped into the crop by the policy's ``CropPlaces`` or removed;
/// - the GPS IFD is dropped when location is stripped.
///
/// Anything malformed (an offset outside the segment, an IFD visited twice,
/// an unknown type) drops that entry or, at the top, the whole structure:
/// nothing is copied that could not be read.
struct EXIFRewriter {
    /// What the rewrite did, each change a field and a phrase, for the
    /// report.
    private(set) var changes: [MetadataChange] = []

    /// One entry: its tag, type and the bytes of its value.
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: Int
        var value: [UInt8]
    }

    private let tiff: [UInt8]
    private let little: Bool

    /// Whether a MakerNote's bytes are Apple's ("Apple iOS\0", then a
    /// version and its own TIFF byte order and IFD).
    static func isApplesMakerNote(_ value: [UInt8]) -> Bool {
        value.count > 16 && value.starts(with: Array("Apple iOS\0".utf8))
    }

    /// A rewriter of the TIFF structure `tiff` (an APP1 body after
    /// "Exif\0\0"), or `nil` when it has no valid header.
    init?(tiff: [UInt8]) {
        guard tiff.count >= 8 else { return nil }
        if tiff[0] == 0x49, tiff[1] == 0x49 {
            little = true
        } else if tiff[0] == 0x4D, tiff[1] == 0x4D {
            little = false
        } else {
            return nil
        }
        self.tiff = tiff
        guard u16(2) == 42 else { return nil }
    }

    private func u16(_ at: Int) -> UInt16? {
        guard at >= 0, at + 2 <= tiff.count else { return nil }
        let a = UInt16(tiff[at])
        let b = UInt16(tiff[at + 1])
        return little ? a | b << 8 : a << 8 | b
    }

    private func u32(_ at: Int) -> Int? {
        guard let a = u16(at), let b = u16(at + 2) else { return nil }
        return little ? Int(a) | Int(b) << 16 : Int(a) << 16 | Int(b)
    }

    /// Bytes a value of `type` takes per count, or `nil` for an unknown type.
    static func size(of type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    /// The entries of the IFD at `offset`; `nil` when it cannot be read.
    private func entries(at offset: Int, visited: inout Set<Int>) -> [Entry]? {
        guard offset >= 8, !visited.contains(offset), let count = u16(offset), count <= 1000 else {
            return nil
        }
        visited.insert(offset)
        var found: [Entry] = []
        for index in 0..<Int(count) {
            let at = offset + 2 + 12 * index
            guard let tag = u16(at), let type = u16(at + 2), let count = u32(at + 4) else {
                return nil
            }
            guard let unit = Self.size(of: type), count >= 0, count <= tiff.count else { continue }
            let length = unit * count
            let start: Int
            if length <= 4 {
                start = at + 8
            } else {
                guard let pointer = u32(at + 8) else { continue }
                start = pointer
            }
            guard start >= 0, start + length <= tiff.count else { continue }
            found.append(
                Entry(
                    tag: tag, type: type, count: count, value: Array(tiff[start..<start + length]))
            )
        }
        return found
    }

    /// The IFD offset an entry's LONG (or IFD) value names.
    private func pointer(_ entry: Entry) -> Int? {
        guard entry.type == 4 || entry.type == 13, entry.count == 1, entry.value.count == 4 else {
            return nil
        }
        let v = entry.value.map(Int.init)
        return little
            ? v[0] | v[1] << 8 | v[2] << 16 | v[3] << 24
            : v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3]
    }

    private func encode16(_ value: UInt16) -> [UInt8] {
        little
            ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)]
    }

    private func encode32(_ value: Int) -> [UInt8] {
        let v = UInt32(truncatingIfNeeded: value)
        let bytes = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        return little ? bytes.reversed() : bytes
    }

    /// A SHORT or LONG entry of `value`, keeping `type` where it fits.
    private func dimension(_ tag: UInt16, _ value: Int, type: UInt16) -> Entry {
        if type == 3, value <= 0xFFFF {
            return Entry(tag: tag, type: 3, count: 1, value: encode16(UInt16(value)))
        }
        return Entry(tag: tag, type: 4, count: 1, value: encode32(value))
    }

    /// The rewritten TIFF structure, or `nil` when it cannot be read (the
    /// caller then drops the EXIF).
    ///
    /// - Parameters:
    ///   - size: The output's pixel size, as its pixels are stored.
    ///   - orientation: The orientation to write; `nil` keeps the source's.
    ///   - policy: What to strip and keep.
    mutating func rewrite(
        size: PixelSize<StoredPixels>, orientation: EXIFOrientation?, policy: MetadataPolicy
    ) -> [UInt8]? {
        var visited: Set<Int> = []
        guard let first = u32(4), var ifd0 = entries(at: first, visited: &visited) else {
            return nil
        }
        if let next = u32(first + 2 + 12 * (Int(u16(first) ?? 0))), next != 0 {
            changes.append(.init("IFD1", .removed, summary: "the thumbnail (IFD1) removed"))
        }
        var exif: [Entry]?
        var gps: [Entry]?
        var interop: [Entry]?
        let imageTags: Set<UInt16> = [0x0111, 0x0117, 0x0201, 0x0202, 0x014A, 0x02BC]
        var kept0: [Entry] = []
        for entry in ifd0 {
            switch entry.tag {
            case 0x8769:
                exif = pointer(entry).flatMap { entries(at: $0, visited: &visited) }
            case 0x8825:
                if policy.stripLocation {
                    changes.append(
                        .init("GPS", .removed, summary: "GPS removed (--strip location)"))
                } else {
                    gps = pointer(entry).flatMap { entries(at: $0, visited: &visited) }
                }
            case let tag where imageTags.contains(tag):
                let hex = "0x" + String(tag, radix: 16, uppercase: true)
                changes.append(
                    .init(hex, .removed, summary: "tag \(hex) removed (it points at image data)"))
            case 0x0100:
                kept0.append(dimension(0x0100, size.width, type: entry.type))
            case 0x0101:
                kept0.append(dimension(0x0101, size.height, type: entry.type))
            case 0x0112:
                if let orientation {
                    kept0.append(
                        Entry(
                            tag: 0x0112, type: 3, count: 1,
                            value: encode16(UInt16(orientation.rawValue))))
                    changes.append(
                        .init(
                            "Orientation", .set, values: [orientation.rawValue],
                            summary: "orientation set to \(orientation.rawValue)"))
                } else {
                    kept0.append(entry)
                }
            default:
                kept0.append(entry)
            }
        }
        ifd0 = kept0
        if var exifEntries = exif {
            var kept: [Entry] = []
            for entry in exifEntries {
                switch entry.tag {
                case 0x927C where !policy.keepMakerNote:
                    // Apple's holds no preview and its offsets count from its
                    // own start, so it moves whole; a renderer reads the HDR
                    // headroom (its tags 33 and 48, global to the photo)
                    // from it to show the gain map.
                    if Self.isApplesMakerNote(entry.value) {
                        kept.append(entry)
                        changes.append(
                            .init(
                                "MakerNote", .kept,
                                summary:
                                    "Apple's MakerNote kept (it holds no preview; its HDR headroom, tags 33 and 48, is the whole photo's and stays true)"
                            ))
                    } else {
                        changes.append(
                            .init(
                                "MakerNote", .removed,
                                summary:
                                    "the MakerNote removed (it may hold a preview of the whole photo)"
                            ))
                    }
                case 0xA005:
                    interop = pointer(entry).flatMap { entries(at: $0, visited: &visited) }
                case 0xA002:
                    kept.append(dimension(0xA002, size.width, type: entry.type))
                    changes.append(
                        .init(
                            "PixelXDimension", .set, values: [size.width],
                            summary: "PixelXDimension set to \(size.width)"))
                case 0xA003:
                    kept.append(dimension(0xA003, size.height, type: entry.type))
                    changes.append(
                        .init(
                            "PixelYDimension", .set, values: [size.height],
                            summary: "PixelYDimension set to \(size.height)"))
                case 0x9214, 0xA214:
                    if let mapped = mappedSubject(
                        entry, places: policy.places, keepsStoredGrid: orientation == nil)
                    {
                        kept.append(mapped)
                    }
                default:
                    kept.append(entry)
                }
            }
            exifEntries = kept
            exif = exifEntries
        }
        // No value in any IFD carried holds an image (a MakerNote or a
        // private tag holding the whole photo), nor a profile that is none.
        ifd0 = withoutImages(ifd0, in: "IFD0", keepingMakerNote: policy.keepMakerNote)
        exif = exif.map {
            withoutImages($0, in: "the Exif IFD", keepingMakerNote: policy.keepMakerNote)
        }
        gps = gps.map { withoutImages($0, in: "the GPS IFD", keepingMakerNote: false) }
        interop = interop.map {
            withoutImages($0, in: "the Interoperability IFD", keepingMakerNote: false)
        }
        // Layout: header, IFD0 and its values, then each sub-IFD and its
        // values; every offset even.
        var out: [UInt8] = little ? [0x49, 0x49] : [0x4D, 0x4D]
        out += encode16(42) + encode32(8)
        func write(_ entries: [Entry], links: [(UInt16, [Entry]?)]) -> [Int: Int] {
            // Returns where each link's entry value was written, to patch.
            let sorted =
                (entries
                + links.compactMap { link in
                    link.1 == nil
                        ? nil : Entry(tag: link.0, type: 4, count: 1, value: [0, 0, 0, 0])
                }).sorted { $0.tag < $1.tag }
            let start = out.count
            var dataAt = start + 2 + 12 * sorted.count + 4
            var data: [UInt8] = []
            var patches: [Int: Int] = [:]
            out += encode16(UInt16(sorted.count))
            for entry in sorted {
                out += encode16(entry.tag) + encode16(entry.type) + encode32(entry.count)
                if links.contains(where: { $0.0 == entry.tag }) {
                    patches[Int(entry.tag)] = out.count
                    out += [0, 0, 0, 0]
                } else if entry.value.count <= 4 {
                    out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
                } else {
                    out += encode32(dataAt + data.count)
                    data += entry.value
                    if data.count % 2 == 1 { data.append(0) }
                }
            }
            out += encode32(0)  // no next IFD: the thumbnail's IFD1 is gone
            dataAt = out.count
            out += data
            return patches
        }
        func patch(_ at: Int, to value: Int) {
            let bytes = encode32(value)
            for i in 0..<4 { out[at + i] = bytes[i] }
        }
        let top = write(ifd0, links: [(0x8769, exif), (0x8825, gps)])
        if let exif {
            if let at = top[0x8769] { patch(at, to: out.count) }
            let inner = write(exif, links: [(0xA005, interop)])
            if let interop, let at = inner[0xA005] {
                patch(at, to: out.count)
                _ = write(interop, links: [])
            }
        }
        if let gps, let at = top[0x8825] {
            patch(at, to: out.count)
            _ = write(gps, links: [])
        }
        return out
    }

    /// Names of the tags a hostile file hides an image under, for reports.
    static let tagNames: [UInt16: String] = [
        0x927C: "MakerNote", 0x9286: "UserComment", 0xC4A5: "PrintIM", 0x8773: "InterColorProfile",
        0x02BC: "ApplicationNotes", 0x83BB: "IPTC-NAA", 0x8649: "PhotoshopSettings",
        0xEA1C: "Padding", 0x001B: "GPSProcessingMethod",
    ]

    /// How a report names `tag`: "tag 0x927C (MakerNote)".
    static func name(_ tag: UInt16) -> String {
        let hex = String(tag, radix: 16, uppercase: true)
        return "tag 0x\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex)"
            + (tagNames[tag].map { " (\($0))" } ?? "")
    }

    /// What image `value` holds (``LeakCheck/embeddedImage(_:)``'s
    /// signatures, and a TIFF header), or `nil`.
    static func embeddedImage(_ value: [UInt8]) -> String? {
        guard value.count > 8 else { return nil }
        return LeakCheck.embeddedImage(value) ?? LeakCheck.embeddedTIFF(value)
    }

    /// `entries` (of the IFD called `ifd`) without the values a crop must
    /// not carry, each named in ``changes``: one holding an embedded image
    /// (but a MakerNote kept on purpose, `keepingMakerNote`), an
    /// InterColorProfile that is not an ICC profile, and an IFD pointer of
    /// a type the rewrite does not follow (its offset would point at
    /// nothing, or at something else, in the new structure).
    private mutating func withoutImages(
        _ entries: [Entry], in ifd: String, keepingMakerNote: Bool
    ) -> [Entry] {
        entries.filter { entry in
            if entry.type == 13 {
                changes.append(
                    .init(
                        Self.name(entry.tag), .removed,
                        summary:
                            "\(Self.name(entry.tag)) in \(ifd) removed: it points at an IFD a crop does not carry"
                    ))
                return false
            }
            if entry.tag == 0x927C, keepingMakerNote { return true }
            if let image = Self.embeddedImage(entry.value) {
                changes.append(
                    .init(
                        Self.name(entry.tag), .removed,
                        summary: "\(Self.name(entry.tag)) in \(ifd) removed: it holds \(image)"))
                return false
            }
            if entry.tag == 0x8773, let problem = ICCProfile.problem(in: entry.value) {
                changes.append(
                    .init(
                        Self.name(entry.tag), .removed,
                        summary: "\(Self.name(entry.tag)) in \(ifd) removed: it holds \(problem)"))
                return false
            }
            return true
        }
    }

    /// The whole numbers of a SHORT or LONG entry; `nil` for another type.
    private func numbers(_ entry: Entry) -> [Int]? {
        switch entry.type {
        case 3:
            return (0..<entry.count).map { n in
                let (a, b) = (Int(entry.value[2 * n]), Int(entry.value[2 * n + 1]))
                return little ? a | b << 8 : a << 8 | b
            }
        case 4:
            return (0..<entry.count).map { n in
                let v = (0..<4).map { Int(entry.value[4 * n + $0]) }
                return little
                    ? v[0] | v[1] << 8 | v[2] << 16 | v[3] << 24
                    : v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3]
            }
        default:
            return nil
        }
    }

    /// `SubjectArea` (0x9214: a point, a circle by centre and diameter, or
    /// a rectangle by centre, width and height) or `SubjectLocation`
    /// (0xA214: a point), stored pixel indexes (index `i` names the pixel
    /// whose centre is `i + ½`), mapped into the output by `places`
    /// (DESIGN.md, "Coordinates in metadata"): clipped to the crop (a
    /// circle the crop cuts becomes the rectangle round its part inside, a
    /// turned rectangle its bounding box), each written value the nearest
    /// whole number; `nil`, and a line saying so, when it is outside the
    /// crop, cannot be read, or there is no crop to map it by.
    private mutating func mappedSubject(
        _ entry: Entry, places: CropPlaces?, keepsStoredGrid: Bool
    ) -> Entry? {
        let name = entry.tag == 0x9214 ? "SubjectArea" : "SubjectLocation"
        let counts = entry.tag == 0x9214 ? 2...4 : 2...2
        guard let v = numbers(entry), counts.contains(v.count) else {
            changes.append(
                .init(
                    name, .removed,
                    summary:
                        "\(name) removed: it is not \(entry.tag == 0x9214 ? "2 to 4" : "2") whole numbers, so it cannot be mapped"
                ))
            return nil
        }
        let given = v.map(String.init).joined(separator: ",")
        guard let places else {
            changes.append(
                .init(name, .removed, summary: "\(name) \(given) removed: no crop to map it by"))
            return nil
        }
        let centre = Point<StoredPixels>(x: Double(v[0]) + 0.5, y: Double(v[1]) + 0.5)
        let place: Place<StoredPixels> =
            switch v.count {
            case 2: .point(centre)
            case 3: .circle(center: centre, radius: Double(v[2]) / 2)
            default:
                .rect(
                    Rect(
                        x: centre.x - Double(v[2]) / 2, y: centre.y - Double(v[3]) / 2,
                        width: Double(v[2]), height: Double(v[3])))
            }
        let mapped = places.map(stored: place, keepsStoredGrid: keepsStoredGrid)
        guard let out = mapped.place, let box = out.boundingBox else {
            changes.append(
                .init(name, .removed, summary: "\(name) \(given) removed: it lies outside the crop")
            )
            return nil
        }
        let size = places.outputSize(keepsStoredGrid: keepsStoredGrid)
        // The pixel whose centre is nearest, inside the output.
        func index(_ c: Double, _ side: Int) -> Int {
            min(max(Int((c - 0.5).rounded()), 0), max(side - 1, 0))
        }
        func length(_ l: Double) -> Int { max(1, Int(l.rounded())) }
        let values: [Int]
        let shape: String
        switch out {
        case .point(let p):
            values = [index(p.x, size.width), index(p.y, size.height)]
            shape = ""
        case .circle(let c, let radius):
            values = [index(c.x, size.width), index(c.y, size.height), length(2 * radius)]
            shape = " (circle, diameter \(values[2]))"
        case .rect, .polygon:
            values = [
                index(box.x + box.width / 2, size.width),
                index(box.y + box.height / 2, size.height),
                length(box.width), length(box.height),
            ]
            shape =
                " (rectangle \(values[2])x\(values[3])\(v.count == 3 ? ", the part of its circle inside" : ""))"
        }
        changes.append(
            .init(
                name, .mapped, values: values,
                summary: "\(name) mapped to \(values[0]),\(values[1])\(shape)"
                    + (mapped.clipped ? ", clipped to the crop" : "")))
        guard values.allSatisfy({ $0 <= 0xFFFF }) else {
            return Entry(
                tag: entry.tag, type: 4, count: values.count,
                value: values.flatMap { encode32($0) })
        }
        return Entry(
            tag: entry.tag, type: 3, count: values.count,
            value: values.flatMap { encode16(UInt16($0)) })
    }

    /// What in this EXIF shows more than a crop of `size` should: a
    /// thumbnail IFD (IFD1), tags that point at image data, dimension tags
    /// that disagree with `size`. Phrases for a leak report.
    /// The finding of EXIF that cannot be read.
    static let unreadable = LeakFinding.Found(.unreadable, "EXIF that cannot be read")

    func leaks(size: PixelSize<StoredPixels>) -> [LeakFinding.Found] {
        var visited: Set<Int> = []
        guard let first = u32(4), let ifd0 = entries(at: first, visited: &visited) else {
            return [Self.unreadable]
        }
        var found: [LeakFinding.Found] = []
        if let count = u16(first), let next = u32(first + 2 + 12 * Int(count)), next != 0 {
            found.append(
                .init(
                    .embeddedImage, "a second IFD (IFD1, where the whole photo's thumbnail lives)"))
        }
        func value(_ entry: Entry) -> Int? {
            if entry.type == 3, entry.value.count == 2 {
                let v = entry.value.map(Int.init)
                return little ? v[0] | v[1] << 8 : v[0] << 8 | v[1]
            }
            return pointer(entry)
        }
        // A value holding an image, in any IFD a crop carries (walked with
        // a visited set of its own: the dimension checks below walk the
        // Exif IFD again).
        var walked = visited
        func images(_ entries: [Entry], _ ifd: String) {
            for entry in entries {
                if let image = Self.embeddedImage(entry.value) {
                    found.append(
                        .init(.embeddedImage, "\(Self.name(entry.tag)) in \(ifd) holds \(image)"))
                }
            }
        }
        images(ifd0, "IFD0")
        for (tag, ifd) in [(UInt16(0x8769), "the Exif IFD"), (0x8825, "the GPS IFD")] {
            let inner =
                ifd0.first(where: { $0.tag == tag }).flatMap(pointer).flatMap {
                    entries(at: $0, visited: &walked)
                } ?? []
            images(inner, ifd)
            if let interop = inner.first(where: { $0.tag == 0xA005 }).flatMap(pointer)
                .flatMap({ entries(at: $0, visited: &walked) })
            {
                images(interop, "the Interoperability IFD")
            }
        }
        // Else anywhere in the block (an IFD reached by a pointer nothing
        // knows, bytes between values), past the TIFF header; a thumbnail
        // IFD's image is said above.
        if found.isEmpty, let image = Self.embeddedImage(Array(tiff.dropFirst(8))) {
            found.append(
                .init(.embeddedImage, "\(image) in the EXIF block, outside the values of its IFDs"))
        }
        for entry in ifd0 {
            switch entry.tag {
            case 0x0111, 0x0201, 0x014A:
                found.append(
                    .init(
                        .embeddedImage,
                        "tag 0x\(String(entry.tag, radix: 16, uppercase: true)), which points at image data"
                    ))
            case 0x8769:
                for inner in pointer(entry).flatMap({ entries(at: $0, visited: &visited) }) ?? [] {
                    if inner.tag == 0xA002, let width = value(inner), width != size.width {
                        found.append(
                            LeakCheck.staleDimension("PixelXDimension", width, size.width))
                    }
                    if inner.tag == 0xA003, let height = value(inner), height != size.height {
                        found.append(
                            LeakCheck.staleDimension("PixelYDimension", height, size.height))
                    }
                    // A subject's centre outside the image is stale.
                    if inner.tag == 0x9214 || inner.tag == 0xA214, let v = numbers(inner),
                        v.count >= 2, v[0] >= size.width || v[1] >= size.height
                    {
                        found.append(
                            .init(
                                .staleCoordinates,
                                "\(inner.tag == 0x9214 ? "SubjectArea" : "SubjectLocation") \(v.map(String.init).joined(separator: ",")), its centre outside the \(size.width)x\(size.height) image",
                                measured: [.init("values", .array(v.map { .number($0) }))]))
                    }
                }
            default:
                break
            }
        }
        return found
    }

    /// The places this EXIF names (`SubjectArea`, `SubjectLocation`), each
    /// with its shape and space in words, for `info`: "SubjectArea
    /// 2003,1506: a rectangle 2209x1327 by its centre (stored pixels)".
    func places() -> [ImageFileSummary.Detail.Entry] {
        var visited: Set<Int> = []
        guard let first = u32(4), let ifd0 = entries(at: first, visited: &visited),
            let exif = ifd0.first(where: { $0.tag == 0x8769 }).flatMap(pointer)
                .flatMap({ entries(at: $0, visited: &visited) })
        else { return [] }
        var found: [ImageFileSummary.Detail.Entry] = []
        for entry in exif where entry.tag == 0x9214 || entry.tag == 0xA214 {
            let name = entry.tag == 0x9214 ? "SubjectArea" : "SubjectLocation"
            guard let v = numbers(entry), (2...4).contains(v.count) else {
                found.append(
                    MetadataPlace.entry(
                        "EXIF \(name): not 2 to 4 whole numbers (removed by a crop)",
                        field: "EXIF \(name)", shape: nil, values: [], space: "storedPixels",
                        crop: "removed"))
                continue
            }
            let (shape, words) =
                switch v.count {
                case 2: ("point", "a point")
                case 3: ("circle", "a circle of diameter \(v[2]) by its centre")
                default: ("rectangle", "a rectangle \(v[2])x\(v[3]) by its centre")
                }
            found.append(
                MetadataPlace.entry(
                    "EXIF \(name) \(v[0]),\(v[1]): \(words) (stored pixels; mapped by a crop)",
                    field: "EXIF \(name)", shape: shape, values: v.map(Double.init),
                    space: "storedPixels", crop: "mapped"))
        }
        return found
    }

    /// Every tag of IFD0, the Exif IFD and the GPS IFD, with the IFD it is
    /// in ("0", "exif", "gps"), and the orientation: what tests look at.
    func tags() -> (tags: Set<String>, orientation: Int?) {
        var visited: Set<Int> = []
        guard let first = u32(4), let ifd0 = entries(at: first, visited: &visited) else {
            return ([], nil)
        }
        var found: Set<String> = []
        var orientation: Int?
        for entry in ifd0 {
            found.insert("0:\(entry.tag)")
            if entry.tag == 0x0112, entry.value.count == 2 {
                let v = entry.value.map(Int.init)
                orientation = little ? v[0] | v[1] << 8 : v[0] << 8 | v[1]
            }
            for (pointerTag, name) in [(UInt16(0x8769), "exif"), (0x8825, "gps")]
            where entry.tag == pointerTag {
                for inner in pointer(entry).flatMap({ entries(at: $0, visited: &visited) }) ?? [] {
                    found.insert("\(name):\(inner.tag)")
                }
            }
        }
        return (found, orientation)
    }
}
