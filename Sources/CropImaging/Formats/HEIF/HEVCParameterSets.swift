/// What a tile's own decoder configuration (`hvcC`) says it codes: read
/// from its sequence parameter set (ITU-T H.265, 7.3.2.2), so that a tile
/// is copied into a crop only when what it really codes agrees with its
/// `ispe`, its `hvcC` header and the other tiles of its grid.
struct HEVCSequenceInfo: Equatable {
    /// `chroma_format_idc`: 0 = 4:0:0, 1 = 4:2:0, 2 = 4:2:2, 3 = 4:4:4.
    var chromaFormat: Int
    /// The decoded size: `pic_width_in_luma_samples` and
    /// `pic_height_in_luma_samples` less the conformance window.
    var width: Int
    var height: Int
    /// `bit_depth_luma_minus8 + 8`.
    var bitDepth: Int

    /// The first SPS of an `hvcC` box (whole, header included), or why it
    /// cannot be read: the box cut short, its NAL arrays overrunning it, no
    /// VPS, SPS or PPS, or an SPS that ends early.
    static func read(hvcC box: [UInt8]) -> Result<HEVCSequenceInfo, HEVCConfigurationProblem> {
        let units: [(type: Int, unit: [UInt8])]
        switch nalUnits(hvcC: box) {
        case .success(let found): units = found
        case .failure(let problem): return .failure(problem)
        }
        guard Set(units.map(\.type)).isSuperset(of: [32, 33, 34]) else {
            return .failure(.init("'hvcC' lacks a VPS, SPS or PPS"))
        }
        guard let sps = units.first(where: { $0.type == 33 }),
            let info = parse(sps: Array(sps.unit.dropFirst(2)))
        else {
            return .failure(.init("the SPS of 'hvcC' cannot be read"))
        }
        return .success(info)
    }

    /// The NAL units of an `hvcC` box (whole, header included), each with
    /// its type and its bytes (its two-byte NAL header first), or why they
    /// cannot be read: the box cut short, or its arrays overrunning it.
    static func nalUnits(hvcC box: [UInt8]) -> Result<
        [(type: Int, unit: [UInt8])], HEVCConfigurationProblem
    > {
        // 8-byte box header, 22 bytes of configuration, then the arrays.
        guard box.count >= 8 + 23 else { return .failure(.init("'hvcC' is cut short")) }
        var at = 8 + 22
        let arrays = Int(box[at])
        at += 1
        var units: [(type: Int, unit: [UInt8])] = []
        for _ in 0..<arrays {
            guard at + 3 <= box.count else {
                return .failure(.init("'hvcC' ends inside its NAL unit arrays"))
            }
            let type = Int(box[at] & 0x3F)
            let count = Int(box[at + 1]) << 8 | Int(box[at + 2])
            at += 3
            for _ in 0..<count {
                guard at + 2 <= box.count else {
                    return .failure(.init("'hvcC' ends inside its NAL unit arrays"))
                }
                let length = Int(box[at]) << 8 | Int(box[at + 1])
                at += 2
                guard length >= 2, at + length <= box.count else {
                    return .failure(
                        .init("a NAL unit of 'hvcC' runs past the box (\(length) bytes)"))
                }
                units.append((type, Array(box[at..<at + length])))
                at += length
            }
        }
        return .success(units)
    }

    /// Whether every picture parameter set of an `hvcC` box enables
    /// `transquant_bypass_enabled_flag` (H.265, 7.3.2.3.1): what an
    /// encoder's lossless mode sets (x265 `--lossless`) and nothing else
    /// does. `nil` when the box holds no PPS that can be read.
    static func transquantBypass(hvcC box: [UInt8]) -> Bool? {
        guard case .success(let units) = nalUnits(hvcC: box) else { return nil }
        let sets = units.filter { $0.type == 34 }
        guard !sets.isEmpty else { return nil }
        for set in sets {
            var bits = BitReader(rbsp(Array(set.unit.dropFirst(2))))
            guard bits.golomb() != nil, bits.golomb() != nil,  // pps and sps ids
                bits.skip(1 + 1 + 3 + 1 + 1),  // dependent slices … cabac_init_present
                bits.golomb() != nil, bits.golomb() != nil,  // num_ref_idx defaults
                bits.signedGolomb() != nil,  // init_qp_minus26
                bits.skip(2),  // constrained_intra_pred, transform_skip_enabled
                let qpDelta = bits.read(1),
                qpDelta == 0 || bits.golomb() != nil,  // diff_cu_qp_delta_depth
                bits.signedGolomb() != nil, bits.signedGolomb() != nil,  // cb, cr offsets
                bits.skip(3),  // slice chroma offsets, weighted pred, bipred
                let bypass = bits.read(1)
            else { return nil }
            if bypass == 0 { return false }
        }
        return true
    }

