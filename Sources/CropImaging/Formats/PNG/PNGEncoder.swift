internal import CImagingShims
import CropGeometry
import Foundation

/// Writes PNG files: CropKit's own chunk writer, with filtered rows
/// compressed by libdeflate or zlib. Output is never interlaced.
public struct PNGEncoder: Sendable {
    /// The deflate implementation: libdeflate when installed, else zlib, unless chosen.
    public var compressor: Compressor
    /// The DEFLATE level: ``CompressionLevel/automatic`` (the default) or
    /// one fixed level.
    public var level: CompressionLevel
    /// How many threads filter and compress bands of rows with libdeflate
    /// (the caller's included); by default one per core. Any value is
    /// clamped to 1...16.
    public var threads: Int {
        get { clampedThreads }
        set { clampedThreads = max(1, min(newValue, 16)) }
    }
    private var clampedThreads = 1

    /// What a JPEG source's metadata becomes in the PNG: its cleaned EXIF
    /// as `eXIf` and its XMP as `iTXt` unless stripped (see
    /// ``MetadataPolicy``); the ICC profile is always carried as `iCCP`.
    public var metadata = MetadataPolicy()

    /// An encoder with this compressor, level and thread count (the
    /// defaults: the automatic choices and every core).
    public init(
        compressor: Compressor = .automatic, level: CompressionLevel = .automatic,
        threads: Int? = nil
    ) {
        self.compressor = compressor
        self.level = level
        self.threads = threads ?? activeCores
    }

    /// The PNG file for `image`: its format, its carried chunks, its pixels.
    ///
    /// Rows are filtered per row by the minimum-sum-of-absolute-differences
    /// heuristic (as libpng and Pillow do), except palette and sub-byte images,
    /// which compress best unfiltered.
    ///
    /// - Throws: ``ImagingError`` when compression fails.
    public func encode(_ image: RasterImage) throws(ImagingError) -> [UInt8] {
        var copy = image
        let sink = MemorySink()
        _ = try write(taking: &copy, to: sink)
        return sink.bytes
    }

    /// The most filtered bytes in one band. Smaller bands let compression
    /// start sooner while a crop is decoded and spread better over threads;
    /// each band starts without the previous one's window, which costs a few
    /// hundred bytes.
    package var maximumBandBytes = Int(CK_STREAM_MAX_BAND_BYTES)
    /// The fewest filtered bytes in a band (unless the image is smaller).
    package var minimumBandBytes = Int(CK_STREAM_MIN_BAND_BYTES)

    /// Rows a band for an image of `height` rows of `rowBytes` bytes: about
    /// sixteen bands a thread, within the band limits
    /// (`ck_stream_band_rows`, which the C reference uses too).
    package func bandRows(rowBytes: Int, height: Int) -> Int {
        Int(
            ck_stream_band_rows(
                rowBytes, UInt32(height), Int32(threads), minimumBandBytes, maximumBandBytes))
    }

    /// Writes the PNG file for `image` to `sink` and returns its size.
    ///
    /// Takes `image`'s samples, leaving them empty. With libdeflate the rows
    /// are filtered and compressed in bands on ``threads`` threads, joined
    /// into one zlib stream, one IDAT chunk a band (``PNGRowStream``); with
    /// zlib they are filtered in place (no second image-sized buffer) and
    /// compressed in one piece.
    package func write(taking image: inout RasterImage, to sink: some ByteSink) throws(ImagingError)
        -> Written
    {
        var samples: [UInt8] = []
        swap(&samples, &image.samples)
        if image.bitDepth < 8 {
            samples = PNGEncoder.packedRows(
                samples, width: image.width, height: image.height,
                colorType: image.colorType, bitDepth: image.bitDepth)
        }
        if compressor.resolved == .libdeflate {
            let stream = try PNGRowStream(
                encoder: self, width: image.width, height: image.height,
                colorType: image.colorType, bitDepth: image.bitDepth, chunks: image.chunks,
                sink: sink)
            try samples.withUnsafeBufferPointer { buffer throws(ImagingError) in
                guard let pixels = buffer.baseAddress else {
                    throw .outOfMemory(detail: "no pixels to compress")
                }
                try stream.begin(pixels: pixels)
                stream.rowsReady(image.height)
                try stream.end(succeeded: true)
            }
            return Written(bytes: stream.written, bandLevels: stream.bandLevels)
        }
        // Palette and sub-byte images compress best unfiltered.
        let channels = image.colorType.channels
        let filtered = PNGEncoder.filterInPlace(
            &samples, rowBytes: (image.width * channels * image.bitDepth + 7) / 8,
            height: image.height, bpp: max(1, channels * image.bitDepth / 8),
            adaptive: image.bitDepth >= 8 && image.colorType != .palette)
        samples = []
        var written = 0
        func emit(_ chunk: any ByteChunk) throws(ImagingError) {
            try sink.write(chunk)
            written += chunk.byteCount
        }
        try emit(
            PNGEncoder.head(
                width: image.width, height: image.height, colorType: image.colorType,
                bitDepth: image.bitDepth, chunks: image.chunks)[...])
        let compressed = try filtered.withUnsafeBufferPointer { rows throws(ImagingError) in
            try Compressor.zlibStream(rows, level: level.zlibLevel)
        }
        let piece = 1 << 20
        var start = 0
        repeat {
            let end = min(start + piece, compressed.count)
            try writeIDAT(compressed[start..<end], emit)
            start = end
        } while start < compressed.count
        try emit(PNGEncoder.tail[...])
        return Written(bytes: written, bandLevels: [:])
    }

