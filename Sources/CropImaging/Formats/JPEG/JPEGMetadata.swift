import CropGeometry
import Foundation

/// The metadata segments a JPEG crop writes, made from the source's.
struct JPEGMetadata {
    /// Whole segments (FF, marker, length, body) to write after SOI, in the
    /// source's order.
    var segments: [UInt8] = []
    /// What became of each source segment.
    var entries: [MetadataEntry] = []
    /// Warnings for the report.
    var warnings: [String] = []
    /// The cleaned EXIF (a TIFF structure), when kept: a PNG's `eXIf`.
    var exif: [UInt8]?
    /// The cleaned XMP packet, when kept: a PNG's `iTXt`.
    var xmp: String?

    static let exifSignature = Array("Exif\0\0".utf8)

    /// A whole segment: FF, `marker`, the length, `body` (at most 65,533
    /// bytes).
    static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
        precondition(body.count <= 65_533, "a JPEG segment holds at most 65,533 bytes")
        return [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    }

    /// ``segments`` with each XMP segment's packet passed through `change`.
    func changingXMP(_ change: (String) -> String) -> [UInt8] {
        rewritingSegments { marker, body in
            guard marker == 0xE1, body.starts(with: Self.xmpSignature) else { return body }
            let text = String(decoding: body[Self.xmpSignature.count...], as: UTF8.self)
            return Self.xmpSignature + Array(change(text).utf8)
        }
    }

    /// ``segments`` with each segment's body passed through `change`
    /// (given its marker): the body it returns is written, `nil` drops the
    /// segment.
    func rewritingSegments(_ change: (UInt8, [UInt8]) -> [UInt8]?) -> [UInt8] {
        var out: [UInt8] = []
        var at = 0
        while at + 4 <= segments.count {
            let length = Int(segments[at + 2]) << 8 | Int(segments[at + 3])
            let end = min(at + 2 + length, segments.count)
            if let body = change(segments[at + 1], Array(segments[at + 4..<end])) {
                out += Self.segment(segments[at + 1], body)
            }
            at = end
        }
        return out
    }

    /// The metadata for pixels decoded from `info` and encoded again as
    /// YCbCr (or gray): the Adobe segment's colour transform made to say
    /// what the new scan holds (an RGB source's transform 0 or a YCCK
    /// one's 2 kept over YCbCr data shows wrong colours in every decoder),
    /// and a CMYK source's colour profile dropped (the pixels were
    /// converted to RGB, which a CMYK profile does not describe).
    func forReencodedPixels(of info: JPEGFileInfo) -> JPEGMetadata {
        let components = info.components == 1 ? 1 : 3
        var out = self
        out.segments = rewritingSegments { marker, body in
            if marker == 0xEE, body.starts(with: Array("Adobe".utf8)), body.count >= 12 {
                var fixed = Array(body[0..<12])
                fixed[11] = components == 3 ? 1 : 0
                return fixed
            }
            if marker == 0xE2, info.components == 4,
                body.starts(with: Array("ICC_PROFILE\0".utf8))
            {
                return nil
            }
            return body
        }
        for (index, entry) in entries.enumerated() {
            if entry.segment.hasSuffix(" Adobe"), info.adobeTransform != (components == 3 ? 1 : 0) {
                out.entries[index] = MetadataEntry(
                    segment: entry.segment, action: .rewritten,
                    reason:
                        "its colour transform set to \(components == 3 ? "1 (YCbCr)" : "0 (gray)"): the pixels (\(info.colorSpace)) were encoded again as \(components == 3 ? "YCbCr" : "gray")",
                    kind: entry.kind)
            }
            if entry.segment.hasSuffix(" ICC_PROFILE"), info.components == 4 {
                out.entries[index] = MetadataEntry(
                    segment: entry.segment, action: .dropped,
                    reason:
                        "a \(info.colorSpace.uppercased()) profile: the pixels were converted to RGB, which it does not describe",
                    kind: entry.kind)
            }
        }
        if info.components == 4, info.iccProfile != nil {
            out.warnings.append(
                "the \(info.colorSpace.uppercased()) colour profile was dropped: the pixels were converted to RGB without it (colours are approximate)"
            )
        }
        return out
    }
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let extendedXMPSignature = Array("http://ns.adobe.com/xmp/extension/\0".utf8)

