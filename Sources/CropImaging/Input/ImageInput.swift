internal import CImagingShims

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of one image, opened once: a file descriptor read by position,
/// or bytes already in memory.
///
/// Everything a crop reads (the signature, the header and metadata, the
/// pixels, the checksums checked on another thread) comes through this one
/// handle, never through the path again, so the file cannot change between
/// the check and the use. Reads are by position (`pread`), so several
/// readers on several threads share it safely.
public final class ImageInput: @unchecked Sendable {
    /// The path it was opened from, or the name given to bytes in memory.
    public let name: String
    /// Its size when it was opened; nothing past it is read.
    public let byteCount: Int
    private let descriptor: Int32
    private let bytes: [UInt8]

    /// Opens the regular file at `path` for reading.
    ///
    /// Wraps `open(2)` (`O_RDONLY | O_CLOEXEC | O_NONBLOCK`, so that a FIFO
    /// or a device is refused at once instead of waiting for a writer) and
    /// `fstat(2)`; a path holding a NUL byte is refused before anything is
    /// asked of the system (C would open the name cut at the NUL).
    ///
    /// - Throws: ``ImagingError/cannotOpen(path:reason:)`` or
    ///   ``ImagingError/notARegularFile(path:)``.
    public init(path: String) throws(ImagingError) {
        if let reason = PathCheck.problem(path) {
            throw .cannotOpen(path: PathCheck.printable(path), reason: reason)
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .cannotOpen(path: path, reason: reason)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw .notARegularFile(path: path)
        }
        // Reads of a regular file never block; the flag is cleared anyway so
        // that the descriptor behaves as an ordinary one.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        self.name = path
        self.byteCount = Int(info.st_size)
        self.descriptor = descriptor
        self.bytes = []
        self.device = UInt64(info.st_dev)
        self.inode = UInt64(info.st_ino)
    }

    /// Wraps bytes already in memory (an upload, a test image).
    ///
    /// - Parameters:
    ///   - bytes: The whole file.
    ///   - name: What messages call it.
    public init(bytes: [UInt8], name: String = "(memory)") {
        self.name = name
        self.byteCount = bytes.count
        self.descriptor = -1
        self.bytes = bytes
        self.device = nil
        self.inode = nil
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The file's identity (device and inode), so an output can be refused
    /// when it is this very file; `nil` for bytes in memory.
    let device: UInt64?
    let inode: UInt64?

    /// Whether `path` names this same file (same device and inode).
    public func isSameFile(as path: String) -> Bool {
        guard let device, let inode else { return false }
        var other = stat()
        guard stat(path, &other) == 0 else { return false }
        return UInt64(other.st_dev) == device && UInt64(other.st_ino) == inode
    }

    /// Runs `body` with the C layer's view of these bytes (`ck_input`).
    func withCInput<R, E: Error>(_ body: (UnsafePointer<ck_input>) throws(E) -> R) throws(E) -> R {
        var input = ck_input()
        input.descriptor = descriptor
        input.size = UInt64(byteCount)
        if descriptor >= 0 {
            input.bytes = nil
            return try body(&input)
        }
        return try bytes.withUnsafeBufferPointer { buffer throws(E) -> R in
            input.bytes = buffer.baseAddress
            return try body(&input)
        }
    }

    /// Reads up to `buffer.count` bytes at `offset` (`pread`, through
    /// `ck_input_read`): the count read, fewer only at the end.
    ///
    /// - Throws: ``ImagingError/cannotRead(path:reason:)`` on a read error.
    func read(at offset: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) throws(ImagingError)
        -> Int
    {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let got = withCInput { ck_input_read($0, UInt64(offset), base, buffer.count) }
        guard got >= 0 else {
            throw .cannotRead(path: name, reason: String(cString: strerror(errno)))
        }
        return got
    }
}

extension ImageInput {
    /// Exactly `count` bytes at `offset`.
    ///
    /// - Throws: ``ImagingError/corrupt(format:detail:)`` when the input
    ///   ends first, or a read error.
    func read(at offset: Int, count: Int, format: ImageFormat) throws(ImagingError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = try bytes.withUnsafeMutableBufferPointer { buffer throws(ImagingError) in
            try read(at: offset, into: buffer)
        }
        guard got == count else {
            throw .corrupt(format: format, detail: "'\(name)' ends inside a segment (truncated)")
        }
        return bytes
    }
}

/// A forward reader over an ``ImageInput`` with skips, through a buffer of
/// its own: the whole file is never in memory, and each reader keeps its own
/// position, so several can read one input at once.
final class InputCursor {
    let input: ImageInput
    /// The input's size.
    var size: Int { input.byteCount }
    /// The position of the next byte read.
    private(set) var offset = 0
    private var buffer: [UInt8]
    /// The buffered bytes are the input's `[bufferStart, bufferStart + bufferCount)`.
    private var bufferStart = 0
    private var bufferCount = 0

