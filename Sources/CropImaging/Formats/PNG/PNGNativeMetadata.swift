/// A PNG source's carried chunks, which a PNG output takes as they are.
struct PNGNativeMetadata: NativeMetadata {
    /// The chunks a crop carries, in order.
    var chunks: [PNGChunk]
    /// The ancillary chunk types a crop does not carry.
    var dropped: [String]

    var format: ImageFormat { .png }
    var blockNames: [String] { chunks.map(\.type) }
}
