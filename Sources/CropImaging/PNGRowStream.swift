internal import CImagingShims

/// A PNG file written while its rows are still being produced: the head
/// (signature, IHDR, carried chunks) goes out at once, then the C layer's
/// `ck_stream` filters and compresses bands of rows on ``PNGEncoder/threads``
/// threads as soon as the decoder reports them final, and writes each band as
/// an IDAT chunk, in order, through ``PNGSink``; ``finish(abandon:)`` waits
/// for the last band and writes IEND.
///
/// A crop is thus compressed while the rows below it are decoded: the
/// decode, the filters and the compression overlap instead of following
/// one another. Needs libdeflate.
final class PNGRowStream {
    private let encoder: PNGEncoder
    private let sink: any PNGSink
    private let height: Int
    private let rowBytes: Int
    private let bytesPerPixel: Int
    private let filter: Bool
    private var handle: OpaquePointer?
    /// The first error a band write hit (the C layer only sees a status).
    private var writeFailure: ImagingError?
    /// Bytes written so far.
    private(set) var written = 0
    /// How many bands were compressed at each libdeflate level.
    private(set) var bandLevels: [Int: Int] = [:]

    /// Writes the file's head to `sink`.
    ///
    /// - Throws: ``ImagingError`` `.unsupported` when libdeflate is missing,
    ///   or the sink's error.
    init(
        encoder: PNGEncoder, width: Int, height: Int, colorType: PNGColorType, bitDepth: Int,
        chunks: [PNGChunk], sink: some PNGSink
    ) throws(ImagingError) {
        guard Compressor.isLibdeflateAvailable else {
            throw ImagingError(
                .unsupported,
                "libdeflate is not installed (Debian: libdeflate0); use --compressor zlib")
        }
        self.encoder = encoder
        self.sink = sink
        self.height = height
        self.rowBytes = (width * colorType.channels * bitDepth + 7) / 8
        self.bytesPerPixel = max(1, colorType.channels * bitDepth / 8)
        // Palette and sub-byte images compress best unfiltered.
        self.filter = bitDepth >= 8 && colorType != .palette
        let head = PNGEncoder.head(
            width: width, height: height, colorType: colorType, bitDepth: bitDepth, chunks: chunks)
        try sink.write(head[...])
        written = head.count
    }

    deinit {
        if let handle { _ = ck_stream_finish(handle, 1, nil, nil) }
    }

    /// Starts compressing `pixels` (`height` rows, packed as the file stores
    /// them), which must stay valid and unchanged in each row once reported,
    /// until ``finish(abandon:)``. Returns the stream to report rows to.
    func start(pixels: UnsafePointer<UInt8>) throws(ImagingError) -> OpaquePointer {
        var config = ck_stream_config()
        config.pixels = pixels
        config.row_bytes = rowBytes
        config.height = UInt32(height)
        config.bpp = bytesPerPixel
        config.filter = filter ? 1 : 0
        config.level = encoder.level.streamLevel
        config.threads = Int32(encoder.threads)
        config.band_rows = UInt32(encoder.bandRows(rowBytes: rowBytes, height: height))
        config.write = { context, data, size in
            let stream = Unmanaged<PNGRowStream>.fromOpaque(context!).takeUnretainedValue()
            do throws(ImagingError) {
                try stream.sink.write(RawBytes(UnsafeRawBufferPointer(start: data, count: size)))
                return 0
            } catch {
                stream.writeFailure = error
                return 1
            }
        }
        config.context = Unmanaged.passUnretained(self).toOpaque()
        guard let handle = ck_stream_start(&config) else {
            throw ImagingError(.outOfMemory, "cannot start compressing the image data")
        }
        self.handle = handle
        return handle
    }

    /// Runs `decode` (a C read given the stream to report rows to, or nil
    /// without `rows`) into `pixels`, with `rows` compressing them meanwhile,
    /// and returns the read's status. The stream is finished before this
    /// returns, so `pixels` outlives the compressing threads; a failed read
    /// abandons it.
    ///
    /// - Throws: the stream's ``ImagingError`` when the read succeeded but
    ///   the stream failed (a decode error is the caller's to report).
    static func feed(
        _ rows: PNGRowStream?, from pixels: UnsafeMutablePointer<UInt8>,
        _ decode: (OpaquePointer?) -> Int32
    ) throws(ImagingError) -> Int32 {
        guard let rows else { return decode(nil) }
        let status = decode(try rows.start(pixels: UnsafePointer(pixels)))
        do throws(ImagingError) {
            try rows.finish(abandon: status != CK_STATUS_OK)
        } catch {
            if status == CK_STATUS_OK { throw error }
        }
        return status
    }

    /// Ends the stream: with `abandon` false waits until every band is
    /// written, then writes IEND; with `abandon` true (the rows will never
    /// come) stops the threads and writes nothing more.
    ///
    /// - Throws: ``ImagingError`` when a write or the compression failed.
    func finish(abandon: Bool) throws(ImagingError) {
        guard let handle else { return }
        self.handle = nil
        var bytes = 0
        var counts = [UInt32](repeating: 0, count: 13)
        let status = ck_stream_finish(handle, abandon ? 1 : 0, &bytes, &counts)
        written += bytes
        for (level, count) in counts.enumerated() where count > 0 {
            bandLevels[level] = Int(count)
        }
        if abandon { return }
        if let writeFailure { throw writeFailure }
        guard status == CK_STATUS_OK else {
            throw ImagingError(.outOfMemory, "libdeflate could not compress the image data")
        }
        try sink.write(PNGEncoder.tail[...])
        written += PNGEncoder.tail.count
    }
}

/// Bytes the C layer lends for the length of one call.
struct RawBytes: ByteChunk {
    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var byteCount: Int { bytes.count }

    func withChunkBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(bytes)
    }
}
