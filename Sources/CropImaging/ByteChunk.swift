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

/// Where an encoder's bytes go, in order: a file being written atomically
/// (``AtomicFile/Writer``), memory (``MemorySink``), or anything else that
/// takes bytes.
public protocol ByteSink: AnyObject {
    /// Takes the next bytes of the output.
    ///
    /// - Throws: ``ImagingError`` when they cannot be written; the encoder
    ///   stops.
    func write(_ chunk: any ByteChunk) throws(ImagingError)
}

/// Collects everything written into one array: an export to memory.
public final class MemorySink: ByteSink {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty sink.
    public init() {}

    /// Appends `chunk`.
    public func write(_ chunk: any ByteChunk) throws(ImagingError) {
        chunk.withChunkBytes { bytes.append(contentsOf: $0) }
    }
}
