import CropImaging

/// The RGBA8 rendering libpng gives with png_set_expand, png_set_scale_16,
/// png_set_gray_to_rgb and png_set_add_alpha(0xff) (no gamma), computed here
/// from CropKit's raw samples, and its FNV-1a-64 hash: the form of the
/// EXPECTED-*.tsv oracle, so CropKit's decode is checked against libpng's own
/// transforms, not against itself.
enum RGBA8Oracle {
    static func rgba8(_ image: RasterImage) -> [UInt8] {
        let channels = image.colorType.channels
        let maxValue = (1 << image.bitDepth) - 1
        let transparency = image.chunks.first(where: { $0.type == "tRNS" })?.data
        let palette = image.palette ?? []
        func to8(_ v: Int) -> UInt8 {
            if image.bitDepth == 16 { return UInt8((v * 255 + 32895) >> 16) }
            if image.bitDepth == 8 { return UInt8(v) }
            return UInt8(v * 255 / maxValue)
        }
        func key(_ data: [UInt8], _ index: Int) -> Int {
            Int(data[2 * index]) << 8 | Int(data[2 * index + 1])
        }
        // A byte at a time into one array (an array a pixel made the suites
        // that hash every decode seconds slower in a debug build).
        var out = [UInt8]()
        out.reserveCapacity(image.width * image.height * 4)
        func pixel(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8) {
            out.append(r)
            out.append(g)
            out.append(b)
            out.append(a)
        }
        for y in 0..<image.height {
            for x in 0..<image.width {
                let s0 = image.sample(x: x, y: y, channel: 0)
                let s1 = channels > 1 ? image.sample(x: x, y: y, channel: 1) : 0
                let s2 = channels > 2 ? image.sample(x: x, y: y, channel: 2) : 0
                let s3 = channels > 3 ? image.sample(x: x, y: y, channel: 3) : 0
                switch image.colorType {
                case .palette:
                    let i = s0
                    let alpha = transparency.map { i < $0.count ? $0[i] : 255 } ?? 255
                    if 3 * i + 2 < palette.count {
                        pixel(palette[3 * i], palette[3 * i + 1], palette[3 * i + 2], alpha)
                    } else {
                        pixel(0, 0, 0, alpha)
                    }
                case .gray:
                    let g = to8(s0)
                    let alpha: UInt8 =
                        transparency.map { $0.count >= 2 && key($0, 0) == s0 ? 0 : 255 } ?? 255
                    pixel(g, g, g, alpha)
                case .rgb:
                    let transparent =
                        transparency.map { t in
                            t.count >= 6 && key(t, 0) == s0 && key(t, 1) == s1 && key(t, 2) == s2
                        }
                        ?? false
                    pixel(to8(s0), to8(s1), to8(s2), transparent ? 0 : 255)
                case .grayAlpha:
                    let g = to8(s0)
                    pixel(g, g, g, to8(s1))
                case .rgba:
                    pixel(to8(s0), to8(s1), to8(s2), to8(s3))
                }
            }
        }
        return out
    }

    static func fnv1a64(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBufferPointer { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