    /// The metadata of `info`'s segments, read from `input`, cleaned for a
    /// crop whose stored pixels are `size`.
    ///
    /// - Parameter orientation: The orientation the output's EXIF says;
    ///   `nil` keeps the source's (a crop of the stored pixels).
    ///   With `keepsGainMapItems`, the XMP's gain-map description (an Ultra
    ///   HDR photo's `hdrgm:` version and container directory) stays: the
    ///   gain map is cropped and kept with the crop.
    static func clean(
        _ info: JPEGFileInfo, input: ImageInput, size: PixelSize<StoredPixels>,
        orientation: EXIFOrientation?, policy: MetadataPolicy, keepsGainMapItems: Bool = false
    ) throws(ImagingError) -> JPEGMetadata {
        var result = JPEGMetadata()
        var sawExif = false
        // Whether the XMP names a Motion Photo: the bytes after the image
        // are then its video.
        var motionPhoto = false
        var extended: [String: [String]]?
        // Where the primary image ends (`nil` when it has no end), read
        // once, when first needed.
        var readEnd: Int??
        func primaryEnd() throws(ImagingError) -> Int? {
            if let end = readEnd { return end }
            let end = try info.endOfImage(in: input)
            readEnd = .some(end)
            return end
        }
        for segment in info.segments {
            let marker = segment.marker
            guard (0xE0...0xEF).contains(marker) || marker == 0xFE else { continue }
            let body = try input.read(
                at: segment.bodyOffset, count: segment.bodyLength, format: .jpeg)
            let name = segment.name
            let kind: MetadataKind =
                marker == 0xE1 && body.starts(with: exifSignature)
                ? .exif
                : marker == 0xE1 && body.starts(with: xmpSignature)
                    ? .xmp
                    : marker == 0xE2 && body.starts(with: Array("ICC_PROFILE\0".utf8))
                        ? .iccProfile : .other
            func keep(
                _ bytes: [UInt8], _ label: String, _ action: MetadataEntry.Action, _ why: String,
                changes: [MetadataChange] = []
            ) {
                // The leak rules hold for every kept segment: a comment, a
                // profile or resources holding a JPEG or PNG image may show
                // the whole photo, and are not carried.
                if let image = LeakCheck.embeddedImage(bytes) {
                    drop(label, "it holds \(image.dropFirst(3)), which may show the whole photo")
                    if marker == 0xE2 {
                        result.warnings.append(
                            "the colour profile held an embedded image and was dropped: colours may change"
                        )
                    }
                    return
                }
                result.segments += JPEGMetadata.segment(marker, bytes)
                var entry = MetadataEntry(segment: label, action: action, reason: why, kind: kind)
                entry.changes = changes
                result.entries.append(entry)
            }
            func drop(_ label: String, _ why: String) {
                result.entries.append(
                    MetadataEntry(segment: label, action: .dropped, reason: why, kind: kind))
            }
            switch marker {
            case 0xE0 where body.starts(with: Array("JFIF\0".utf8)) && body.count >= 14:
                if body.count > 14 || body[12] != 0 || body[13] != 0 {
                    var header = Array(body[0..<14])
                    header[12] = 0
                    header[13] = 0
                    keep(
                        header, "\(name) JFIF", .rewritten,
                        "its thumbnail of the whole photo removed")
                } else {
                    keep(body, "\(name) JFIF", .kept, "density and version")
                }
            case 0xE0 where body.starts(with: Array("JFXX\0".utf8)):
                drop("\(name) JFXX", "a thumbnail of the whole photo")
            case 0xE1 where body.starts(with: exifSignature):
                if policy.stripAll {
                    drop("\(name) EXIF", "--strip all")
                } else if sawExif {
                    drop("\(name) EXIF", "a second EXIF segment (the first one counts)")
                } else if var rewriter = EXIFRewriter(tiff: Array(body[6...])),
                    let tiff = rewriter.rewrite(
                        size: size, orientation: orientation, policy: policy)
                {
                    let changes = rewriter.changes
                    result.exif = tiff
                    keep(
                        exifSignature + tiff, "\(name) EXIF", changes.isEmpty ? .kept : .rewritten,
                        MetadataChange.reason(changes), changes: changes)
                    if policy.keepMakerNote {
                        result.warnings.append(
                            "the EXIF MakerNote is kept (--keep-makernote): it may hold a preview of the whole photo"
                        )
                    }
                } else {
                    drop("\(name) EXIF", "it could not be read, so it cannot be cleaned")
                    result.warnings.append("the EXIF segment could not be read; it was dropped")
                }
                sawExif = true
            case 0xE1 where body.starts(with: xmpSignature):
                if policy.stripAll {
                    drop("\(name) XMP", "--strip all")
                    continue
                }
                let text = String(decoding: body[xmpSignature.count...], as: UTF8.self)
                motionPhoto =
                    motionPhoto || text.contains("GCamera:MotionPhoto")
                    || text.contains("GCamera:MicroVideo")
                let (cleaned, changes, typed) = XMPCleaner.clean(
                    text, size: size, policy: policy, keepsGainMapItems: keepsGainMapItems,
                    keepsStoredGrid: orientation == nil)
                guard let cleaned else {
                    drop("\(name) XMP", changes.joined(separator: "; "))
                    continue
                }
                result.xmp = cleaned
                keep(
                    xmpSignature + Array(cleaned.utf8), "\(name) XMP",
                    changes.isEmpty ? .kept : .rewritten,
                    changes.isEmpty ? "descriptive metadata" : changes.joined(separator: "; "),
                    changes: typed)
            case 0xE1 where body.starts(with: extendedXMPSignature):
                if extended == nil { extended = try ExtendedXMP.properties(of: info, input: input) }
                let held = ExtendedXMP.guid(body).flatMap { extended?[$0] } ?? []
                drop(
                    "\(name) extended XMP",
                    held.isEmpty
                        ? "what it holds could not be read, so it cannot be cleaned"
                        : "\(ExtendedXMP.describe(held)), which a crop does not carry")
            case 0xE2 where body.starts(with: Array("ICC_PROFILE\0".utf8)):
                if let problem = info.profileProblem {
                    drop("\(name) ICC_PROFILE", problem)
                } else if info.iccProfile == nil {
                    drop("\(name) ICC_PROFILE", "not part of a whole ICC profile")
                } else {
                    keep(body, "\(name) ICC_PROFILE", .kept, "the colour profile")
                }
            case 0xE2 where body.starts(with: Array("MPF\0".utf8)):
                let lies =
                    try MPFIndex(body: body, bodyOffset: segment.bodyOffset)?.lies(
                        primaryEnd: primaryEnd() ?? input.byteCount, fileSize: input.byteCount)
                    ?? []
                drop(
                    "\(name) MPF",
                    "it indexes secondary images of the whole photo (HDR gain map, depth map, stereo pair)"
                        + (lies.isEmpty
                            ? ""
                            : "; \(lies.joined(separator: ", ")), and no such image is carried"))
            case 0xED where body.starts(with: Array("Photoshop 3.0\0".utf8)):
                if policy.stripAll {
                    drop("\(name) Photoshop", "--strip all")
                } else if let resources = PhotoshopResources.withoutThumbnails(body) {
                    keep(
                        resources.bytes, "\(name) Photoshop",
                        resources.removed > 0 ? .rewritten : .kept,
                        resources.removed > 0
                            ? "its thumbnail resources removed" : "IPTC and other resources")
                } else {
                    drop("\(name) Photoshop", "it could not be read, so it cannot be cleaned")
                }
            case 0xEE where body.starts(with: Array("Adobe".utf8)):
                keep(body, "\(name) Adobe", .kept, "the colour transform")
            case 0xFE:
                if policy.stripAll {
                    drop("COM", "--strip all")
                } else {
                    keep(body, "COM", .kept, "a comment")
                }
            case 0xEB where ContentCredentials.holdsManifest(body):
                drop(ContentCredentials.segment(name), ContentCredentials.reason)
            default:
                let signature = String(
                    decoding: body.prefix(while: { $0 != 0 && $0 >= 0x20 && $0 < 0x7F }).prefix(24),
                    as: UTF8.self)
                drop(
                    signature.isEmpty ? name : "\(name) \(signature)",
                    "not a kind CropKit can clean; it may hold an image of the whole photo")
            }
        }
        let trailing = try primaryEnd().map { input.byteCount - $0 } ?? 0
        if trailing > 0 {
            result.entries.append(
                MetadataEntry(
                    segment: "\(trailing) bytes after the image",
                    action: .dropped,
                    reason: motionPhoto
                        ? "the Motion Photo video: it shows the whole scene"
                        : "data after the end of the image (secondary images, editor leftovers)"))
        }
        return result
    }
}