    /// What ``write(taking:to:)`` wrote: the file's size, and how many bands
    /// libdeflate compressed at each level (empty with zlib).
    package struct Written {
        package var bytes: Int
        package var bandLevels: [Int: Int]
    }

    /// Starts writing the PNG of a crop described by `layout` to `sink`.
    ///
    /// When this encoder can compress rows in the order a decoder makes them
    /// (libdeflate, 8- or 16-bit samples, no orientation to apply) the
    /// writer hands out a ``RowConsumer`` and the PNG is compressed while
    /// the crop decodes; otherwise the whole crop is turned and compressed
    /// when ``PNGCropWriter/finish(_:)`` gets it.
    func cropWriter(for layout: CropLayout, to sink: some ByteSink) throws(ImagingError)
        -> PNGCropWriter
    {
        try PNGCropWriter(encoder: self, layout: layout, sink: sink)
    }

    /// The signature, IHDR and the carried chunks.
    static func head(
        width: Int, height: Int, colorType: ColorType, bitDepth: Int, chunks: [PNGChunk]
    ) -> [UInt8] {
        var head: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        var header = [UInt8]()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [UInt8(bitDepth), colorType.rawValue, 0, 0, 0]
        appendChunk("IHDR", header, to: &head)
        for chunk in chunks { appendChunk(chunk.type, chunk.data, to: &head) }
        return head
    }

    /// The IEND chunk.
    static let tail: [UInt8] = {
        var end = [UInt8]()
        appendChunk("IEND", [], to: &end)
        return end
    }()

    /// Filters rows (as the file stores them: 8- or 16-bit samples, or
    /// packed sub-byte ones) in place, from the bottom row up: row y's
    /// filtered bytes go to `y·(rowBytes+1)`, past the raw row y−1 that
    /// filtering row y still reads and before the rows already done. Each row
    /// gets the filter `ck_png_filter_row` picks, or None when not
    /// `adaptive`. Uses the array's spare capacity for the extra byte a row.
    static func filterInPlace(
        _ samples: inout [UInt8], rowBytes: Int, height: Int, bpp: Int, adaptive: Bool
    ) -> [UInt8] {
        let rowStride = rowBytes + 1
        samples.append(contentsOf: repeatElement(0, count: height))
        var scratch = [UInt8](repeating: 0, count: rowBytes * 6)
        samples.withUnsafeMutableBufferPointer { buffer in
            scratch.withUnsafeMutableBufferPointer { scratch in
                guard let base = buffer.baseAddress, let work = scratch.baseAddress else { return }
                let zeros = UnsafePointer(work + 4 * rowBytes)
                let filtered = work + 5 * rowBytes
                for y in stride(from: height - 1, through: 0, by: -1) {
                    let row = UnsafePointer(base + y * rowBytes)
                    let prior = y > 0 ? UnsafePointer(base + (y - 1) * rowBytes) : zeros
                    let target = base + y * rowStride
                    if adaptive {
                        let type = ck_png_filter_row(row, prior, rowBytes, bpp, filtered, work)
                        (target + 1).update(from: filtered, count: rowBytes)
                        target[0] = type
                    } else {
                        UnsafeMutableRawPointer(target + 1).copyMemory(
                            from: row, byteCount: rowBytes)
                        target[0] = 0
                    }
                }
            }
        }
        return samples
    }
}

extension PNGEncoder {
    /// Every row packed to the file's bit depth (sub-byte samples, most
    /// significant bits first), with no filter byte.
    static func packedRows(
        _ samples: [UInt8], width: Int, height: Int, colorType: ColorType, bitDepth: Int
    ) -> [UInt8] {
        let channels = colorType.channels
        let packedRowBytes = (width * channels * bitDepth + 7) / 8
        var out = [UInt8](repeating: 0, count: packedRowBytes * height)
        var packed = [UInt8](repeating: 0, count: packedRowBytes)
        samples.withUnsafeBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            for y in 0..<height {
                pack(
                    base + y * width * channels, count: width * channels,
                    depth: bitDepth, into: &packed)
                out.replaceSubrange(
                    y * packedRowBytes..<(y + 1) * packedRowBytes, with: packed)
            }
        }
        return out
    }
}

/// Packs one row of unpacked sub-byte samples, most significant bits first.
private func pack(_ samples: UnsafePointer<UInt8>, count: Int, depth: Int, into out: inout [UInt8])
{
    let perByte = 8 / depth
    for i in 0..<out.count { out[i] = 0 }
    for i in 0..<count {
        let shift = 8 - depth * (i % perByte + 1)
        out[i / perByte] |= samples[i] << UInt8(shift)
    }
}

