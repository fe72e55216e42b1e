import CropGeometry

/// A frame as a crop writes it: where it goes on the cropped canvas, its
/// timing and operations, and its coded data or pixels.
struct OutputFrame {
    var rect: PixelRect<StoredPixels>
    var duration: FrameDuration
    var disposal: FrameDisposal
    var blend: FrameBlend
    var coded: Coded
    /// How the frame's data was made, for the report.
    var how: How

    enum Coded {
        /// A GIF frame's LZW sub-blocks (with the minimum code size byte)
        /// and colour table, copied or coded again from indices.
        case gif(
            lzw: [UInt8], localColours: [UInt8]?, transparentIndex: Int?, storedDisposal: Int,
            interlaced: Bool = false)
        /// An APNG frame's zlib stream.
        case png(zlib: [UInt8])
        /// An animated WebP frame's ALPH payload and bitstream.
        case webp(alpha: [UInt8]?, bitstream: [UInt8], type: String)
        /// A WebP frame's pixels, coded (lossy within the contract's bound,
        /// else losslessly) with frames beside it on other cores before
        /// it is written: a writer never receives it.
        case webpPixels(AnimationCanvas, lossy: Bool)
    }

    enum How: String {
        case copied
        case losslessAgain = "encoded again losslessly"
        case lossyAgain = "encoded again lossy"
    }
}

/// A container's animation writer: its header, then frames, then its end,
/// each written to the sink as it is made.
protocol AnimationFileWriter {
    /// Writes the header for a canvas of `size` playing `plays` times.
    mutating func begin(size: PixelSize<StoredPixels>, plays: Int) throws(ImagingError)
    /// Writes one frame.
    mutating func add(_ frame: OutputFrame) throws(ImagingError)
    /// Writes the end; the bytes written in all.
    mutating func finish() throws(ImagingError) -> Int
}

/// Counts what it passes on.
final class CountingSink {
    let sink: any ByteSink
    private(set) var count = 0
    init(_ sink: any ByteSink) { self.sink = sink }
    func write(_ bytes: [UInt8]) throws(ImagingError) {
        count += bytes.count
        try sink.write(bytes[...])
    }
    /// The sink, when what was written can be written again in place.
    var rewritable: (any RewritableByteSink)? { sink as? any RewritableByteSink }
}
