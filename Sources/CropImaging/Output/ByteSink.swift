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
