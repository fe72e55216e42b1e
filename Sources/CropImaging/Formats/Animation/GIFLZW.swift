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
        // Open addressing over (prefix << 8 | byte) → code, one 32-bit
        // entry a slot: the key above the code's 12 bits, 0 for an empty
        // slot (no code is 0: the first a table defines is 4). Sized for
        // the codes the frame can define (a small frame clears a small
        // table); 8192 slots are 32 KB.
        var entries = [UInt32](repeating: 0, count: slots(for: indices.count))
        // The codes as one run of bits first: at most a code a pixel, a
        // clear code every 4096 codes and the first clear and the end, at
        // most 12 bits each, and room for the last 4-byte store.
        let codes = indices.count + indices.count / 256 + 4
        let bound = (codes * 12 + 7) / 8 + 8
        let bits = [UInt8](unsafeUninitializedCapacity: bound) { raw, used in
            used = indices.withUnsafeBufferPointer { indices in
                entries.withUnsafeMutableBufferPointer { entries in
                    encode(indices, minimum: minimum, into: raw, entries: entries)
                }
            }
        }
        // Then cut into sub-blocks of 255 bytes, each after its length.
        let blocks = (bits.count + 254) / 255
        return [UInt8](unsafeUninitializedCapacity: bits.count + blocks + 2) { out, used in
            out[0] = UInt8(minimum)
            var at = 1
            var from = 0
            while from < bits.count {
                let length = min(255, bits.count - from)
                out[at] = UInt8(length)
                _ = UnsafeMutableBufferPointer(rebasing: out[(at + 1)...])
                    .initialize(from: bits[from..<(from + length)])
                at += 1 + length
                from += length
            }
            out[at] = 0
            used = at + 1
        }
    }

    /// The hash table's size: a power of two at least twice the codes
    /// `count` indices can define (one a pixel, at most 4096), so that
    /// probing stays short; never more than 8192.
    static func slots(for count: Int) -> Int {
        var slots = 256
        while slots < 2 * min(count + 1, 4096) { slots <<= 1 }
        return slots
    }

    /// Codes written least significant bit first into one run of bytes,
    /// four at a time (``encode(_:minimum:)`` cuts it into sub-blocks).
    private struct CodeBits {
        let out: UnsafeMutableRawPointer
        var bits: UInt64 = 0
        var bitCount = 0
        var at = 0

        @inline(__always)
        mutating func emit(_ code: Int, size: Int) {
            bits |= UInt64(truncatingIfNeeded: code) &<< UInt64(bitCount)
            bitCount &+= size
            if bitCount >= 32 {
                out.storeBytes(
                    of: UInt32(truncatingIfNeeded: bits).littleEndian, toByteOffset: at,
                    as: UInt32.self)
                at &+= 4
                bits &>>= 32
                bitCount &-= 32
            }
        }

        /// Writes the last bits; the bytes used.
        mutating func finish() -> Int {
            while bitCount > 0 {
                out.storeBytes(
                    of: UInt8(truncatingIfNeeded: bits), toByteOffset: at, as: UInt8.self)
                at &+= 1
                bits &>>= 8
                bitCount &-= 8
            }
            return at
        }
    }

    /// The encoding loop: the codes' bits into `out`; the bytes used.
    private static func encode(
        _ indices: UnsafeBufferPointer<UInt8>, minimum: Int,
        into out: UnsafeMutableBufferPointer<UInt8>, entries: UnsafeMutableBufferPointer<UInt32>
    ) -> Int {
        guard let base = out.baseAddress else { return 0 }
        var sink = CodeBits(out: UnsafeMutableRawPointer(base))
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
        let slotMask = entries.count &- 1
        var i = 1
        let count = indices.count
        while i < count {
            let byte = Int(indices[i])
            i &+= 1
            let key = current &<< 8 | byte
            let wanted = UInt32(truncatingIfNeeded: key &<< 12)
            var slot = (key &* 0x9E37_79B1) &>> 3 & slotMask
            var found = -1
            while true {
                let entry = entries[slot]
                if entry == 0 { break }
                if entry & 0xFFFF_F000 == wanted {
                    found = Int(entry & 0xFFF)
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
                entries[slot] = wanted | UInt32(truncatingIfNeeded: next)
                next &+= 1
                // next - 1 was just defined; the decoder widens when it
                // defines 1 << size, one code later than the encoder's
                // table fills, which `next > 1 << size` matches.
                if next > 1 << size && size < 12 { size &+= 1 }
            } else {
                sink.emit(clear, size: size)
                size = minimum &+ 1
                next = clear &+ 2
                entries.update(repeating: 0)
            }
            current = byte
        }
        sink.emit(current, size: size)
        sink.emit(end, size: size)
        return sink.finish()
    }
}
