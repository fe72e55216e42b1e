import CropGeometry

/// A JPEG's MPF index (CIPA DC-007): the images stored after the primary
/// one, each with its attribute, size and offset (from the MPF segment's
/// TIFF header, as the standard counts).
struct MPFIndex {
    struct Entry {
        var attribute: UInt32
        var size: Int
        var offset: Int
    }

    var entries: [Entry]
    /// The file offset the entries' offsets count from.
    var base: Int

    /// The index of an MPF segment body ("MPF\0" and a TIFF structure) whose
    /// body starts at `bodyOffset` in the file; `nil` when malformed.
    init?(body: [UInt8], bodyOffset: Int) {
        guard body.count >= 12, body.starts(with: Array("MPF\0".utf8)) else { return nil }
        let tiff = Array(body[4...])
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return little
                ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let first = u32(4), let count = u16(first), count <= 64 else { return nil }
        var found: [Entry] = []
        for index in 0..<count {
            let at = first + 2 + 12 * index
            guard u16(at) == 0xB002, let length = u32(at + 4), let pointer = u32(at + 8) else {
                continue
            }
            for entry in 0..<(length / 16) {
                let e = pointer + 16 * entry
                guard let attribute = u32(e), let size = u32(e + 4), let offset = u32(e + 8) else {
                    return nil
                }
                found.append(Entry(attribute: UInt32(attribute), size: size, offset: offset))
            }
        }
        guard !found.isEmpty else { return nil }
        entries = found
        base = bodyOffset + 4
    }

    /// An MPF segment (whole, marker and length included) for a primary
    /// image and one more image, big-endian, with the sizes and the offset
    /// left zero: ``patch(_:primarySize:secondSize:)`` fills them once the
    /// primary's size is known.
    static func segment(secondAttribute: UInt32) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v >> 16 & 0xFFFF) + u16(v & 0xFFFF) }
        // TIFF header (8), IFD of 3 entries (2 + 36 + 4) at 8, entries at 50.
        var tiff: [UInt8] = [0x4D, 0x4D] + u16(42) + u32(8)
        tiff += u16(3)
        tiff += u16(0xB000) + u16(7) + u32(4) + Array("0100".utf8)
        tiff += u16(0xB001) + u16(4) + u32(1) + u32(2)
        tiff += u16(0xB002) + u16(7) + u32(32) + u32(50)
        tiff += u32(0)
        tiff += u32(0x0003_0000) + u32(0) + u32(0) + u16(0) + u16(0)
        tiff += u32(Int(secondAttribute)) + u32(0) + u32(0) + u16(0) + u16(0)
        let body = Array("MPF\0".utf8) + tiff
        return [0xFF, 0xE2] + u16(body.count + 2) + body
    }

    /// Fills the sizes and the second image's offset of the segment made by
    /// ``segment(secondAttribute:)`` inside `primary`, the whole primary
    /// JPEG, which the second image follows.
    static func patch(_ primary: inout [UInt8], secondSize: Int) -> Bool {
        let signature = Array("MPF\0MM".utf8)
        guard
            let at = primary.indices.first(where: { index in
                index + signature.count <= primary.count
                    && primary[index..<index + signature.count].elementsEqual(signature)
            })
        else { return false }
        let tiff = at + 4
        func put(_ value: Int, _ offset: Int) {
            for i in 0..<4 { primary[tiff + offset + i] = UInt8(value >> (24 - 8 * i) & 0xFF) }
        }
        put(primary.count, 50 + 4)
        put(secondSize, 66 + 4)
        put(primary.count - tiff, 66 + 8)
        return true
    }
}

/// An HDR gain map stored after a JPEG photo (Apple's, or an Ultra HDR
/// one), found through the photo's MPF index.
struct GainMap {
    /// The gain map's own JPEG file.
    var bytes: [UInt8]
    /// Its MPF attribute, kept in the crop's index.
    var attribute: UInt32

    /// The gain map of the photo whose markers are `info`, if it has one.
    static func find(_ info: JPEGFileInfo, input: ImageInput) throws(ImagingError) -> GainMap? {
        for segment in info.segments where segment.marker == 0xE2 {
            let body = try input.read(
                at: segment.bodyOffset, count: segment.bodyLength, format: .jpeg)
            guard let index = MPFIndex(body: body, bodyOffset: segment.bodyOffset) else { continue }
            for entry in index.entries where entry.offset > 0 && entry.size > 4 {
                let start = index.base + entry.offset
                guard start + entry.size <= input.byteCount, entry.size <= 64 << 20 else {
                    continue
                }
                let bytes = try input.read(at: start, count: entry.size, format: .jpeg)
                let head = String(decoding: bytes.prefix(65536), as: UTF8.self)
                if bytes.starts(with: [0xFF, 0xD8]),
                    head.contains("hdrgainmap") || head.contains("hdrgm:")
                        || head.contains("HDRGainMap")
                {
                    return GainMap(bytes: bytes, attribute: entry.attribute)
                }
            }
        }
        return nil
    }
}