/// XMP made true for a crop: its dimensions set, its previews removed.
enum XMPCleaner {
    /// Properties that carry images or point at images of the whole photo.
    static let previews =
        [
            "xmpGImg:image", "xap:Thumbnails", "xmp:Thumbnails", "GImage:Data", "GDepth:Data",
            "GDepth:Confidence", "Container:Directory", "GContainer:Directory",
            "xmpNote:HasExtendedXMP",
            "hdrgm:Version", "photoshop:History",
        ] + motionPhoto
    /// Adobe Camera Raw's crop (Lightroom's): its rectangle, angle and
    /// flag, normalized to the uncropped photo.
    static let adobeCrop = [
        "crs:HasCrop", "crs:CropTop", "crs:CropLeft", "crs:CropBottom", "crs:CropRight",
        "crs:CropAngle", "crs:CropConstrainToWarp", "crs:CropWidth", "crs:CropHeight",
        "crs:CropUnit", "crs:CropConstrainAspectRatio",
    ]

    /// Google's Motion Photo (and its older Micro Video) properties, which
    /// point at the video of the whole scene after the image: removed with
    /// it.
    static let motionPhoto = [
        "GCamera:MotionPhoto", "GCamera:MotionPhotoVersion",
        "GCamera:MotionPhotoPresentationTimestampUs", "GCamera:MicroVideo",
        "GCamera:MicroVideoVersion", "GCamera:MicroVideoOffset",
        "GCamera:MicroVideoPresentationTimestampUs",
    ]
    /// The properties that describe an Ultra HDR photo's gain map, kept when
    /// the gain map is cropped with the photo.
    static let gainMapItems: Set<String> = [
        "Container:Directory", "GContainer:Directory", "hdrgm:Version",
    ]

