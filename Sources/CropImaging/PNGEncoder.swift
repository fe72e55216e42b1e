internal import CImagingShims

/// Writes PNG files: CropKit's own chunk writer, with filtered rows
/// compressed by libdeflate or zlib. Output is never interlaced.
public struct PNGEncoder: Sendable {
    public var compressor: Compressor
    /// The DEFLATE level (zlib 1–9, libdeflate 1–12).
    public var level: Int

    public init(compressor: Compressor = .automatic, level: Int = 6) {
        self.compressor = compressor
        self.level = level
    }

    /// The PNG file for `image`: its format, its carried chunks, its pixels.
    ///
    /// Rows are filtered per row by the minimum-sum-of-absolute-differences
    /// heuristic (as libpng and Pillow do), except palette and sub-byte images,
    /// which compress best unfiltered.
    ///
    /// - Throws: ``ImagingError`` when compression fails.
    public func encode(_ image: RasterImage) throws(ImagingError) -> [UInt8] {
        let filtered = PNGEncoder.filteredRows(image)
        let compressed = try filtered.withUnsafeBufferPointer { rows throws(ImagingError) in
            try compressor.zlibStream(rows, level: level)
        }
        var out: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        out.reserveCapacity(compressed.count + 1024)
        var header = [UInt8]()
        header.appendBigEndian(UInt32(image.width))
        header.appendBigEndian(UInt32(image.height))
        header += [UInt8(image.bitDepth), image.colorType.rawValue, 0, 0, 0]
        appendChunk("IHDR", header, to: &out)
        for chunk in image.chunks { appendChunk(chunk.type, chunk.data, to: &out) }
        let piece = 1 << 20
        var start = 0
        repeat {
            let end = min(start + piece, compressed.count)
            appendChunk("IDAT", compressed[start..<end], to: &out)
            start = end
        } while start < compressed.count
        appendChunk("IEND", [], to: &out)
        return out
    }

    /// Every row packed to the file's bit depth and prefixed by its filter type.
    static func filteredRows(_ image: RasterImage) -> [UInt8] {
        let packedRowBytes = (image.width * image.colorType.channels * image.bitDepth + 7) / 8
        let stride = packedRowBytes + 1
        var out = [UInt8](repeating: 0, count: stride * image.height)
        let filterBytesPerPixel = max(1, image.colorType.channels * image.bitDepth / 8)
        let adaptive = image.colorType != .palette && image.bitDepth >= 8
        var packed = [UInt8](repeating: 0, count: image.bitDepth < 8 ? packedRowBytes : 0)
        image.samples.withUnsafeBufferPointer { samples in
            out.withUnsafeMutableBufferPointer { out in
                var scratch = [UInt8](repeating: 0, count: packedRowBytes * 5)
                scratch.withUnsafeMutableBufferPointer { scratch in
                    let zeros = UnsafeMutableBufferPointer(
                        rebasing: scratch[(packedRowBytes * 4)...])
                    for y in 0..<image.height {
                        let target = out.baseAddress! + y * stride
                        let row: UnsafePointer<UInt8>
                        if image.bitDepth < 8 {
                            pack(
                                samples.baseAddress! + y * image.rowBytes,
                                count: image.width * image.colorType.channels,
                                depth: image.bitDepth, into: &packed)
                            packed.withUnsafeBufferPointer {
                                (target + 1).update(from: $0.baseAddress!, count: packedRowBytes)
                            }
                            target[0] = 0
                            continue
                        }
                        row = samples.baseAddress! + y * image.rowBytes
                        let prior: UnsafePointer<UInt8> =
                            y > 0
                            ? samples.baseAddress! + (y - 1) * image.rowBytes
                            : UnsafePointer(zeros.baseAddress!)
                        if adaptive {
                            target[0] = chooseFilter(
                                row: row, prior: prior, count: packedRowBytes,
                                bpp: filterBytesPerPixel,
                                output: target + 1, scratch: scratch.baseAddress!)
                        } else {
                            target[0] = 0
                            (target + 1).update(from: row, count: packedRowBytes)
                        }
                    }
                }
            }
        }
        return out
    }
}

