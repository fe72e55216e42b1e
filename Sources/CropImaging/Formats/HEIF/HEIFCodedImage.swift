import CropGeometry

/// The codec of a HEIF file's coded images: HEVC (HEIC, an iPhone's
/// photos) or AV1 (AVIF), the same container around either.
public enum HEIFCodec: String, Hashable, Sendable {
    /// HEVC: `hvc1` items with an `hvcC` configuration.
    case hevc
    /// AV1: `av01` items with an `av1C` configuration.
    case av1

    /// The coded items' type: "hvc1", "av01".
    public var itemType: String { self == .hevc ? "hvc1" : "av01" }
    /// The decoder configuration's box type: "hvcC", "av1C".
    public var configurationType: String { self == .hevc ? "hvcC" : "av1C" }
    /// The codec's name in messages: "HEVC", "AV1".
    public var name: String { self == .hevc ? "HEVC" : "AV1" }
    /// The file's major brand when CropKit writes it: "heic", "avif".
    var brand: String { self == .hevc ? "heic" : "avif" }

    /// The codec of each coded item type.
    static let allTypes: [String: HEIFCodec] = ["hvc1": .hevc, "av01": .av1]
}

/// One coded image (HEVC or AV1): where its bytes are and what decoding it
/// needs.
public struct HEIFCodedImage: Sendable {
    /// Its item ID.
    public var item: Int
    /// Its coded width (`ispe`).
    public var width: Int
    /// Its coded height.
    public var height: Int
    /// Its data: byte ranges of the file, in order.
    public var extents: [Range<Int>]
    /// Its codec.
    public var codec: HEIFCodec = .hevc
    /// The decoder configuration box (`hvcC`, `av1C`), whole (header
    /// included).
    var configuration: [UInt8]
    /// The colour boxes (`colr`) a decode needs, whole: its own, else the
    /// primary item's.
    var colourBoxes: [[UInt8]]
    /// Its `pixi` box, whole, if it has one.
    var pixi: [UInt8]?
    /// Bits a luma sample, from the decoder configuration.
    var bitDepth: Int
    /// The chroma format's code (0 = 4:0:0, 1 = 4:2:0, 2 = 4:2:2,
    /// 3 = 4:4:4).
    var chromaCode: Int

    /// The number of bytes of coded data.
    public var byteCount: Int { extents.reduce(0) { $0 + $1.count } }
}