    /// `text` with the length of its container's GainMap item set to
    /// `length` (an Ultra HDR photo's XMP names the gain map's byte size).
    static func settingGainMapLength(_ text: String, to length: Int) -> String {
        var out = text
        for pattern in [
            "(Item:Semantic=\"GainMap\"[^>]*?Item:Length=\")[0-9]+(\")",
            "(Item:Length=\")[0-9]+(\"[^>]*?Item:Semantic=\"GainMap\")",
        ] {
            guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
            out = regex.stringByReplacingMatches(
                in: out, range: NSRange(out.startIndex..., in: out), withTemplate: "$1\(length)$2")
        }
        return out
    }

    /// Dimension properties, and which of the crop's sides each takes.
    static let dimensions = [
        ("exif:PixelXDimension", true), ("exif:PixelYDimension", false),
        ("tiff:ImageWidth", true), ("tiff:ImageLength", false),
    ]

    /// Removes `property` (as an element, empty or not, or an attribute)
    /// from `text`; whether it was there. A regular expression is built
    /// only for a property the text names (building ICU's first one costs
    /// milliseconds).
    static func removing(_ property: String, from text: inout String) -> Bool {
        guard mentions(text, property) else { return false }
        let name = NSRegularExpression.escapedPattern(for: property)
        var removed = false
        for pattern in [
            "<\(name)(\\s[^>]*)?/>", "<\(name)(\\s[^>]*)?>.*?</\(name)>",
            "\\s\(name)=\"[^\"]*\"", "\\s\(name)='[^']*'",
        ] {
            guard
                let regex = try? NSRegularExpression(
                    pattern: pattern, options: [.dotMatchesLineSeparators])
            else { continue }
            let range = NSRange(text.startIndex..., in: text)
            if regex.firstMatch(in: text, range: range) != nil {
                text = regex.stringByReplacingMatches(in: text, range: range, withTemplate: "")
                removed = true
            }
        }
        return removed
    }