/// Packs one row of unpacked sub-byte samples, most significant bits first.
private func pack(_ samples: UnsafePointer<UInt8>, count: Int, depth: Int, into out: inout [UInt8])
{
    let perByte = 8 / depth
    for i in 0..<out.count { out[i] = 0 }
    for i in 0..<count {
        let shift = 8 - depth * (i % perByte + 1)
        out[i / perByte] |= samples[i] << UInt8(shift)
    }
}

/// Writes the best of the five filters of `row` to `output` and returns its
/// type: the one whose bytes, read as signed, have the least absolute sum.
///
/// `prior` is the previous row (zeros for the first). All four filtered rows
/// and their costs come out of one pass.
private func chooseFilter(
    row: UnsafePointer<UInt8>, prior: UnsafePointer<UInt8>, count: Int, bpp: Int,
    output: UnsafeMutablePointer<UInt8>, scratch: UnsafeMutablePointer<UInt8>
) -> UInt8 {
    @inline(__always) func cost(_ v: UInt8) -> Int { Int(Int8(bitPattern: v).magnitude) }
    let sub = scratch
    let up = scratch + count
    let average = scratch + 2 * count
    let paeth = scratch + 3 * count
    var costs = (none: 0, sub: 0, up: 0, average: 0, paeth: 0)
    let lead = min(bpp, count)
    for i in 0..<lead {
        // No left neighbour: a = c = 0, so Sub is None and Paeth is Up.
        let x = row[i]
        let b = prior[i]
        sub[i] = x
        up[i] = x &- b
        average[i] = x &- (b >> 1)
        paeth[i] = x &- b
        costs.none &+= cost(x)
        costs.sub &+= cost(x)
        costs.up &+= cost(up[i])
        costs.average &+= cost(average[i])
        costs.paeth &+= cost(paeth[i])
    }
    for i in lead..<count {
        let x = row[i]
        let a = row[i - bpp]
        let b = prior[i]
        let c = prior[i - bpp]
        let s = x &- a
        let u = x &- b
        let v = x &- UInt8((UInt16(a) + UInt16(b)) >> 1)
        let pa = abs(Int(b) - Int(c))
        let pb = abs(Int(a) - Int(c))
        let pc = abs(Int(a) + Int(b) - 2 * Int(c))
        let predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
        let t = x &- predictor
        sub[i] = s
        up[i] = u
        average[i] = v
        paeth[i] = t
        costs.none &+= cost(x)
        costs.sub &+= cost(s)
        costs.up &+= cost(u)
        costs.average &+= cost(v)
        costs.paeth &+= cost(t)
    }
    var bestType: UInt8 = 0
    var bestCost = costs.none
    for (type, candidate) in [
        (UInt8(1), costs.sub), (2, costs.up), (3, costs.average), (4, costs.paeth),
    ]
    where candidate < bestCost {
        bestCost = candidate
        bestType = type
    }
    let chosen: UnsafePointer<UInt8> =
        switch bestType {
        case 1: UnsafePointer(sub)
        case 2: UnsafePointer(up)
        case 3: UnsafePointer(average)
        case 4: UnsafePointer(paeth)
        default: row
        }
    output.update(from: chosen, count: count)
    return bestType
}

/// Appends one chunk (length, type, data, CRC).
private func appendChunk<Data: Collection<UInt8>>(
    _ type: String, _ data: Data, to out: inout [UInt8]
) {
    out.appendBigEndian(UInt32(data.count))
    let start = out.count
    out += Array(type.utf8)
    out += data
    let crc = out.withUnsafeBufferPointer { ck_crc32(0, $0.baseAddress! + start, $0.count - start) }
    out.appendBigEndian(crc)
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [
            UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF),
            UInt8(value & 0xFF),
        ])
    }
}
