internal import CImagingShims

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

/// A buffer from the C layer's malloc, freed (ck_free) when the last
/// reference goes; `range` selects the bytes it stands for.
final class MallocBytes: ByteChunk, @unchecked Sendable {
    private let base: UnsafeMutablePointer<UInt8>
    private let owner: MallocOwner
    let range: Range<Int>

    /// The owner of one malloc'd block, shared by the chunks cut from it.
    final class MallocOwner {
        let pointer: UnsafeMutablePointer<UInt8>
        init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }
        deinit { ck_free(pointer) }
    }

    init(owner: MallocOwner, range: Range<Int>) {
        self.owner = owner
        self.base = owner.pointer
        self.range = range
    }

    var byteCount: Int { range.count }

    func withChunkBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
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
