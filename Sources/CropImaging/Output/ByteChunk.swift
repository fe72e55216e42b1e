/// Bytes that can be written out in place: array slices, and buffers the C
/// layer allocated.
public protocol ByteChunk {
    /// How many bytes.
    var byteCount: Int { get }
    /// Lends the bytes to `body` for the length of the call.
    func withChunkBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension ArraySlice: ByteChunk where Element == UInt8 {
    /// How many bytes.
    public var byteCount: Int { count }

    /// Lends the bytes to `body` for the length of the call.
    public func withChunkBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(body)
    }
}
