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