    /// `text` with previews removed, dimensions set and, under the policy,
    /// every location property removed (``XMPLocation``); and what changed,
    /// in phrases (the report's reason joins them) and as fields (each
    /// region's and property's outcome, ``MetadataChange``).
    /// `nil` when the packet must be dropped whole (location asked removed
    /// from a packet that cannot be read as XML).
    static func clean(
        _ text: String, size: PixelSize<StoredPixels>, policy: MetadataPolicy,
        keepsGainMapItems: Bool = false, keepsStoredGrid: Bool = false
    ) -> (String?, [String], [MetadataChange]) {
        var out = text
        var changes: [String] = []
        var typed: [MetadataChange] = []
        // Places in the picture, mapped into the crop (``XMPRegions``).
        if XMPRegions.mentionsPlaces(out) {
            let (mapped, regionChanges, regions) = XMPRegions.map(
                out, places: policy.places, keepsStoredGrid: keepsStoredGrid,
                stripPeople: policy.stripPeople)
            out = mapped
            changes += regionChanges
            typed += regions
        }
        func remove(_ property: String) -> Bool { Self.removing(property, from: &out) }
        // A depth map's calibration, in the photo's stored pixels.
        if mentions(out, "depthData:IntrinsicMatrix") {
            let (moved, said) = DepthCalibration.map(out, places: policy.places)
            out = moved
            changes += said
        }
        // An Adobe camera-raw crop describes a crop of the uncropped photo:
        // kept, Lightroom would crop the crop again. Removed whole.
        if mentions(out, "crs:HasCrop=\"True\"") || mentions(out, "<crs:HasCrop>True<")
            || mentions(out, "crs:CropTop")
        {
            var removed: [String] = []
            for property in Self.adobeCrop where remove(property) { removed.append(property) }
            typed += removed.map {
                .init($0, .removed, summary: "\($0) removed (a crop of the uncropped photo)")
            }
            if !removed.isEmpty {
                changes.append(
                    "Adobe crs: crop settings removed (\(removed.joined(separator: ", "))): they describe a crop of the uncropped photo, which the new pixels replace"
                )
            }
        }
        // Under --strip people, the other places names of people live.
        if policy.stripPeople {
            for property in XMPRegions.peopleProperties where remove(property) {
                changes.append("\(property) removed (--strip people)")
                typed.append(
                    .init(property, .removed, summary: "\(property) removed (--strip people)"))
            }
        }
        for property in previews
        where !(keepsGainMapItems && gainMapItems.contains(property)) && remove(property) {
            changes.append("\(property) removed")
            typed.append(.init(property, .removed, summary: "\(property) removed"))
        }
        // An image in base64 under a name no list knows: the property
        // removed, or the packet when it cannot be named.
        var removals = 0
        while let (property, image) = base64Image(in: out) {
            guard let property, removals < 100, remove(property) else {
                return (
                    nil,
                    changes + [
                        "dropped whole: it holds \(image)\(property.map { " in \($0)" } ?? "") that cannot be removed by itself"
                    ], []
                )
            }
            removals += 1
            changes.append("\(property) removed: it holds \(image)")
            typed.append(
                .init(property, .removed, summary: "\(property) removed: it holds \(image)"))
        }
        if policy.stripLocation {
            // Read as XML, namespaces by URI: every location property of the
            // known schemas goes, whatever its prefix or quoting.
            guard let (stripped, removed) = XMPLocation.removing(from: out) else {
                return (
                    nil,
                    [
                        "dropped whole: it cannot be read as XML, so its location cannot be removed (--strip location)"
                    ], []
                )
            }
            if !removed.isEmpty {
                out = stripped
                typed += removed.map {
                    .init($0, .removed, summary: "\($0) removed (--strip location)")
                }
                changes.append(
                    "location removed (--strip location): \(removed.joined(separator: ", "))")
            }
        }
        for (property, isWidth) in dimensions where mentions(out, property) {
            let value = isWidth ? size.width : size.height
            let name = NSRegularExpression.escapedPattern(for: property)
            for (pattern, template) in [
                ("(\\s\(name)=\")[0-9]+(\")", "$1\(value)$2"),
                ("(<\(name)>)[0-9]+(</\(name)>)", "$1\(value)$2"),
            ] {
                guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
                let range = NSRange(out.startIndex..., in: out)
                guard regex.firstMatch(in: out, range: range) != nil else { continue }
                let replaced = regex.stringByReplacingMatches(
                    in: out, range: range, withTemplate: template)
                if replaced != out {
                    changes.append("\(property) set to \(value)")
                    typed.append(
                        .init(
                            property, .set, values: [value], summary: "\(property) set to \(value)")
                    )
                }
                out = replaced
            }
        }
        return (out, changes, typed)
    }

