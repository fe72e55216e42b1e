internal import CImagingShims

/// What CropKit reads of an ICC profile: its description, for reports.
public enum ICCProfile {
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
