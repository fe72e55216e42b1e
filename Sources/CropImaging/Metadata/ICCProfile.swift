internal import CImagingShims

/// What CropKit reads of an ICC profile: its description, for reports, and
/// whether it is one at all.
///
/// A profile is a container (a JPEG's APP2, a PNG's iCCP, a WebP's ICCP, a
/// HEIF or AVIF `colr` of type `prof`): any bytes fit in it. A crop carries
/// a profile only when ``problem(in:)`` finds none, so a whole photo stored
/// as a "profile" never reaches a crop.
public enum ICCProfile {
    /// Why `profile` is not carried, or `nil` when it is an ICC profile a
    /// crop may carry: at least its 128-byte header and tag count, the
    /// header's size the bytes' (zero bytes of padding after it allowed),
    /// the signature `acsp` at byte 36, a tag table inside the profile,
    /// each tag's data inside it, and no embedded image in it, in a tag or
    /// between tags (``LeakCheck``'s signatures: JPEG, PNG, WebP, HEIF,
    /// AVIF, HEVC, AV1 and, inside a tag, TIFF).
    ///
    /// The reason is a noun phrase naming what the bytes are ("bytes that
    /// are not an ICC profile (no 'acsp' signature), holding an embedded
    /// JPEG image"; "an ICC profile whose tag 'desc' holds an embedded
    /// JPEG image").
    ///
    /// - Complexity: O(*n*) in the profile's size.
    public static func problem(in profile: [UInt8]) -> String? {
        func u32(_ i: Int) -> Int {
            Int(profile[i]) << 24 | Int(profile[i + 1]) << 16 | Int(profile[i + 2]) << 8
                | Int(profile[i + 3])
        }
        // An image anywhere in it, said after what is wrong with its
        // structure.
        let held = LeakCheck.embeddedImage(profile)
        let image = held.map { ", holding \($0)" } ?? ""
        guard profile.count >= 132 else {
            return
                "bytes that are not an ICC profile (\(profile.count) bytes, shorter than a header)\(image)"
        }
        guard profile[36..<40].elementsEqual(Array("acsp".utf8)) else {
            return "bytes that are not an ICC profile (no 'acsp' signature)\(image)"
        }
        let size = u32(0)
        guard size >= 132, size <= profile.count,
            profile[size...].allSatisfy({ $0 == 0 })
        else {
            return
                "bytes that are not a valid ICC profile (its header says \(size) bytes, and it has \(profile.count))\(image)"
        }
        let count = u32(128)
        guard count <= (size - 132) / 12 else {
            return
                "bytes that are not a valid ICC profile (its tag table of \(count) tags ends outside it)\(image)"
        }
        // Where an image is, named by the tag that holds it: looked for tag
        // by tag only when the profile holds one (a tag is part of it).
        let anyImage = held != nil || LeakCheck.embeddedTIFF(profile) != nil
        for index in 0..<count {
            let entry = 132 + 12 * index
            let signature = String(
                decoding: profile[entry..<entry + 4].map { (0x20..<0x7F).contains($0) ? $0 : 0x3F },
                as: UTF8.self)
            let (offset, length) = (u32(entry + 4), u32(entry + 8))
            guard offset >= 128, length <= size, offset <= size - length else {
                return
                    "bytes that are not a valid ICC profile (its tag '\(signature)' lies outside it)\(image)"
            }
            guard anyImage else { continue }
            let data = Array(profile[offset..<offset + length])
            if let inside = LeakCheck.embeddedImage(data) ?? LeakCheck.embeddedTIFF(data) {
                return "an ICC profile whose tag '\(signature)' holds \(inside)"
            }
        }
        return held.map { "an ICC profile that holds \($0) outside its tags" }
    }

    /// What `info` says of a file's profile: its description, "(an ICC
    /// profile without a description)", or, for bytes a crop removes
    /// (`problem`, from ``problem(in:)``), what they are; `nil` for none.
    static func summary(_ profile: [UInt8]?, problem: String?) -> String? {
        if let problem { return "(\(problem); a crop removes it)" }
        return profile.map { description(of: $0) ?? "(an ICC profile without a description)" }
    }