    /// Reads the SPS payload (after its two-byte NAL header).
    private static func parse(sps payload: [UInt8]) -> HEVCSequenceInfo? {
        var bits = BitReader(rbsp(payload))
        _ = bits.read(4)  // sps_video_parameter_set_id
        guard let maxSubLayers = bits.read(3) else { return nil }
        _ = bits.read(1)  // temporal_id_nesting
        // profile_tier_level(1, maxSubLayers): 96 bits of general profile
        // and level, then per sub-layer presence flags and fields.
        guard bits.skip(96) else { return nil }
        var profilePresent: [Bool] = []
        var levelPresent: [Bool] = []
        for _ in 0..<maxSubLayers {
            guard let p = bits.read(1), let l = bits.read(1) else { return nil }
            profilePresent.append(p == 1)
            levelPresent.append(l == 1)
        }
        if maxSubLayers > 0 { guard bits.skip(2 * (8 - maxSubLayers)) else { return nil } }
        for i in 0..<maxSubLayers {
            if profilePresent[i] { guard bits.skip(88) else { return nil } }
            if levelPresent[i] { guard bits.skip(8) else { return nil } }
        }
        guard bits.golomb() != nil, let chroma = bits.golomb(), chroma <= 3 else { return nil }
        if chroma == 3 { guard bits.read(1) != nil else { return nil } }
        guard var width = bits.golomb(), var height = bits.golomb(),
            let window = bits.read(1)
        else { return nil }
        // The conformance window cuts the coded size to the decoded one.
        if window == 1 {
            guard let left = bits.golomb(), let right = bits.golomb(), let top = bits.golomb(),
                let bottom = bits.golomb()
            else { return nil }
            let sx = chroma == 1 || chroma == 2 ? 2 : 1
            let sy = chroma == 1 ? 2 : 1
            width -= (left + right) * sx
            height -= (top + bottom) * sy
        }
        guard let depth = bits.golomb(), depth <= 8 else { return nil }
        return HEVCSequenceInfo(
            chromaFormat: chroma, width: width, height: height, bitDepth: depth + 8)
    }
}

/// A NAL unit's payload without its emulation prevention bytes (in
/// `00 00 03`, the `03`).
func rbsp(_ payload: [UInt8]) -> [UInt8] {
    var rbsp: [UInt8] = []
    rbsp.reserveCapacity(payload.count)
    var zeros = 0
    for byte in payload {
        if zeros >= 2, byte == 3 {
            zeros = 0
            continue
        }
        zeros = byte == 0 ? zeros + 1 : 0
        rbsp.append(byte)
    }
    return rbsp
}

/// Why a tile's `hvcC` cannot be trusted.
struct HEVCConfigurationProblem: Error, Equatable {
    var text: String
    init(_ text: String) { self.text = text }
}

/// Bits of a byte array, most significant first (HEVC's and AV1's
/// headers).
struct BitReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ count: Int) -> Int? {
        guard count >= 0, position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
            position += 1
        }
        return value
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, position + count <= bytes.count * 8 else { return false }
        position += count
        return true
    }

    /// An unsigned Exp-Golomb number (`ue(v)`), at most 31 leading zeros.
    mutating func golomb() -> Int? {
        var zeros = 0
        while true {
            guard let bit = read(1) else { return nil }
            if bit == 1 { break }
            zeros += 1
            guard zeros <= 31 else { return nil }
        }
        guard let rest = read(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }

    /// A signed Exp-Golomb number (`se(v)`).
    mutating func signedGolomb() -> Int? {
        guard let code = golomb() else { return nil }
        return code & 1 == 1 ? (code + 1) / 2 : -(code / 2)
    }
}
