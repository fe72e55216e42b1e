/// GIF's variable-length LZW: a decoder into palette indices and an encoder
/// from them, written from the GIF89a specification (appendix F).
///
/// CropKit has its own codec rather than giflib's because a crop needs
/// both directions at the index level (giflib's encoder takes whole
/// files through its own I/O), and it measures as fast (Benchmarks/RESULTS.md).
enum GIFLZW {
    /// The `count` indices coded by `blocks`: the minimum code size byte,
    /// then the data sub-blocks (read in place, never joined). Codes after
    /// the frame's last pixel, or after the `count`th when fewer are asked
    /// for, are not decoded (`extra` says whether there were any); a stream
    /// that ends early throws, naming how many pixels it held.
    static func decode(_ blocks: [UInt8], count: Int, frame: Int) throws(ImagingError) -> (
        indices: [UInt8], extra: Bool
    ) {
        guard let minimum = blocks.first.map(Int.init), (2...8).contains(minimum) else {
            throw .corrupt(
                format: .gif, detail: "frame \(frame)'s LZW minimum code size is not 2 to 8")
        }
        var out = [UInt8](repeating: 0, count: count)
        // Every entry is written before it is read (a colour's length as it
        // is decoded, a string's as it is defined): left uninitialised, as
        // a frame of a few hundred pixels would otherwise clear 64 KB.
        var table = [Int](unsafeUninitializedCapacity: 2 * 4096) { _, count in count = 2 * 4096 }
        let run = blocks.withUnsafeBufferPointer { data in
            out.withUnsafeMutableBufferPointer { out in
                table.withUnsafeMutableBufferPointer { table in
                    decode(data, into: out, minimum: minimum, table: table)
                }
            }
        }
        let written = run.written
        let extra = run.extra
        var failure: String?
        if run.badCode >= 0 {
            failure =
                run.noPrevious
                ? "frame \(frame)'s LZW data starts with code \(run.badCode), not a colour"
                : "frame \(frame)'s LZW data has code \(run.badCode) before it is defined"
        }
        if let failure { throw .corrupt(format: .gif, detail: failure) }
        guard written == count else {
            throw .corrupt(
                format: .gif,
                detail:
                    "frame \(frame)'s LZW data holds \(written) of its \(count) pixels (truncated)")
        }
        return (out, extra)
    }

    /// The decoding loop, all its state in registers: every code's string
    /// is already in the output, contiguous (a new code is the previous
    /// code's string plus the byte written after it), so a code is where
    /// its string starts and its length (`table`: starts, then lengths),
    /// and decoding one is a forward copy, overlapping for the code being
    /// defined (K w K w K). Stops at the end code, the data's end or when
    /// `out` is full; `badCode` is the first code not yet defined, or -1
    /// (`noPrevious`: where a colour had to come, first or after a clear).
    private static func decode(
        _ data: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>,
        minimum: Int, table: UnsafeMutableBufferPointer<Int>
    ) -> (written: Int, extra: Bool, badCode: Int, noPrevious: Bool) {
        guard let base = data.baseAddress, let output = out.baseAddress,
            let starts = table.baseAddress
        else { return (0, false, -1, false) }
        let lengths = starts + 4096
        let count = out.count
        let clear = 1 << minimum
        let end = clear &+ 1
        var size = minimum &+ 1
        var mask = (1 << size) &- 1
        var next = clear &+ 2
        var previous = -1
        var previousStart = 0
        var written = 0
        var extra = false
        var bits: UInt = 0
        var bitCount = 0
        // The next byte, and where the current sub-block ends.
        var position = 1
        var blockEnd = 1
        let dataCount = data.count
        while written < count {
            if bitCount < size {
                // Up to 64 bits at a time, across sub-blocks.
                while bitCount <= 56 {
                    if position == blockEnd {
                        guard position < dataCount, base[position] != 0 else { break }
                        blockEnd = min(position &+ 1 &+ Int(base[position]), dataCount)
                        position &+= 1
                        if position == blockEnd { break }
                    }
                    bits |= UInt(base[position]) &<< bitCount
                    bitCount &+= 8
                    position &+= 1
                }
                if bitCount < size { break }
            }
            let code = Int(bits & UInt(mask))
            bits &>>= UInt(size)
            bitCount &-= size
            if code == clear {
                size = minimum &+ 1
                mask = (1 << size) &- 1
                next = clear &+ 2
                previous = -1
                continue
            }
            if code == end { break }
            let start = written
            if code < clear {
                output[written] = UInt8(truncatingIfNeeded: code)
                lengths[code] = 1
                written &+= 1
            } else if previous < 0 || code > next || (code == next && next == 4096) {
                return (written, extra, code, previous < 0)
            } else {
                let defined = code < next
                let from = defined ? starts[code] : previousStart
                let length = defined ? lengths[code] : lengths[previous] &+ 1
                var keep = count &- written
                if length < keep {
                    keep = length
                } else if length > keep {
                    extra = true
                }
                let source = output + from
                let target = output + written
                var i = 0
                while i < keep {
                    target[i] = source[i]
                    i &+= 1
                }
                written &+= keep
            }
            if previous >= 0 && next < 4096 {
                starts[next] = previousStart
                lengths[next] = lengths[previous] &+ 1
                next &+= 1
                if next == 1 << size && size < 12 {
                    size &+= 1
                    mask = (1 << size) &- 1
                }
            }
            previous = code
            previousStart = start
        }
        return (written, extra, -1, false)
    }

