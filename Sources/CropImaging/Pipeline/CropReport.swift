import CropGeometry

/// What an export wrote.
public struct CropReport: Sendable {
    /// The file written, or `nil` for another sink.
    public var output: String?
    /// The output's size in bytes.
    public var bytes: Int
    /// The output's width and height: the crop as seen.
    public var size: PixelSize<ImagePixels>
    /// The output format's name ("png").
    public var format: String
    /// The output's PNG colour type.
    public var colorType: PNGColorType
    /// The output's bits a sample.
    public var bitDepth: Int
    /// The chunks carried into the output, in order.
    public var keptChunks: [String]
    /// The input's ancillary chunks the output does not carry.
    public var droppedChunks: [String]
    /// Problems that did not stop the export.
    public var warnings: [String]
    /// What became of the input's image data checksum (`nil` for JPEG).
    public var checksum: DataChecksum?
    /// The DEFLATE implementation that compressed the pixels.
    public var compressor: Compressor
    /// The DEFLATE level asked for.
    public var level: CompressionLevel
    /// How many bands libdeflate compressed at each level (empty with zlib):
    /// what ``CompressionLevel/automatic`` chose.
    public var bandLevels: [Int: Int]
    /// How a JPEG output was made, and its metadata (`nil` for PNG).
    public var jpeg: JPEGWriteReport? = nil
    /// How a HEIC output was made, and its metadata (`nil` otherwise).
    public var heif: HEIFWriteReport? = nil
}
