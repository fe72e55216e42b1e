/// How a PNG output was written: its pixel format, the chunks it carries,
/// and how its image data was compressed.
public struct PNGWriteReport: Sendable, Hashable {
    /// The output's PNG colour type.
    public var colorType: PNGColorType
    /// The output's bits a sample.
    public var bitDepth: Int
    /// The chunks carried into the output, in order.
    public var keptChunks: [String]
    /// The input's ancillary chunks (or metadata) the output does not carry.
    public var droppedChunks: [String]
    /// The DEFLATE implementation that compressed the pixels.
    public var compressor: Compressor
    /// The DEFLATE level asked for.
    public var level: CompressionLevel
    /// How many bands libdeflate compressed at each level (empty with zlib):
    /// what ``CompressionLevel/automatic`` chose.
    public var bandLevels: [Int: Int]
}
