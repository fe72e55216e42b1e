/// A JPEG source's metadata segments, cleaned for new pixels, which a
/// re-encoded JPEG output takes as they are.
struct JPEGNativeMetadata: NativeMetadata {
    /// Whole segments (FF, marker, length, body) to write after SOI.
    var segments: [UInt8]

    var format: ImageFormat { .jpeg }
    /// The segments are whole bytes; their names are in the entries.
    var blockNames: [String] { [] }
}