    /// The profile inside a PNG iCCP chunk (name, NUL, method 0, zlib data),
    /// or `nil` when the chunk is malformed or the profile exceeds `limit`.
    public static func profile(fromICCP chunk: PNGChunk, limit: Int = 16 << 20) -> [UInt8]? {
        guard chunk.type == "iCCP", let nul = chunk.data.firstIndex(of: 0),
            nul + 2 <= chunk.data.count,
            chunk.data[nul + 1] == 0
        else { return nil }
        let compressed = Array(chunk.data[(nul + 2)...])
        var written = -1
        let out = [UInt8](unsafeUninitializedCapacity: limit) { buffer, count in
            written = compressed.withUnsafeBufferPointer {
                ck_zlib_uncompress($0.baseAddress, $0.count, buffer.baseAddress, buffer.count)
            }
            count = max(0, written)
        }
        return written >= 0 ? out : nil
    }

    /// The profile's description ('desc' tag: ICC v2 text or v4 'mluc'), or
    /// `nil` when the profile has none CropKit can read.
    public static func description(of profile: [UInt8]) -> String? {
        func u32(_ i: Int) -> Int? {
            guard i >= 0, i + 4 <= profile.count else { return nil }
            return Int(profile[i]) << 24 | Int(profile[i + 1]) << 16 | Int(profile[i + 2]) << 8
                | Int(profile[i + 3])
        }
        guard let count = u32(128), count < 1000 else { return nil }
        for index in 0..<count {
            let entry = 132 + 12 * index
            guard let signature = u32(entry), let offset = u32(entry + 4), let size = u32(entry + 8)
            else { return nil }
            guard signature == 0x6465_7363, offset + size <= profile.count, size >= 12 else {
                continue
            }  // 'desc'
            let type = u32(offset)
            if type == 0x6465_7363, let length = u32(offset + 8), length > 0,
                offset + 12 + length <= profile.count
            {
                // v2 textDescriptionType: ASCII, counted with its NUL.
                let bytes = profile[(offset + 12)..<(offset + 12 + length)].prefix(while: {
                    $0 != 0
                })
                return String(decoding: bytes, as: UTF8.self)
            }
            if type == 0x6D6C_7563, let records = u32(offset + 8), records > 0,
                let length = u32(offset + 20),
                let start = u32(offset + 24), offset + start + length <= profile.count
            {
                // v4 multiLocalizedUnicodeType: the first record, UTF-16BE,
                // up to a NUL (some writers count a terminator in it).
                let bytes = Array(profile[(offset + start)..<(offset + start + length)])
                let units = stride(from: 0, to: bytes.count - 1, by: 2).map {
                    UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
                }
                return String(decoding: units.prefix(while: { $0 != 0 }), as: UTF16.self)
            }
        }
        return nil
    }

    /// The PNG iCCP chunk carrying `profile`: a name, a NUL, compression
    /// method 0 and the zlib-compressed profile.
    static func iCCPChunk(_ profile: [UInt8], name: String) throws(ImagingError) -> PNGChunk {
        let latin = Array(
            name.unicodeScalars.filter { $0.value >= 32 && $0.value < 127 }.prefix(79).map {
                UInt8($0.value)
            })
        let compressed = try profile.withUnsafeBufferPointer { bytes throws(ImagingError) in
            try Compressor.zlibStream(bytes, level: 9)
        }
        return PNGChunk(
            type: "iCCP",
            data: (latin.isEmpty ? Array("ICC profile".utf8) : latin) + [0, 0] + compressed)
    }

    /// `profile` as the APP2 ICC_PROFILE segments of a JPEG (whole segments,
    /// marker and length included), split in pieces of at most 65,519 bytes.
    static func jpegSegments(_ profile: [UInt8]) -> [UInt8] {
        let piece = 65_519
        let count = max(1, (profile.count + piece - 1) / piece)
        guard count <= 255 else { return [] }
        var out: [UInt8] = []
        for index in 0..<count {
            let part = profile[
                min(index * piece, profile.count)..<min((index + 1) * piece, profile.count)]
            let body = Array("ICC_PROFILE\0".utf8) + [UInt8(index + 1), UInt8(count)] + part
            out += JPEGMetadata.segment(0xE2, body)
        }
        return out
    }
}
