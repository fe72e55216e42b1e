import CropRecords

/// How a PNG output was written: its pixel format, the chunks it carries,
/// and how its image data was compressed.
public struct PNGWriteReport: Sendable, Hashable {
    /// The output's PNG colour type.
    public var colorType: ColorType
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
    /// What became of the metadata of a source of another format (a PNG
    /// source's chunks are ``keptChunks`` and ``droppedChunks``).
    public var metadata: [MetadataEntry] = []
}

extension PNGWriteReport: WriteReport {
    /// "rgb 8-bit PNG".
    public var summary: String { "\(colorType.name) \(bitDepth)-bit PNG" }

    /// The colour type, bit depth, chunks kept and dropped, compressor,
    /// level and the levels libdeflate chose by band.
    public var facts: [ImageFileSummary.Detail] {
        [
            .init("colorType", .text(colorType.name)), .init("bitDepth", .number(bitDepth)),
            .init("chunks", .list(keptChunks)), .init("droppedChunks", .list(droppedChunks)),
            .init("compressor", .text(compressor.rawValue)),
            // "auto" or the level as a number.
            .init(
                "level",
                .typed(
                    {
                        if case .fixed(let number) = level { return .number(number) }
                        return .string(level.description)
                    }(), text: level.description)),
            .init(
                "bandLevels",
                .counts(bandLevels.sorted { $0.key < $1.key }.map { .init("\($0.key)", $0.value) })),
        ]
    }
}
