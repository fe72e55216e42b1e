/// GIF's variable-length LZW: a decoder into palette indices and an encoder
/// from them, written from the GIF89a specification (appendix F).
///
/// CropKit has its own codec rather than giflib's because a crop needs
/// both directions at the index level (giflib's encoder takes whole
/// files through its own I/O), and it measures as fast (Benchmarks/RESULTS.md).
enum GIFLZW {
    /// The `count` indices coded by `data` (the sub-blocks' payloads joined),
    /// whose first byte is the minimum code size. Codes after the frame's
    /// last pixel are ignored (`extra` says whether there were any); a
    /// stream that ends early throws, naming how many pixels it held.
    static func decode(_ data: [UInt8], count: Int, frame: Int) throws(ImagingError) -> (
        indices: [UInt8], extra: Bool
    ) {
        guard let minimum = data.first.map(Int.init), (2...8).contains(minimum) else {
            throw .corrupt(
                format: .gif, detail: "frame \(frame)'s LZW minimum code size is not 2 to 8")
        }
        var out = [UInt8](repeating: 0, count: count)
        let clear = 1 << minimum
        let end = clear + 1
        var prefix = [UInt16](repeating: 0, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        var first = [UInt8](repeating: 0, count: 4096)
        var lengths = [Int](repeating: 0, count: 4096)
        for code in 0..<clear {
            suffix[code] = UInt8(truncatingIfNeeded: code)
            first[code] = UInt8(truncatingIfNeeded: code)
            lengths[code] = 1
        }
        var size = minimum + 1
        var next = clear + 2
        var previous = -1
        var written = 0
        var extra = false
        var bits = 0
        var bitCount = 0
        var position = 1
        decoding: while written < count {
            while bitCount < size {
                guard position < data.count else { break decoding }
                bits |= Int(data[position]) << bitCount
                bitCount += 8
                position += 1
            }
            let code = bits & ((1 << size) - 1)
            bits >>= size
            bitCount -= size
            if code == clear {
                size = minimum + 1
                next = clear + 2
                previous = -1
                continue
            }
            if code == end { break }
            var entry = code
            var length: Int
            if previous < 0 {
                guard code < clear else {
                    throw .corrupt(
                        format: .gif,
                        detail: "frame \(frame)'s LZW data starts with code \(code), not a colour")
                }
                length = 1
            } else if code < next {
                length = lengths[code]
                if next < 4096 {
                    prefix[next] = UInt16(previous)
                    suffix[next] = first[code]
                    first[next] = first[previous]
                    lengths[next] = lengths[previous] + 1
                    next += 1
                }
            } else if code == next && next < 4096 {
                prefix[next] = UInt16(previous)
                suffix[next] = first[previous]
                first[next] = first[previous]
                lengths[next] = lengths[previous] + 1
                next += 1
                length = lengths[code]
            } else {
                throw .corrupt(
                    format: .gif,
                    detail: "frame \(frame)'s LZW data has code \(code) before it is defined")
            }
            // Write the entry's bytes back to front.
            let keep = min(length, count - written)
            if keep < length { extra = true }
            var skip = length - keep
            var at = written + keep - 1
            while skip > 0 {
                entry = Int(prefix[entry])
                skip -= 1
            }
            for _ in 0..<keep {
                out[at] = suffix[entry]
                entry = Int(prefix[entry])
                at -= 1
            }
            written += keep
            previous = code
            if next == 1 << size, size < 12 { size += 1 }
        }
        guard written == count else {
            throw .corrupt(
                format: .gif,
                detail:
                    "frame \(frame)'s LZW data holds \(written) of its \(count) pixels (truncated)")
        }
        return (out, extra)
    }

    /// The LZW data of `indices` at `minimum` bits (2–8), as sub-blocks
    /// after the minimum code size byte and through the terminator: what a
    /// GIF frame holds after its descriptor and colour table.
    static func encode(_ indices: [UInt8], minimum: Int) -> [UInt8] {
        var blocks = BlockWriter()
        blocks.out.append(UInt8(minimum))
        let clear = 1 << minimum
        let end = clear + 1
        var size = minimum + 1
        var next = clear + 2
        // Open addressing over (prefix << 8 | byte) → code.
        let slots = 1 << 13
        var keys = [Int32](repeating: -1, count: slots)
        var values = [UInt16](repeating: 0, count: slots)
        var bits = 0
        var bitCount = 0
        func emit(_ code: Int) {
            bits |= code << bitCount
            bitCount += size
            while bitCount >= 8 {
                blocks.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
                bitCount -= 8
            }
        }
        emit(clear)
        guard var current = indices.first.map(Int.init) else {
            emit(end)
            if bitCount > 0 { blocks.append(UInt8(truncatingIfNeeded: bits)) }
            return blocks.finish()
        }
        for index in indices.dropFirst() {
            let byte = Int(index)
            let key = Int32(current << 8 | byte)
            var slot = (Int(key) &* 0x9E37_79B1) >> 3 & (slots - 1)
            var found = -1
            while keys[slot] >= 0 {
                if keys[slot] == key {
                    found = Int(values[slot])
                    break
                }
                slot = (slot + 1) & (slots - 1)
            }
            if found >= 0 {
                current = found
                continue
            }
            emit(current)
            if next < 4096 {
                keys[slot] = key
                values[slot] = UInt16(next)
                next += 1
                if next > 1 << size, size < 12 { size += 1 }
                // next - 1 was just defined; the decoder widens when it
                // defines 1 << size, one code later than the encoder's
                // table fills, which `next > 1 << size` matches.
            } else {
                emit(clear)
                size = minimum + 1
                next = clear + 2
                for i in 0..<slots { keys[i] = -1 }
            }
            current = byte
        }
        emit(current)
        emit(end)
        if bitCount > 0 { blocks.append(UInt8(truncatingIfNeeded: bits)) }
        return blocks.finish()
    }

    /// Packs bytes into GIF data sub-blocks of at most 255 bytes.
    private struct BlockWriter {
        var out: [UInt8] = []
        var block: [UInt8] = []

        mutating func append(_ byte: UInt8) {
            block.append(byte)
            if block.count == 255 { flush() }
        }

        mutating func flush() {
            guard !block.isEmpty else { return }
            out.append(UInt8(block.count))
            out += block
            block.removeAll(keepingCapacity: true)
        }

        mutating func finish() -> [UInt8] {
            flush()
            out.append(0)
            return out
        }
    }

    /// The payloads of the sub-blocks in `blocks` (after the minimum code
    /// size byte, which is kept first).
    static func joined(_ blocks: [UInt8]) -> [UInt8] {
        guard let minimum = blocks.first else { return [] }
        var out: [UInt8] = [minimum]
        out.reserveCapacity(blocks.count)
        var i = 1
        while i < blocks.count {
            let size = Int(blocks[i])
            if size == 0 { break }
            let end = min(i + 1 + size, blocks.count)
            out += blocks[(i + 1)..<end]
            i = end
        }
        return out
    }
}
