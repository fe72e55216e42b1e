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
                var scratch = [UInt8](repeating: 0, count: packedRowBytes * 4)
                scratch.withUnsafeMutableBufferPointer { scratch in
                    for y in 0..<image.height {
                        let target = out.baseAddress! + y * stride
                        let row: UnsafePointer<UInt8>
                        if image.bitDepth < 8 {
                            pack(samples.baseAddress! + y * image.rowBytes, count: image.width * image.colorType.channels, depth: image.bitDepth, into: &packed)
                            packed.withUnsafeBufferPointer { (target + 1).update(from: $0.baseAddress!, count: packedRowBytes) }
                            target[0] = 0
                            continue
                        }
                        row = samples.baseAddress! + y * image.rowBytes
                        let prior: UnsafePointer<UInt8>? = y > 0 ? samples.baseAddress! + (y - 1) * image.rowBytes : nil
                        if adaptive {
                            target[0] = chooseFilter(
                                row: row, prior: prior, count: packedRowBytes, bpp: filterBytesPerPixel,
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
private func pack(_ samples: UnsafePointer<UInt8>, count: Int, depth: Int, into out: inout [UInt8]) {
    let perByte = 8 / depth
    for i in 0..<out.count { out[i] = 0 }
    for i in 0..<count {
        let shift = 8 - depth * (i % perByte + 1)
        out[i / perByte] |= samples[i] << UInt8(shift)
    }
}

/// Writes the best of the five filters of `row` to `output` and returns its
/// type: the one whose bytes, read as signed, have the least absolute sum.
private func chooseFilter(
    row: UnsafePointer<UInt8>, prior: UnsafePointer<UInt8>?, count: Int, bpp: Int,
    output: UnsafeMutablePointer<UInt8>, scratch: UnsafeMutablePointer<UInt8>
) -> UInt8 {
    @inline(__always) func cost(_ p: UnsafePointer<UInt8>) -> Int {
        var sum = 0
        for i in 0..<count { sum &+= Int(Int8(bitPattern: p[i]).magnitude) }
        return sum
    }
    let sub = scratch
    let up = scratch + count
    let average = scratch + 2 * count
    let paeth = scratch + 3 * count
    for i in 0..<count {
        let a = i >= bpp ? row[i - bpp] : 0
        let b = prior?[i] ?? 0
        let c = (i >= bpp ? prior?[i - bpp] : nil) ?? 0
        let x = row[i]
        sub[i] = x &- a
        up[i] = x &- b
        average[i] = x &- UInt8((Int(a) + Int(b)) >> 1)
        let p = Int(a) + Int(b) - Int(c)
        let pa = abs(p - Int(a))
        let pb = abs(p - Int(b))
        let pc = abs(p - Int(c))
        let predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
        paeth[i] = x &- predictor
    }
    var bestType: UInt8 = 0
    var bestCost = cost(row)
    for (type, candidate) in [(UInt8(1), sub), (2, up), (3, average), (4, paeth)] {
        let candidateCost = cost(UnsafePointer(candidate))
        if candidateCost < bestCost {
            bestCost = candidateCost
            bestType = type
        }
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
private func appendChunk<Data: Collection<UInt8>>(_ type: String, _ data: Data, to out: inout [UInt8]) {
    out.appendBigEndian(UInt32(data.count))
    let start = out.count
    out += Array(type.utf8)
    out += data
    let crc = out.withUnsafeBufferPointer { ck_crc32(0, $0.baseAddress! + start, $0.count - start) }
    out.appendBigEndian(crc)
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}
