internal import CImagingShims

/// A PNG file written while its rows are still being produced: the head
/// (signature, IHDR, carried chunks) goes out at once, then the C layer's
/// `ck_stream` filters and compresses bands of rows on ``PNGEncoder/threads``
/// threads as soon as the decoder reports them final, and writes each band as
/// an IDAT chunk, in order, through ``ByteSink``; ``finish(abandon:)`` waits
/// for the last band and writes IEND.
///
/// A crop is thus compressed while the rows below it are decoded: the
/// decode, the filters and the compression overlap instead of following
/// one another. Needs libdeflate.
final class PNGRowStream: RowConsumer {
    private let encoder: PNGEncoder
    private let sink: any ByteSink
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
    /// Whether the rows are the stream's to discard once compressed
    /// (`ck_stream_config.release`): set when the buffer is a decode's own,
    /// never when it may be shared with a caller's image. A crop of any
    /// height then stays resident in a window of a few bands.
    var releasesRows = false

    /// Writes the file's head to `sink`.
    ///
    /// - Throws: ``ImagingError/libraryMissing(library:package:)`` when
    ///   libdeflate is missing, or the sink's error.
    init(
        encoder: PNGEncoder, width: Int, height: Int, colorType: ColorType, bitDepth: Int,
        chunks: [PNGChunk], sink: some ByteSink
    ) throws(ImagingError) {
        guard Compressor.isLibdeflateAvailable else {
            throw RuntimeLibrary.libdeflate.missing
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
    /// until ``end(succeeded:)``.
    func begin(pixels: UnsafePointer<UInt8>) throws(ImagingError) {
        var config = ck_stream_config()
        config.pixels = pixels
        config.row_bytes = rowBytes
        config.height = UInt32(height)
        config.bpp = bytesPerPixel
        config.filter = filter ? 1 : 0
        config.level = encoder.level.streamLevel
        config.threads = Int32(encoder.threads)
        config.band_rows = UInt32(encoder.bandRows(rowBytes: rowBytes, height: height))
        config.release = releasesRows ? 1 : 0
        config.write = { context, data, size in
            guard let context else { return 1 }
            let stream = Unmanaged<PNGRowStream>.fromOpaque(context).takeUnretainedValue()
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
            throw .outOfMemory(detail: "cannot start compressing the image data")
        }
        self.handle = handle
    }

    /// Hands the finished rows to the stream's threads
    /// (`ck_stream_rows_ready`).
    func rowsReady(_ rows: Int) {
        guard let handle else { return }
        ck_stream_rows_ready_callback(UnsafeMutableRawPointer(handle), UInt32(rows))
    }

    /// Ends the stream after the decode: ``finish(abandon:)`` with `abandon`
    /// when the decode failed.
    func end(succeeded: Bool) throws(ImagingError) {
        try finish(abandon: !succeeded)
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
            throw .outOfMemory(detail: "libdeflate could not compress the image data")
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
