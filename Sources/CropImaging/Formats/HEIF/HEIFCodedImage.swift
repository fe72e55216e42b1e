import CropGeometry

/// One HEVC-coded image: where its bytes are and what decoding it needs.
public struct HEIFCodedImage: Sendable {
    /// Its item ID.
    public var item: Int
    /// Its coded width (`ispe`).
    public var width: Int
    /// Its coded height.
    public var height: Int
    /// Its data: byte ranges of the file, in order.
    public var extents: [Range<Int>]
    /// The `hvcC` box, whole (header included).
    var hvcC: [UInt8]
    /// The colour boxes (`colr`) a decode needs, whole: its own, else the
    /// primary item's.
    var colourBoxes: [[UInt8]]
    /// Its `pixi` box, whole, if it has one.
    var pixi: [UInt8]?
    /// Bits a luma sample, from `hvcC`.
    var bitDepth: Int
    /// The chroma format's code in `hvcC` (0 = 4:0:0, 1 = 4:2:0, 2 = 4:2:2,
    /// 3 = 4:4:4).
    var chromaCode: Int

    /// The number of bytes of coded data.
    public var byteCount: Int { extents.reduce(0) { $0 + $1.count } }
}