    /// The LZW data of `indices` at `minimum` bits (2–8), as sub-blocks
    /// after the minimum code size byte and through the terminator: what a
    /// GIF frame holds after its descriptor and colour table.
    static func encode(_ indices: [UInt8], minimum: Int) -> [UInt8] {
        // At most 12 bits a pixel, plus clear codes, plus a length byte
        // every 255: the bound the output is allocated at once.
        let bound = 4 + (indices.count + 2) * 2 + (indices.count + 2) * 2 / 255 + 2
        var out = [UInt8](repeating: 0, count: bound)
        // Open addressing over (prefix << 8 | byte) → code, sized for the
        // codes the frame can define (a small frame clears a small table).
        let slots = slots(for: indices.count)
        var keys = [Int32](repeating: -1, count: slots)
        var values = [UInt16](repeating: 0, count: slots)
        let used = indices.withUnsafeBufferPointer { indices in
            out.withUnsafeMutableBufferPointer { out in
                keys.withUnsafeMutableBufferPointer { keys in
                    values.withUnsafeMutableBufferPointer { values in
                        encode(indices, minimum: minimum, into: out, keys: keys, values: values)
                    }
                }
            }
        }
        out.removeLast(out.count - used)
        return out
    }

    /// The hash table's size: a power of two at least twice the codes
    /// `count` indices can define (one a pixel, at most 4096), so that
    /// probing stays short; never more than 8192.
    static func slots(for count: Int) -> Int {
        var slots = 256
        while slots < 2 * min(count + 1, 4096) { slots <<= 1 }
        return slots
    }

    /// Codes written as GIF sub-blocks: bits least significant first, a
    /// length byte before every 255 bytes.
    private struct BlockBits {
        let out: UnsafeMutablePointer<UInt8>
        var bits: UInt = 0
        var bitCount = 0
        /// The open sub-block's length byte, its length, the next byte.
        var lengthAt = 1
        var blockLength = 0
        var at = 2

        @inline(__always)
        mutating func emit(_ code: Int, size: Int) {
            bits |= UInt(code) &<< bitCount
            bitCount &+= size
            while bitCount >= 8 {
                out[at] = UInt8(truncatingIfNeeded: bits)
                at &+= 1
                bits &>>= 8
                bitCount &-= 8
                blockLength &+= 1
                if blockLength == 255 {
                    out[lengthAt] = 255
                    lengthAt = at
                    at &+= 1
                    blockLength = 0
                }
            }
        }

        /// Flushes the last bits and writes the terminator; the bytes used.
        mutating func finish() -> Int {
            if bitCount > 0 {
                out[at] = UInt8(truncatingIfNeeded: bits)
                at &+= 1
                blockLength &+= 1
            }
            guard blockLength > 0 else {
                // The open sub-block is empty: its length byte is the
                // terminator.
                out[lengthAt] = 0
                return lengthAt + 1
            }
            out[lengthAt] = UInt8(blockLength)
            out[at] = 0
            return at + 1
        }
    }

    /// The encoding loop; the bytes of `out` used.
    private static func encode(
        _ indices: UnsafeBufferPointer<UInt8>, minimum: Int,
        into out: UnsafeMutableBufferPointer<UInt8>, keys: UnsafeMutableBufferPointer<Int32>,
        values: UnsafeMutableBufferPointer<UInt16>
    ) -> Int {
        guard let base = out.baseAddress else { return 0 }
        base[0] = UInt8(minimum)
        var sink = BlockBits(out: base)
        let clear = 1 << minimum
        let end = clear &+ 1
        var size = minimum &+ 1
        var next = clear &+ 2
        sink.emit(clear, size: size)
        guard indices.count > 0 else {
            sink.emit(end, size: size)
            return sink.finish()
        }
        var current = Int(indices[0])
        let slotMask = keys.count &- 1
        var i = 1
        let count = indices.count
        while i < count {
            let byte = Int(indices[i])
            i &+= 1
            let key = Int32(truncatingIfNeeded: current &<< 8 | byte)
            var slot = (Int(key) &* 0x9E37_79B1) &>> 3 & slotMask
            var found = -1
            while keys[slot] >= 0 {
                if keys[slot] == key {
                    found = Int(values[slot])
                    break
                }
                slot = (slot &+ 1) & slotMask
            }
            if found >= 0 {
                current = found
                continue
            }
            sink.emit(current, size: size)
            if next < 4096 {
                keys[slot] = key
                values[slot] = UInt16(truncatingIfNeeded: next)
                next &+= 1
                // next - 1 was just defined; the decoder widens when it
                // defines 1 << size, one code later than the encoder's
                // table fills, which `next > 1 << size` matches.
                if next > 1 << size && size < 12 { size &+= 1 }
            } else {
                sink.emit(clear, size: size)
                size = minimum &+ 1
                next = clear &+ 2
                keys.update(repeating: -1)
            }
            current = byte
        }
        sink.emit(current, size: size)
        sink.emit(end, size: size)
        return sink.finish()
    }
}
