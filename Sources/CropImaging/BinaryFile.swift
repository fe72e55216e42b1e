#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file read forwards in small pieces, with skips: the whole file is never
/// in memory. Wraps stdio (`fopen`, `fread`, `fseeko`).
final class BinaryFile {
    private let handle: UnsafeMutablePointer<FILE>
    let path: String
    let size: Int
    private(set) var offset = 0

    init(path: String) throws(ImagingError) {
        guard let handle = fopen(path, "rb") else {
            throw ImagingError(
                .cannotOpen, "cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(fileno(handle), &info) == 0 else {
            fclose(handle)
            throw ImagingError(.cannotOpen, "cannot read '\(path)'")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            fclose(handle)
            throw ImagingError(.cannotOpen, "'\(path)' is not a regular file")
        }
        self.handle = handle
        self.path = path
        self.size = Int(info.st_size)
    }

    deinit { fclose(handle) }

    var remaining: Int { size - offset }

    /// Exactly `count` bytes, or `nil` at a short read.
    func read(_ count: Int) -> [UInt8]? {
        guard count >= 0, count <= remaining else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, count, handle) }
        offset += got
        return got == count ? bytes : nil
    }

    /// Reads `count` bytes into a reused buffer and hands them to `body`, or
    /// returns `nil` at a short read.
    func withBytes<T>(_ count: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        guard count >= 0, count <= remaining else { return nil }
        if scratch.count < count { scratch = [UInt8](repeating: 0, count: count) }
        let got = scratch.withUnsafeMutableBytes { fread($0.baseAddress, 1, count, handle) }
        offset += got
        guard got == count else { return nil }
        return scratch.withUnsafeBufferPointer {
            body(UnsafeBufferPointer(rebasing: $0[0..<count]))
        }
    }

    private var scratch: [UInt8] = []

    /// Moves `count` bytes forward without reading them.
    func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        guard fseeko(handle, off_t(offset + count), SEEK_SET) == 0 else { return false }
        offset += count
        return true
    }
}

extension [UInt8] {
    /// The big-endian 32-bit value at `index`.
    func bigEndianUInt32(at index: Int) -> UInt32 {
        UInt32(self[index]) << 24 | UInt32(self[index + 1]) << 16 | UInt32(self[index + 2]) << 8
            | UInt32(self[index + 3])
    }
}
