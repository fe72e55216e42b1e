/// A JPEG's extended XMP (XMP Specification Part 3, 1.1.3.1): the part of
/// its XMP too large for one APP1 segment, split across `APP1` segments that
/// each carry a 32-character GUID, the whole length and their offset. What
/// it holds is read from it, so that a report says what was dropped: a
/// depth map, an image, a maker note, or properties CropKit does not know.
enum ExtendedXMP {
    /// The segment signature.
    static let signature = JPEGMetadata.extendedXMPSignature

    /// What the property values of known kinds hold.
    static let known: [String: String] = [
        "GDepth:Data": "a depth map of the whole photo",
        "GDepth:Confidence": "a depth confidence map of the whole photo",
        "GImage:Data": "an image of the whole photo",
        "GCamera:HdrPlusMakernote": "Google's HDR+ maker note",
        "GAudio:Data": "sound recorded with the photo",
    ]

    /// The GUID a segment body names, or `nil` when the body is too short
    /// to be extended XMP.
    static func guid(_ body: [UInt8]) -> String? {
        let start = signature.count
        guard body.count >= start + 40 else { return nil }
        return String(decoding: body[start..<start + 32], as: UTF8.self)
    }

    /// The properties each extended XMP (by GUID) of `info` holds, in the
    /// order first found. The segments' data are scanned as one stream a
    /// GUID, so that a name split across two segments is found.
    static func properties(of info: JPEGFileInfo, input: ImageInput) throws(ImagingError)
        -> [String: [String]]
    {
        var found: [String: [String]] = [:]
        var tails: [String: [UInt8]] = [:]
        for segment in info.segments where segment.marker == 0xE1 {
            let head = try input.read(
                at: segment.bodyOffset, count: min(segment.bodyLength, signature.count),
                format: .jpeg)
            guard head == signature else { continue }
            let body = try input.read(
                at: segment.bodyOffset, count: segment.bodyLength, format: .jpeg)
            guard let guid = guid(body) else { continue }
            let data = (tails[guid] ?? []) + body[(signature.count + 40)...]
            var names = found[guid] ?? []
            for name in propertyNames(in: data) where !names.contains(name) {
                names.append(name)
            }
            found[guid] = names
            tails[guid] = Array(data.suffix(64))
        }
        return found
    }

    /// The names of the XMP properties (`prefix:Name`, as an attribute or
    /// an element) in `text`, less the RDF and XML structure and the
    /// namespace declarations. Base64 values hold no colon, so a long
    /// embedded image costs one pass and yields no names.
    static func propertyNames(in text: [UInt8]) -> [String] {
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2D || byte == 0x2E
        }
        var names: [String] = []
        var index = 0
        while index < text.count {
            guard text[index] == 0x3A else {  // ':'
                index += 1
                continue
            }
            var start = index
            while start > 0, isNameByte(text[start - 1]) { start -= 1 }
            var end = index + 1
            while end < text.count, isNameByte(text[end]) { end += 1 }
            defer { index = end }
            guard start > 0, start < index, end > index + 1, end < text.count,
                [0x3C, 0x20, 0x0A, 0x0D, 0x09].contains(text[start - 1]),  // '<' or space
                [0x3D, 0x3E, 0x20, 0x0A, 0x0D, 0x09, 0x2F].contains(text[end])  // = > space /
            else { continue }
            let prefix = String(decoding: text[start..<index], as: UTF8.self)
            guard !["xmlns", "rdf", "x", "xml"].contains(prefix) else { continue }
            let name = String(decoding: text[start..<end], as: UTF8.self)
            if !names.contains(name) { names.append(name) }
            if names.count >= 64 { break }
        }
        return names
    }

    /// What `properties` hold, for a report: "GDepth:Data (a depth map of
    /// the whole photo)", unknown ones by name, at most six named.
    static func describe(_ properties: [String]) -> String {
        guard !properties.isEmpty else { return "what it holds could not be read" }
        var parts = properties.prefix(6).map { name in
            known[name].map { "\(name) (\($0))" } ?? name
        }
        if properties.count > 6 { parts.append("\(properties.count - 6) more properties") }
        return "it holds " + parts.joined(separator: ", ")
    }
}
