/// What an AV1 still picture's headers say of its coding: read from its
/// sequence header and the uncompressed header of its first frame (AV1
/// bitstream specification, 5.5 and 5.9), far enough to tell whether the
/// frame is coded losslessly (7.12.2: `base_q_idx` 0 and every DC and AC
/// delta 0, which selects the lossless Walsh-Hadamard transform), as
/// `avifenc --lossless` and libavif's `quality 100` write it.
///
/// Only what that takes is read; anything the reader does not follow (a
/// frame that shows an earlier one, an inter frame, segmentation, a header
/// cut short) answers `nil`: not known to be lossless.
enum AV1Headers {
    /// Whether the first frame of `data` (the item's coded bytes: OBUs,
    /// the sequence header among them or in `configuration`, the `av1C`
    /// box whole) is coded losslessly; `nil` when that cannot be read.
    static func isLossless(configuration: [UInt8], data: [UInt8]) -> Bool? {
        var sequence: Sequence?
        // av1C: 8-byte box header, 4 bytes of fields, then configOBUs.
        if configuration.count > 12 {
            for obu in obus(Array(configuration[12...])) where obu.type == 1 {
                sequence = Sequence(obu.payload)
            }
        }
        for obu in obus(data) {
            switch obu.type {
            case 1: sequence = Sequence(obu.payload)
            case 3, 6:
                guard let sequence else { return nil }
                return sequence.frameIsLossless(
                    obu.payload, temporal: obu.temporal, spatial: obu.spatial)
            default: continue
            }
        }
        return nil
    }

    /// An OBU: its type, its layer, its payload.
    struct OBU {
        var type: Int
        var temporal: Int
        var spatial: Int
        var payload: [UInt8]
    }

    /// The OBUs of `bytes` (each with its size field, as AVIF stores them),
    /// as far as they can be read; at most 64, since the first frame comes
    /// within the first few.
    static func obus(_ bytes: [UInt8]) -> [OBU] {
        var found: [OBU] = []
        var at = 0
        while at < bytes.count, found.count < 64 {
            let header = bytes[at]
            let type = Int(header >> 3 & 15)
            let hasExtension = header & 4 != 0
            let hasSize = header & 2 != 0
            at += 1
            var temporal = 0
            var spatial = 0
            if hasExtension {
                guard at < bytes.count else { break }
                temporal = Int(bytes[at] >> 5)
                spatial = Int(bytes[at] >> 3 & 3)
                at += 1
            }
            var size = bytes.count - at
            if hasSize {
                guard let (value, length) = leb128(bytes, at: at) else { break }
                at += length
                guard value <= bytes.count - at else { break }
                size = value
            }
            found.append(
                OBU(
                    type: type, temporal: temporal, spatial: spatial,
                    payload: Array(bytes[at..<at + size])))
            at += size
        }
        return found
    }