/// Writes an IDAT chunk around `data` without copying it: its length and
/// type, the data itself, then its CRC.
private func writeIDAT<Data: ByteChunk>(
    _ data: Data, _ emit: (any ByteChunk) throws(ImagingError) -> Void
) throws(ImagingError) {
    var frame = [UInt8]()
    frame.appendBigEndian(UInt32(data.byteCount))
    frame += Array("IDAT".utf8)
    var crc = ck_crc32(0, Array("IDAT".utf8), 4)
    crc = data.withChunkBytes { ck_crc32(crc, $0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
    var trailer = [UInt8]()
    trailer.appendBigEndian(crc)
    try emit(frame[...])
    try emit(data)
    try emit(trailer[...])
}

/// Appends one chunk (length, type, data, CRC).
func appendChunk<Data: Collection<UInt8>>(
    _ type: String, _ data: Data, to out: inout [UInt8]
) {
    out.appendBigEndian(UInt32(data.count))
    let start = out.count
    out += Array(type.utf8)
    out += data
    let crc = out[start...].withUnsafeBufferPointer { ck_crc32(0, $0.baseAddress, $0.count) }
    out.appendBigEndian(crc)
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [
            UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF),
            UInt8(value & 0xFF),
        ])
    }
}

/// What a crop's output is made of, known before its pixels: the stored
/// size of the crop, the turn to apply, the pixel format, and the chunks to
/// carry.
struct CropLayout {
    var storedSize: PixelSize<StoredPixels>
    var orientation: EXIFOrientation
    var colorType: ColorType
    var bitDepth: Int
    var chunks: [PNGChunk]
}

/// One crop being written as PNG: made before the decode starts, fed rows
/// while it runs (``rowConsumer``), finished with the decoded crop.
final class PNGCropWriter {
    private let encoder: PNGEncoder
    private let layout: CropLayout
    private let sink: any ByteSink
    private let stream: PNGRowStream?

    init(encoder: PNGEncoder, layout: CropLayout, sink: some ByteSink) throws(ImagingError) {
        self.encoder = encoder
        self.layout = layout
        self.sink = sink
        if layout.orientation == .up, layout.bitDepth >= 8,
            encoder.compressor.resolved == .libdeflate
        {
            let stream = try PNGRowStream(
                encoder: encoder, width: layout.storedSize.width,
                height: layout.storedSize.height, colorType: layout.colorType,
                bitDepth: layout.bitDepth, chunks: layout.chunks, sink: sink)
            // The decode's buffer is its own (decodeRows): compressed rows
            // are given back, so the crop streams in bounded memory.
            stream.releasesRows = true
            self.stream = stream
        } else {
            stream = nil
        }
    }

    /// Where the decoder reports rows, or `nil` when the whole crop is
    /// needed first (a turn, sub-byte samples, zlib).
    var rowConsumer: (any RowConsumer)? { stream }

    /// Writes what is left: nothing but the end when the rows were streamed
    /// (the stream ended with the decode), else the whole file from the
    /// decoded crop, turned upright. Takes the crop's samples.
    ///
    /// A turn with libdeflate streams too: the turned rows are made a band
    /// at a time into a buffer the stream gives back as it compresses, so a
    /// turned crop holds the decoded crop and a window of turned rows, not
    /// two crops.
    func finish(_ decoded: inout RasterImage) throws(ImagingError) -> PNGEncoder.Written {
        if let stream {
            return PNGEncoder.Written(bytes: stream.written, bandLevels: stream.bandLevels)
        }
        decoded.chunks = layout.chunks
        guard layout.orientation != .up else {
            return try encoder.write(taking: &decoded, to: sink)
        }
        guard layout.bitDepth >= 8, encoder.compressor.resolved == .libdeflate else {
            decoded = decoded.oriented(layout.orientation)
            return try encoder.write(taking: &decoded, to: sink)
        }
        let size = layout.orientation.orientedSize(layout.storedSize)
        let turned = try PNGRowStream(
            encoder: encoder, width: size.width, height: size.height, colorType: layout.colorType,
            bitDepth: layout.bitDepth, chunks: layout.chunks, sink: sink)
        turned.releasesRows = true
        let source = decoded
        decoded.samples = []
        let rowBytes = size.width * source.bytesPerPixel
        let rowsAtOnce = max(1, min(size.height, (256 << 10) / max(rowBytes, 1)))
        _ = try decodeRows(size: rowBytes * size.height, rows: size.height, into: turned) {
            pixels, ready, context in
            for start in stride(from: 0, to: size.height, by: rowsAtOnce) {
                let end = min(start + rowsAtOnce, size.height)
                source.writeOrientedRows(layout.orientation, rows: start..<end, into: pixels)
                ready?(context, UInt32(end))
            }
            return Int32(CK_STATUS_OK)
        }
        return PNGEncoder.Written(bytes: turned.written, bandLevels: turned.bandLevels)
    }
}
