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
        var out = [UInt8]()
        out.reserveCapacity(image.width * image.height * 4)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let s = (0..<channels).map { image.sample(x: x, y: y, channel: $0) }
                switch image.colorType {
                case .palette:
                    let i = s[0]
                    let rgb =
                        3 * i + 2 < palette.count ? Array(palette[3 * i..<3 * i + 3]) : [0, 0, 0]
                    let alpha = transparency.map { i < $0.count ? $0[i] : 255 } ?? 255
                    out += rgb + [alpha]
                case .gray:
                    let g = to8(s[0])
                    let alpha: UInt8 =
                        transparency.map { $0.count >= 2 && key($0, 0) == s[0] ? 0 : 255 } ?? 255
                    out += [g, g, g, alpha]
                case .rgb:
                    let rgb = s.map(to8)
                    let transparent =
                        transparency.map { t in
                            t.count >= 6 && key(t, 0) == s[0] && key(t, 1) == s[1]
                                && key(t, 2) == s[2]
                        }
                        ?? false
                    out += rgb + [transparent ? 0 : 255]
                case .grayAlpha:
                    let g = to8(s[0])
                    out += [g, g, g, to8(s[1])]
                case .rgba:
                    out += s.map(to8)
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
