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

/// A sink whose bytes already written can be written again in place: a
/// container whose header states sizes known only at the end (a RIFF
/// form) is streamed, then its header mended, rather than held whole.
public protocol RewritableByteSink: ByteSink {
    /// Writes `bytes` over the bytes at `offset`, which must all have been
    /// written already.
    ///
    /// - Throws: ``ImagingError`` when they cannot be written.
    func rewrite(at offset: Int, with bytes: [UInt8]) throws(ImagingError)
}
