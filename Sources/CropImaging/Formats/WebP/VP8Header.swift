import Foundation

/// The quantizer indices of a VP8 key frame, read from the start of its
/// first partition (RFC 6386, 9.2-9.6) with the boolean decoder: enough to
/// say at what quality libwebp coded it.
struct VP8Header {
    /// The luma AC quantizer index of each segment (one without
    /// segmentation), 0-127.
    var quantizers: [Int]

    /// Reads the header from the first partition's bytes (the frame's bytes
    /// after its 10-byte key-frame header); `nil` when they run out first.
    init?(_ partition: ArraySlice<UInt8>) {
        var bits = BoolDecoder(Array(partition))
        _ = bits.literal(2)  // colour space, clamping
        var segmentQuantizers: [Int]?
        var absolute = true
        if bits.literal(1) == 1 {
            let updatesMap = bits.literal(1) == 1
            if bits.literal(1) == 1 {
                absolute = bits.literal(1) == 1
                segmentQuantizers = (0..<4).map { _ in bits.literal(1) == 1 ? bits.signed(7) : 0 }
                for _ in 0..<4 where bits.literal(1) == 1 { _ = bits.signed(6) }
            }
            if updatesMap {
                for _ in 0..<3 where bits.literal(1) == 1 { _ = bits.literal(8) }
            }
        }
        _ = bits.literal(1 + 6 + 3)  // filter type, level, sharpness
        if bits.literal(1) == 1, bits.literal(1) == 1 {
            for _ in 0..<8 where bits.literal(1) == 1 { _ = bits.signed(6) }
        }
        _ = bits.literal(2)  // token partitions
        let base = bits.literal(7)
        guard !bits.exhausted else { return nil }
        if let segmentQuantizers {
            quantizers = segmentQuantizers.map { min(127, max(0, absolute ? $0 : base + $0)) }
        } else {
            quantizers = [base]
        }
    }

    /// The quality (1-100) libwebp maps to these quantizers, the inverse of
    /// its `VP8SetSegmentParams`: each segment's quantizer is
    /// `127 (1 - c^e)` for the quality's compression `c` and an exponent
    /// `e` spread evenly about 1 by the segments' analysis, so the
    /// geometric mean of the extreme segments' `1 - q/127` gives `c` back.
    /// An estimate within a few points of the quality given.
    var estimatedQuality: Int {
        let low = Double(quantizers.min() ?? 0)
        let high = Double(quantizers.max() ?? 0)
        let compression = max(0, ((1 - low / 127) * (1 - high / 127)).squareRoot())
        let linear = pow(compression, 3)
        let quality = linear < 0.5 ? linear * 1.5 : (linear + 1) / 2
        return min(100, max(1, Int((quality * 100).rounded())))
    }
}

/// VP8's boolean entropy decoder (RFC 6386, 7.3), reading bits of
/// probability 1/2: the header's literals.
private struct BoolDecoder {
    let bytes: [UInt8]
    var position = 0
    var value = 0
    var range = 255
    var bitCount = 0
    /// Whether more bytes were wanted than there were.
    var exhausted = false

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        value = next() << 8 | next()
    }

    mutating func next() -> Int {
        guard position < bytes.count else {
            exhausted = true
            return 0
        }
        defer { position += 1 }
        return Int(bytes[position])
    }

    mutating func bit() -> Int {
        let split = 1 + ((range - 1) * 128) >> 8
        let bigSplit = split << 8
        let result: Int
        if value >= bigSplit {
            result = 1
            range -= split
            value -= bigSplit
        } else {
            result = 0
            range = split
        }
        while range < 128 {
            value <<= 1
            range <<= 1
            bitCount += 1
            if bitCount == 8 {
                bitCount = 0
                value |= next()
            }
        }
        return result
    }

    /// `count` bits, the first the most significant.
    mutating func literal(_ count: Int) -> Int {
        var result = 0
        for _ in 0..<count { result = result << 1 | bit() }
        return result
    }

    /// A magnitude of `count` bits, then its sign.
    mutating func signed(_ count: Int) -> Int {
        let magnitude = literal(count)
        return literal(1) == 1 ? -magnitude : magnitude
    }
}