    /// The first bytes of an image in base64, as an XMP value holds one,
    /// and what it is.
    static let base64Images: [(start: String, image: String)] = [
        ("/9j/", "a base64 JPEG image"), ("iVBORw0KGgo", "a base64 PNG image"),
        ("UklGR", "a base64 RIFF (WebP) file"), ("AAAAGGZ0eXBoZWlj", "a base64 HEIF file"),
        ("AAAAHGZ0eXBhdmlm", "a base64 AVIF file"),
    ]

    /// The first image `text` holds in base64 in a value (the start of
    /// ``base64Images`` right after `>`, a quote, or white space after
    /// one), with the property that holds it when one can be named (the
    /// attribute, or the nearest enclosing element outside `rdf:`), and
    /// what it is.
    static func base64Image(in text: String) -> (property: String?, image: String)? {
        let bytes = Array(text.utf8)
        for (start, image) in base64Images {
            let needle = Array(start.utf8)
            var at = 0
            while at + needle.count <= bytes.count {
                guard bytes[at] == needle[0], bytes[at..<at + needle.count].elementsEqual(needle)
                else {
                    at += 1
                    continue
                }
                // What comes before the value, white space aside.
                var before = at - 1
                while before >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[before]) { before -= 1 }
                guard before >= 0, [UInt8(ascii: ">"), 0x22, 0x27].contains(bytes[before]) else {
                    at += 1
                    continue
                }
                return (property(before: before, in: bytes), image)
            }
        }
        return nil
    }

    /// The property whose value starts after `bytes[end]` (a quote ends an
    /// attribute's `name=`, `>` an element's start tag, whose `rdf:`
    /// wrappers are passed to the element outside them).
    private static func property(before end: Int, in bytes: [UInt8]) -> String? {
        func isName(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ".")
        }
        if bytes[end] != UInt8(ascii: ">") {
            // name="value: the name before the '='.
            var at = end - 1
            guard at >= 0, bytes[at] == UInt8(ascii: "=") else { return nil }
            let last = at
            at -= 1
            while at >= 0, isName(bytes[at]) { at -= 1 }
            let name = String(decoding: bytes[(at + 1)..<last], as: UTF8.self)
            return name.contains(":") ? name : nil
        }
        // The start tags before `end`, nearest first; an end tag closes one.
        var at = end
        var depth = 0
        while at > 0 {
            at -= 1
            guard bytes[at] == UInt8(ascii: "<"), at + 1 < bytes.count else { continue }
            if bytes[at + 1] == UInt8(ascii: "/") {
                depth += 1
                continue
            }
            if bytes[at + 1] == UInt8(ascii: "?") || bytes[at + 1] == UInt8(ascii: "!") { continue }
            var stop = at + 1
            while stop < bytes.count, isName(bytes[stop]) { stop += 1 }
            if stop > 0, bytes[stop - 1] == UInt8(ascii: "/") { continue }
            if depth > 0 {
                depth -= 1
                continue
            }
            let name = String(decoding: bytes[(at + 1)..<stop], as: UTF8.self)
            if name.hasPrefix("rdf:") { continue }
            return name.contains(":") ? name : nil
        }
        return nil
    }

    /// What in `text` shows an image of the whole photo: each preview
    /// property present (but those in `exempt`: a gain map's description
    /// kept with its cut map), and a base64 image under any other name.
    /// Phrases for a leak report, the same in every format.
    static func imageLeaks(in text: String, exempt: Set<String> = []) -> [String] {
        var found: [String] = []
        for property in previews
        where !exempt.contains(property)
            && (mentions(text, "\(property)=") || mentions(text, "<\(property)"))
        {
            found.append("\(property), a preview or an image item")
        }
        if found.isEmpty, let (property, image) = base64Image(in: text) {
            found.append("\(property ?? "a value") holds \(image)")
        }
        return found
    }

    /// Whether `text` holds `word`: a byte search, without Foundation's
    /// locale-aware one.
    static func mentions(_ text: String, _ word: String) -> Bool {
        let needle = Array(word.utf8)
        guard let first = needle.first else { return true }
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count >= needle.count else { return false }
            for start in 0...(bytes.count - needle.count)
            where bytes[start] == first
                && needle.indices.allSatisfy({ bytes[start + $0] == needle[$0] })
            {
                return true
            }
            return false
        }
    }
}

