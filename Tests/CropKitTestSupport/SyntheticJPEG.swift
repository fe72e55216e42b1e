/// JPEG files made byte by byte for tests: valid, gray, every block
/// coding zero (mid-gray), with one-code Huffman tables, so a frame of any
/// size costs a few bits a block.
public enum SyntheticJPEG {
    /// A marker segment: the marker, its length and `body`.
    public static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    }

    /// `jpeg` with `segments` (whole, from ``segment(_:_:)``) right after
    /// its SOI marker.
    public static func inserting(_ segments: [[UInt8]], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg.prefix(2)) + segments.flatMap { $0 } + jpeg.dropFirst(2)
    }

    static func frame(_ marker: UInt8, width: Int, height: Int) -> [UInt8] {
        var file: [UInt8] = [0xFF, 0xD8] + segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        file += segment(
            marker,
            [
                8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
                1,
                1, 0x11, 0,
            ])
        return file
    }

    /// A baseline gray JPEG of `width`×`height`, all mid-gray, of about two
    /// bits a block (a 12000×12000 frame in 563 kB).
    public static func baselineGray(width: Int, height: Int) -> [UInt8] {
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        let oneCode = [UInt8(1)] + [UInt8](repeating: 0, count: 15)
        var file = frame(0xC0, width: width, height: height)
        file += segment(0xC4, [0x00] + oneCode + [0x00])  // DC: "0" is category 0
        file += segment(0xC4, [0x10] + oneCode + [0x00])  // AC: "0" is EOB
        file += segment(0xDA, [1, 1, 0x00, 0, 63, 0])
        file += [UInt8](repeating: 0, count: (2 * blocks + 7) / 8)
        return file + [0xFF, 0xD9]
    }

    /// A valid progressive gray JPEG of `width`×`height` with `scans` scans
    /// that code nothing but zeros (one bit a block for DC, end-of-band runs
    /// of 32767 blocks for AC): the first scans of a spectral-selection and
    /// successive-approximation script that visits every block per scan,
    /// as a scan bomb does.
    public static func scanBomb(width: Int, height: Int, scans: Int) -> [UInt8] {
        func packed(_ bits: [Bool]) -> [UInt8] {
            var out: [UInt8] = []
            for start in stride(from: 0, to: bits.count, by: 8) {
                var byte: UInt8 = 0
                for i in 0..<8 {
                    byte = byte << 1 | (start + i < bits.count ? (bits[start + i] ? 1 : 0) : 1)
                }
                out.append(byte)
                if byte == 0xFF { out.append(0) }
            }
            return out
        }
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        var file = frame(0xC2, width: width, height: height)
        let oneCode = [UInt8(1)] + [UInt8](repeating: 0, count: 15)
        file += segment(0xC4, [0x00] + oneCode + [0x00])  // DC: "0" is category 0
        file += segment(0xC4, [0x10] + oneCode + [0xE0])  // AC: "0" is EOB14
        let dc = [UInt8](repeating: 0, count: (blocks + 7) / 8)
        let runs = (blocks + 32766) / 32767
        let ac = packed((0..<runs).flatMap { _ in [false] + [Bool](repeating: true, count: 14) })
        var script: [(UInt8, UInt8, UInt8, UInt8)] = [(0, 0, 0, 0)]
        for band in UInt8(1)...63 {
            for low in stride(from: UInt8(13), through: 0, by: -1) {
                script.append((band, band, low == 13 ? 0 : low + 1, low))
            }
        }
        for (start, end, high, low) in script.prefix(scans) {
            file += segment(0xDA, [1, 1, 0x00, start, end, high << 4 | low])
            file += start == 0 ? dc : ac
        }
        return file + [0xFF, 0xD9]
    }

}