    /// A LEB128 number at `at`: its value and its length in bytes.
    static func leb128(_ bytes: [UInt8], at start: Int) -> (Int, Int)? {
        var value = 0
        for index in 0..<8 {
            guard start + index < bytes.count else { return nil }
            let byte = bytes[start + index]
            value |= Int(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 { return (value, index + 1) }
        }
        return nil
    }

    /// What a sequence header says that the first frame's header needs.
    struct Sequence {
        var reducedStillPicture = false
        var decoderModelInfo = false
        var equalPictureInterval = false
        var bufferRemovalTimeLength = 0
        var framePresentationTimeLength = 0
        var operatingPoints: [(idc: Int, decoderModel: Bool)] = []
        var frameWidthBits = 0
        var frameHeightBits = 0
        var maxWidth = 0
        var maxHeight = 0
        var frameIDNumbers = false
        var frameIDLength = 0
        var superblock128 = false
        var forceScreenContentTools = 2
        var forceIntegerMV = 2
        var orderHintBits = 0
        var superres = false
        var planes = 3
        var separateUVDeltaQ = false

        /// Reads a sequence header OBU's payload (5.5); `nil` when it ends
        /// early.
        init?(_ payload: [UInt8]) {
            var bits = BitReader(payload)
            guard let profile = bits.read(3), bits.skip(1), let reduced = bits.read(1) else {
                return nil
            }
            reducedStillPicture = reduced == 1
            var bufferDelayLength = 0
            if reducedStillPicture {
                guard bits.skip(5) else { return nil }
                operatingPoints = [(0, false)]
            } else {
                guard let timing = bits.read(1) else { return nil }
                if timing == 1 {
                    guard bits.skip(64), let equal = bits.read(1) else { return nil }
                    equalPictureInterval = equal == 1
                    if equalPictureInterval {
                        // num_ticks_per_picture_minus_1, uvlc().
                        var zeros = 0
                        while true {
                            guard let bit = bits.read(1) else { return nil }
                            if bit == 1 { break }
                            zeros += 1
                            guard zeros < 32 else { return nil }
                        }
                        guard bits.skip(zeros) else { return nil }
                    }
                    guard let model = bits.read(1) else { return nil }
                    decoderModelInfo = model == 1
                    if decoderModelInfo {
                        guard let delay = bits.read(5), bits.skip(32),
                            let removal = bits.read(5), let presentation = bits.read(5)
                        else { return nil }
                        bufferDelayLength = delay + 1
                        bufferRemovalTimeLength = removal + 1
                        framePresentationTimeLength = presentation + 1
                    }
                }
                guard let initialDelay = bits.read(1), let count = bits.read(5) else {
                    return nil
                }
                for _ in 0...count {
                    guard let idc = bits.read(12), let level = bits.read(5) else { return nil }
                    if level > 7 { guard bits.skip(1) else { return nil } }
                    var model = false
                    if decoderModelInfo {
                        guard let present = bits.read(1) else { return nil }
                        model = present == 1
                        if model { guard bits.skip(2 * bufferDelayLength + 1) else { return nil } }
                    }
                    if initialDelay == 1 {
                        guard let present = bits.read(1) else { return nil }
                        if present == 1 { guard bits.skip(4) else { return nil } }
                    }
                    operatingPoints.append((idc, model))
                }
            }
            guard let widthBits = bits.read(4), let heightBits = bits.read(4),
                let width = bits.read(widthBits + 1), let height = bits.read(heightBits + 1)
            else { return nil }
            frameWidthBits = widthBits + 1
            frameHeightBits = heightBits + 1
            maxWidth = width + 1
            maxHeight = height + 1
            if !reducedStillPicture {
                guard let ids = bits.read(1) else { return nil }
                frameIDNumbers = ids == 1
                if frameIDNumbers {
                    guard let delta = bits.read(4), let additional = bits.read(3) else {
                        return nil
                    }
                    frameIDLength = additional + 1 + delta + 2
                }
            }
            guard let superblock = bits.read(1), bits.skip(2) else { return nil }
            superblock128 = superblock == 1
            if !reducedStillPicture {
                guard bits.skip(4), let orderHint = bits.read(1) else { return nil }
                if orderHint == 1 { guard bits.skip(2) else { return nil } }
                // A "choose" flag, then a "force" value unless chosen per
                // frame (2, SELECT).
                func selectable() -> Int? {
                    guard let choose = bits.read(1) else { return nil }
                    return choose == 1 ? 2 : bits.read(1)
                }
                guard let screenContent = selectable() else { return nil }
                forceScreenContentTools = screenContent
                if forceScreenContentTools > 0 {
                    guard let integerMV = selectable() else { return nil }
                    forceIntegerMV = integerMV
                }
                if orderHint == 1 {
                    guard let hintBits = bits.read(3) else { return nil }
                    orderHintBits = hintBits + 1
                }
            }
            guard let superres = bits.read(1), bits.skip(2) else { return nil }
            self.superres = superres == 1
            // color_config (5.5.2).
            guard let high = bits.read(1) else { return nil }
            var bitDepth = high == 1 ? 10 : 8
            if profile == 2, high == 1 {
                guard let twelve = bits.read(1) else { return nil }
                bitDepth = twelve == 1 ? 12 : 10
            }
            var mono = 0
            if profile != 1 {
                guard let flag = bits.read(1) else { return nil }
                mono = flag
            }
            guard let described = bits.read(1) else { return nil }
            var primaries = 2
            var transfer = 2
            var matrix = 2
            if described == 1 {
                guard let p = bits.read(8), let t = bits.read(8), let m = bits.read(8) else {
                    return nil
                }
                (primaries, transfer, matrix) = (p, t, m)
            }
            if mono == 1 {
                planes = 1
                return
            }
            if !(primaries == 1 && transfer == 13 && matrix == 0) {
                guard bits.skip(1) else { return nil }  // color_range
                var subsamplingX = profile == 0 ? 1 : 0
                var subsamplingY = profile == 0 ? 1 : 0
                if profile == 2 {
                    if bitDepth == 12 {
                        guard let x = bits.read(1) else { return nil }
                        subsamplingX = x
                        if x == 1 {
                            guard let y = bits.read(1) else { return nil }
                            subsamplingY = y
                        } else {
                            subsamplingY = 0
                        }
                    } else {
                        (subsamplingX, subsamplingY) = (1, 0)
                    }
                }
                if subsamplingX == 1, subsamplingY == 1 {
                    guard bits.skip(2) else { return nil }
                }
            }
            guard let separate = bits.read(1) else { return nil }
            separateUVDeltaQ = separate == 1
        }

        /// Whether a frame header (or frame) OBU's payload codes its frame
        /// losslessly; `nil` when the header cannot be followed that far.
        func frameIsLossless(_ payload: [UInt8], temporal: Int, spatial: Int) -> Bool? {
            var bits = BitReader(payload)
            var showFrame = true
            var frameType = 0  // KEY_FRAME
            var errorResilient = true
            if !reducedStillPicture {
                guard let showExisting = bits.read(1), showExisting == 0,
                    let type = bits.read(2), let show = bits.read(1)
                else { return nil }
                frameType = type
                showFrame = show == 1
                // Only intra frames (key, intra-only) are followed.
                guard frameType == 0 || frameType == 2 else { return nil }
                if showFrame, decoderModelInfo, !equalPictureInterval {
                    guard bits.skip(framePresentationTimeLength) else { return nil }
                }
                if !showFrame { guard bits.skip(1) else { return nil } }  // showable_frame
                if frameType == 0, showFrame {
                    errorResilient = true
                } else {
                    guard let flag = bits.read(1) else { return nil }
                    errorResilient = flag == 1
                }
            }
            guard let disableCDFUpdate = bits.read(1) else { return nil }
            var screenContent = forceScreenContentTools
            if forceScreenContentTools == 2 {
                guard let flag = bits.read(1) else { return nil }
                screenContent = flag
            }
            if screenContent == 1, forceIntegerMV == 2 {
                guard bits.skip(1) else { return nil }
            }
            if frameIDNumbers { guard bits.skip(frameIDLength) else { return nil } }
            var sizeOverride = 0
            if !reducedStillPicture {
                guard let flag = bits.read(1) else { return nil }
                sizeOverride = flag
            }
            guard bits.skip(orderHintBits) else { return nil }
            // Intra frames: primary_ref_frame is PRIMARY_REF_NONE, unread.
            if decoderModelInfo {
                guard let present = bits.read(1) else { return nil }
                if present == 1 {
                    for point in operatingPoints where point.decoderModel {
                        let inTemporal = point.idc >> temporal & 1 == 1
                        let inSpatial = point.idc >> (spatial + 8) & 1 == 1
                        if point.idc == 0 || (inTemporal && inSpatial) {
                            guard bits.skip(bufferRemovalTimeLength) else { return nil }
                        }
                    }
                }
            }
            if !(frameType == 0 && showFrame) {
                guard let refresh = bits.read(8) else { return nil }
                if refresh != 0xFF, errorResilient, orderHintBits > 0 {
                    guard bits.skip(8 * orderHintBits) else { return nil }
                }
            }
            // frame_size (5.9.5), superres_params (5.9.8), render_size.
            var width = maxWidth
            var height = maxHeight
            if sizeOverride == 1 {
                guard let w = bits.read(frameWidthBits), let h = bits.read(frameHeightBits) else {
                    return nil
                }
                (width, height) = (w + 1, h + 1)
            }
            let upscaledWidth = width
            if superres {
                guard let use = bits.read(1) else { return nil }
                if use == 1 {
                    guard let denominator = bits.read(3) else { return nil }
                    let scale = denominator + 9
                    width = (upscaledWidth * 8 + scale / 2) / scale
                }
            }
            guard let renderDiffers = bits.read(1) else { return nil }
            if renderDiffers == 1 { guard bits.skip(32) else { return nil } }
            if screenContent == 1, upscaledWidth == width {
                guard bits.skip(1) else { return nil }  // allow_intrabc
            }
            if !reducedStillPicture, disableCDFUpdate == 0 {
                guard bits.skip(1) else { return nil }  // disable_frame_end_update_cdf
            }
            guard skipTileInfo(&bits, width: width, height: height) else { return nil }
            // quantization_params (5.9.12).
            guard let baseQ = bits.read(8) else { return nil }
            var deltas: [Int] = []
            func delta() -> Bool {
                guard let coded = bits.read(1) else { return false }
                if coded == 1 {
                    guard let value = bits.read(7) else { return false }
                    deltas.append(value)
                } else {
                    deltas.append(0)
                }
                return true
            }
            guard delta() else { return nil }
            if planes > 1 {
                var differentUV = 0
                if separateUVDeltaQ {
                    guard let flag = bits.read(1) else { return nil }
                    differentUV = flag
                }
                guard delta(), delta() else { return nil }
                if differentUV == 1 { guard delta(), delta() else { return nil } }
            }
            guard let qmatrix = bits.read(1) else { return nil }
            if qmatrix == 1 {
                guard bits.skip(8) else { return nil }
                if planes > 1, separateUVDeltaQ { guard bits.skip(4) else { return nil } }
            }
            // segmentation_params: segments could change the quantizer;
            // a frame that uses them is not followed further.
            guard let segmentation = bits.read(1) else { return nil }
            if segmentation == 1 {
                return baseQ == 0 && deltas.allSatisfy { $0 == 0 } ? nil : false
            }
            return baseQ == 0 && deltas.allSatisfy { $0 == 0 }
        }

        /// Reads past tile_info (5.9.15) for a frame of `width` by `height`.
        func skipTileInfo(_ bits: inout BitReader, width: Int, height: Int) -> Bool {
            let miColumns = 2 * ((width + 7) >> 3)
            let miRows = 2 * ((height + 7) >> 3)
            let shift = superblock128 ? 5 : 4
            let columns = (miColumns + (1 << shift) - 1) >> shift
            let rows = (miRows + (1 << shift) - 1) >> shift
            let size = shift + 2
            let maxTileWidth = 4096 >> size
            var maxTileArea = (4096 * 2304) >> (2 * size)
            func log2(_ block: Int, _ target: Int) -> Int {
                var k = 0
                while block << k < target { k += 1 }
                return k
            }
            let minColumnsLog2 = log2(maxTileWidth, columns)
            let maxColumnsLog2 = log2(1, min(columns, 64))
            let maxRowsLog2 = log2(1, min(rows, 64))
            let minTilesLog2 = max(minColumnsLog2, log2(maxTileArea, rows * columns))
            guard let uniform = bits.read(1) else { return false }
            var columnsLog2 = 0
            var rowsLog2 = 0
            if uniform == 1 {
                columnsLog2 = minColumnsLog2
                while columnsLog2 < maxColumnsLog2 {
                    guard let more = bits.read(1) else { return false }
                    if more == 0 { break }
                    columnsLog2 += 1
                }
                rowsLog2 = max(minTilesLog2 - columnsLog2, 0)
                while rowsLog2 < maxRowsLog2 {
                    guard let more = bits.read(1) else { return false }
                    if more == 0 { break }
                    rowsLog2 += 1
                }
            } else {
                func ns(_ n: Int) -> Int? {
                    var w = 0
                    while 1 << (w + 1) <= n { w += 1 }
                    w += 1
                    let m = (1 << w) - n
                    guard let v = bits.read(w - 1) else { return nil }
                    if v < m { return v }
                    guard let extra = bits.read(1) else { return nil }
                    return (v << 1) - m + extra
                }
                var widest = 0
                var start = 0
                var count = 0
                while start < columns {
                    guard let sizeMinus1 = ns(min(columns - start, maxTileWidth)) else {
                        return false
                    }
                    widest = max(widest, sizeMinus1 + 1)
                    start += sizeMinus1 + 1
                    count += 1
                }
                columnsLog2 = log2(1, count)
                maxTileArea =
                    minTilesLog2 > 0 ? (rows * columns) >> (minTilesLog2 + 1) : rows * columns
                let maxTileHeight = max(maxTileArea / max(widest, 1), 1)
                start = 0
                count = 0
                while start < rows {
                    guard let sizeMinus1 = ns(min(rows - start, maxTileHeight)) else {
                        return false
                    }
                    start += sizeMinus1 + 1
                    count += 1
                }
                rowsLog2 = log2(1, count)
            }
            if columnsLog2 > 0 || rowsLog2 > 0 {
                return bits.skip(columnsLog2 + rowsLog2 + 2)
            }
            return true
        }
    }
}
