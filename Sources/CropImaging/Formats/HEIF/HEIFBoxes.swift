/// Reading ISOBMFF boxes (ISO/IEC 14496-12) from bytes already in memory,
/// every size checked against what holds it: a box never reaches past its
/// parent, a count never promises more entries than its bytes hold.
struct HEIFReader {
    let bytes: [UInt8]
    private(set) var offset: Int
    let end: Int

    init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self.offset = start
        self.end = end ?? bytes.count
    }

    var remaining: Int { end - offset }

    /// Refuses to read `count` bytes past the end.
    private func need(_ count: Int, _ what: @autoclosure () -> String) throws(ImagingError) {
        guard count >= 0, count <= remaining else {
            throw .corrupt(format: .heif, detail: "\(what()) runs past the end of its box")
        }
    }

    mutating func u8(_ what: @autoclosure () -> String) throws(ImagingError) -> Int {
        try need(1, what())
        defer { offset += 1 }
        return Int(bytes[offset])
    }

    mutating func u16(_ what: @autoclosure () -> String) throws(ImagingError) -> Int {
        try need(2, what())
        defer { offset += 2 }
        return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    mutating func u32(_ what: @autoclosure () -> String) throws(ImagingError) -> Int {
        try need(4, what())
        defer { offset += 4 }
        return (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
    }

    /// An unsigned big-endian number of `size` bytes (0, 4 or 8; 0 reads
    /// as 0), refused above `Int.max`.
    mutating func unsigned(size: Int, _ what: @autoclosure () -> String) throws(ImagingError)
        -> Int
    {
        guard size == 0 || size == 4 || size == 8 else {
            throw .corrupt(format: .heif, detail: "\(what()) has a field size of \(size) bytes")
        }
        try need(size, what())
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[offset + i]) }
        offset += size
        guard value <= UInt64(Int.max) else {
            throw .corrupt(format: .heif, detail: "\(what()) is \(value), beyond any file")
        }
        return Int(value)
    }

    mutating func fourCC(_ what: @autoclosure () -> String) throws(ImagingError) -> String {
        try need(4, what())
        defer { offset += 4 }
        return HEIFReader.fourCC(bytes[offset..<offset + 4])
    }

    /// A NUL-terminated UTF-8 string (or the rest of the box, if the NUL is
    /// missing).
    mutating func string() -> String {
        let stop = bytes[offset..<end].firstIndex(of: 0) ?? end
        defer { offset = min(stop + 1, end) }
        return String(decoding: bytes[offset..<stop], as: UTF8.self)
    }

    mutating func skip(_ count: Int, _ what: @autoclosure () -> String) throws(ImagingError) {
        try need(count, what())
        offset += count
    }

    mutating func take(_ count: Int, _ what: @autoclosure () -> String) throws(ImagingError)
        -> ArraySlice<UInt8>
    {
        try need(count, what())
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// The next child box: its type and the range of its payload (after
    /// the header); `nil` at the end. A size of 0 runs to the parent's end.
    mutating func box(in container: String) throws(ImagingError) -> HEIFBox? {
        guard remaining > 0 else { return nil }
        let start = offset
        var size = try u32("a box header in '\(container)'")
        let type = try fourCC("a box header in '\(container)'")
        if size == 1 {
            size = try unsigned(size: 8, "the 64-bit size of '\(type)' in '\(container)'")
        } else if size == 0 {
            size = end - start
        }
        let header = offset - start
        guard size >= header else {
            throw .corrupt(
                format: .heif,
                detail:
                    "box '\(type)' in '\(container)' declares \(size) bytes, less than its header")
        }
        guard size <= end - start else {
            throw .corrupt(
                format: .heif,
                detail:
                    "box '\(type)' in '\(container)' declares \(size) bytes; only \(end - start) remain"
            )
        }
        offset = start + size
        return HEIFBox(type: type, payload: start + header..<start + size, start: start)
    }

    static func fourCC(_ bytes: some Collection<UInt8>) -> String {
        String(
            bytes.map { $0 >= 0x20 && $0 < 0x7F ? Character(UnicodeScalar($0)) : "?" })
    }
}

/// A box found by ``HEIFReader/box(in:)``.
struct HEIFBox {
    let type: String
    /// Where its payload lies in the bytes it was read from.
    let payload: Range<Int>
    /// Where the box (its header) starts.
    let start: Int

    /// The whole box, header included.
    var whole: Range<Int> { start..<payload.upperBound }

    /// A reader over the payload.
    func reader(_ bytes: [UInt8]) -> HEIFReader {
        HEIFReader(bytes, from: payload.lowerBound, to: payload.upperBound)
    }

    /// A reader over the payload after a full box's version and flags.
    func fullReader(_ bytes: [UInt8]) throws(ImagingError) -> (
        reader: HEIFReader, version: Int, flags: Int
    ) {
        var reader = reader(bytes)
        let word = try reader.u32("the version of '\(type)'")
        return (reader, word >> 24, word & 0xFF_FFFF)
    }
}

/// Writing boxes: the size is filled in when the box closes.
struct HEIFBoxWriter {
    private(set) var bytes: [UInt8] = []
    private var open: [Int] = []

    mutating func begin(_ type: String, version: Int? = nil, flags: Int = 0) {
        open.append(bytes.count)
        u32(0)
        bytes += Array(type.utf8)
        if let version { u32(version << 24 | flags) }
    }

    mutating func end() {
        let start = open.removeLast()
        let size = bytes.count - start
        precondition(size <= Int(UInt32.max), "a box of \(size) bytes needs a 64-bit size")
        for i in 0..<4 { bytes[start + i] = UInt8(truncatingIfNeeded: size >> (24 - 8 * i)) }
    }

    mutating func u8(_ value: Int) { bytes.append(UInt8(truncatingIfNeeded: value)) }
    mutating func u16(_ value: Int) {
        bytes += [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
    mutating func u32(_ value: Int) {
        for shift in stride(from: 24, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }
    mutating func fourCC(_ type: String) { bytes += Array(type.utf8) }
    mutating func append(_ data: some Sequence<UInt8>) { bytes += data }
    mutating func string(_ text: String) { bytes += Array(text.utf8) + [0] }

    /// A whole box of `type` holding `payload`, a full box (its version
    /// and flags 0 first) when `version` is given.
    static func box(_ type: String, version: Int? = nil, _ payload: [UInt8]) -> [UInt8] {
        var w = HEIFBoxWriter()
        w.begin(type, version: version)
        w.append(payload)
        w.end()
        return w.bytes
    }

    /// Overwrites the 32-bit number at `index` (an offset patched once the
    /// layout is known).
    mutating func patch(u32 value: Int, at index: Int) {
        for i in 0..<4 { bytes[index + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
    }
}