    init(_ input: ImageInput, bufferSize: Int = 1 << 16) {
        self.input = input
        self.buffer = [UInt8](repeating: 0, count: bufferSize)
    }

    /// Bytes left after the position.
    var remaining: Int { size - offset }

    /// Exactly `count` bytes, or `nil` when the input ends first.
    ///
    /// - Throws: ``ImagingError`` on a read error.
    func read(_ count: Int) throws(ImagingError) -> [UInt8]? {
        guard count >= 0, count <= remaining else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(count)
        guard try forEachPiece(of: count, { out.append(contentsOf: $0) }) else { return nil }
        return out
    }

    /// Hands the next `count` bytes to `body` in pieces of at most the
    /// buffer's size, or returns `false` when the input ends first.
    ///
    /// - Throws: ``ImagingError`` on a read error.
    func forEachPiece(of count: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
        throws(ImagingError) -> Bool
    {
        guard count >= 0, count <= remaining else { return false }
        var left = count
        while left > 0 {
            try fill()
            let start = offset - bufferStart
            let piece = min(left, bufferCount - start)
            guard piece > 0 else { return false }
            buffer.withUnsafeBufferPointer {
                body(UnsafeBufferPointer(rebasing: $0[start..<start + piece]))
            }
            offset += piece
            left -= piece
        }
        return true
    }

    /// Moves `count` bytes forward without reading them; `false` past the end.
    func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        offset += count
        return true
    }

    /// Moves past JPEG entropy-coded data (and any fill bytes) to the next
    /// marker: returns its code with the position after it, or `nil` when
    /// the input ends first. A stuffed 0xFF00 and the restart markers
    /// RST0–RST7 belong to the data and are passed over. Linear in the bytes
    /// passed.
    ///
    /// - Throws: ``ImagingError`` on a read error.
    func nextJPEGMarker() throws(ImagingError) -> UInt8? {
        var sawFF = false
        while offset < size {
            try fill()
            let start = offset - bufferStart
            let end = bufferCount
            guard start < end else { return nil }
            var found: UInt8?
            let stop: Int = buffer.withUnsafeBufferPointer { bytes in
                guard let base = bytes.baseAddress else { return end }
                var i = start
                while i < end {
                    if sawFF {
                        let byte = bytes[i]
                        i += 1
                        if byte == 0xFF { continue }
                        sawFF = false
                        if byte == 0 || (0xD0...0xD7).contains(byte) { continue }
                        found = byte
                        return i
                    }
                    guard let hit = memchr(base + i, 0xFF, end - i) else { return end }
                    i = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit)) + 1
                    sawFF = true
                }
                return i
            }
            offset += stop - start
            if let found { return found }
        }
        return nil
    }

    /// Makes the buffer hold the byte at ``offset``, if the input has it.
    private func fill() throws(ImagingError) {
        if offset >= bufferStart && offset < bufferStart + bufferCount { return }
        bufferStart = offset
        bufferCount = try buffer.withUnsafeMutableBufferPointer { b throws(ImagingError) in
            try input.read(at: offset, into: b)
        }
    }
}

extension [UInt8] {
    /// The big-endian 32-bit value at `index`.
    func bigEndianUInt32(at index: Int) -> UInt32 {
        UInt32(self[index]) << 24 | UInt32(self[index + 1]) << 16 | UInt32(self[index + 2]) << 8
            | UInt32(self[index + 3])
    }
}