/// Photoshop image resources (APP13) without the thumbnails they may hold.
enum PhotoshopResources {
    /// The segment body with resources 0x0409 and 0x040C (thumbnails)
    /// removed, and how many were; `nil` when it cannot be read.
    static func withoutThumbnails(_ body: [UInt8]) -> (bytes: [UInt8], removed: Int)? {
        let header = Array("Photoshop 3.0\0".utf8)
        var out = header
        var at = header.count
        var removed = 0
        while at < body.count {
            guard at + 7 <= body.count, body[at..<at + 4].elementsEqual(Array("8BIM".utf8)) else {
                return nil
            }
            let id = Int(body[at + 4]) << 8 | Int(body[at + 5])
            let nameLength = Int(body[at + 6])
            var cursor = at + 6 + 1 + nameLength
            if (1 + nameLength) % 2 == 1 { cursor += 1 }
            guard cursor + 4 <= body.count else { return nil }
            let size =
                Int(body[cursor]) << 24 | Int(body[cursor + 1]) << 16 | Int(body[cursor + 2]) << 8
                | Int(body[cursor + 3])
            var end = cursor + 4 + size
            if size % 2 == 1 { end += 1 }
            guard end <= body.count || cursor + 4 + size == body.count else { return nil }
            end = min(end, body.count)
            if id == 0x0409 || id == 0x040C {
                removed += 1
            } else {
                out += body[at..<end]
            }
            at = end
        }
        return (out, removed)
    }
}
