/// Collects everything written into one array: an export to memory.
public final class MemorySink: RewritableByteSink {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty sink.
    public init() {}

    /// Appends `chunk`.
    public func write(_ chunk: any ByteChunk) throws(ImagingError) {
        chunk.withChunkBytes { bytes.append(contentsOf: $0) }
    }

    /// Writes `bytes` over those at `offset`.
    public func rewrite(at offset: Int, with bytes: [UInt8]) throws(ImagingError) {
        precondition(offset >= 0 && offset + bytes.count <= self.bytes.count, "written already")
        self.bytes.replaceSubrange(offset..<offset + bytes.count, with: bytes)
    }
}
