/// Bytes that can be written out in place: array slices, and buffers the C
/// layer allocated.
public protocol ByteChunk {
    var byteCount: Int { get }
    func withChunkBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension ArraySlice: ByteChunk where Element == UInt8 {
    public var byteCount: Int { count }

    public func withChunkBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(body)
    }
}

/// Where an encoder's bytes go, in order.
public protocol PNGSink: AnyObject {
    func write(_ chunk: any ByteChunk) throws(ImagingError)
}

/// Collects everything written into one array.
final class ByteCollector: PNGSink {
    private(set) var bytes: [UInt8] = []

    func write(_ chunk: any ByteChunk) throws(ImagingError) {
        chunk.withChunkBytes { bytes.append(contentsOf: $0) }
    }
}
