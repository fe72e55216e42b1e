internal import CImagingShims
import CropGeometry
import Foundation

/// How a crop of a HEIC is written as HEIC: the tiles the crop touches are
/// copied byte for byte into a smaller grid, and a clean aperture (`clap`)
/// cuts the exact rect out of it; the rotation and mirror are kept.
///
/// A tile that the rect's edge cuts inside the photo holds pixels beyond
/// the rect, which `clap` hides but any decoder recovers (the same leak as a
/// JPEG's edge-block padding). By default those edge tiles alone are
/// decoded, the pixels beyond the rect replaced by the rect's edge
/// repeated, and encoded again (libheif's HEVC encoder, x265); every other
/// tile is copied. ``Method/lossless`` refuses a rect whose edges are not on
/// the tile grid or the photo's edge
/// (``CropPlanError/notLossless(_:grownOutward:shrunkInward:blockGrid:)``
/// names the nearest ones); ``snapsToBlocks`` grows the rect to the tile
/// grid instead, and nothing is encoded.
public struct HEIFEncoder: Sendable {
    /// Which tiles may be encoded again.
    public enum Method: String, Sendable {
        /// Tiles inside the rect copied; edge tiles that would carry pixels
        /// beyond it encoded again, with those pixels replaced.
        case automatic
        /// Every tile copied: the rect's edges on the tile grid or the
        /// photo's edge, or the plan is refused.
        case lossless
    }

    /// Which tiles may be encoded again.
    public var method: Method
    /// The quality (1 to 100) edge tiles are encoded at.
    public var quality: Int
    /// Whether the plan grows the rect outward to the tile grid (so that
    /// every tile is copied) and reports the rect it wrote.
    public var snapsToBlocks: Bool
    /// What metadata the crop keeps.
    public var metadata: MetadataPolicy
    /// Whether edge tiles that hold pixels beyond the rect are encoded
    /// again (always, but in the tests' control experiment, which shows
    /// what `clap` alone would leave in the file).
    package var fixesEdges = true
    /// The codec the source's tiles (and the re-encoded ones) are in: HEVC
    /// for HEIC, AV1 for AVIF (``AVIFEncoder`` sets it).
    package var codec: HEIFCodec = .hevc

    /// The quality edge tiles are encoded at unless one is given: chosen by
    /// measurement (`Benchmarks/run-heif-edge-settings`) as the lowest that
    /// keeps the re-encoded area at 50 dB PSNR or more against the source's
    /// own decode on the real iPhone photos (51.7 and 55.6 dB at 80; 48.5
    /// dB at 70), 20 % fewer bytes than quality 90 (56–60 dB) for a loss
    /// no eye sees.
    public static let defaultQuality = 80

    /// An encoder; by default tiles copied where the rect allows it and
    /// edge tiles encoded again at ``defaultQuality``.
    public init(
        method: Method = .automatic, quality: Int = HEIFEncoder.defaultQuality,
        snapsToBlocks: Bool = false,
        metadata: MetadataPolicy = MetadataPolicy()
    ) {
        self.method = method
        self.quality = quality
        self.snapsToBlocks = snapsToBlocks
        self.metadata = metadata
    }

    /// The x265 parameters edge tiles are encoded with, as libheif takes
    /// them (name, value), chosen by measurement
    /// (`Benchmarks/run-heif-edge-settings`): x265's fastest preset, one
    /// level of intra transform split and its quickest rate-distortion
    /// level, 16x16 coding tree units, one thread an encoder (the tiles are
    /// encoded side by side, one a core). Against libheif's defaults
    /// (preset slow) that is 5–8x less time for under 1 % more bytes at the
    /// same quality; the 16x16 units (issue 55) take 13–18 % off a crop's
    /// time against x265's 64x64 for 1–3 % more bytes and at most 0.6 dB
    /// less PSNR at the default quality (`Benchmarks/RESULTS.md`).
    /// `CROPKIT_X265_PARAMETERS` (`name=value,…`; empty for libheif's own
    /// defaults) replaces them, for measuring alternatives.
    static let x265Parameters: [(name: String, value: String)] = {
        let chosen =
            "preset=ultrafast,tu-intra-depth=1,x265:rd=1,x265:pools=1,x265:frame-threads=1,x265:ctu=16"
        return parsedParameters(
            ProcessInfo.processInfo.environment["CROPKIT_X265_PARAMETERS"] ?? chosen)
    }()

    /// The aom parameters AV1 edge tiles (an AVIF's) are encoded with, as
    /// libheif takes them: aom's fastest speed for still images and one
    /// thread an encoder (the tiles are encoded side by side, one a core).
    /// `CROPKIT_AOM_PARAMETERS` (`name=value,…`) replaces them, for
    /// measuring alternatives.
    static let aomParameters: [(name: String, value: String)] = {
        let chosen = "speed=9,threads=1"
        return parsedParameters(
            ProcessInfo.processInfo.environment["CROPKIT_AOM_PARAMETERS"] ?? chosen)
    }()

    /// The encoder parameters of `codec`'s tiles.
    static func parameters(for codec: HEIFCodec) -> [(name: String, value: String)] {
        codec == .hevc ? x265Parameters : aomParameters
    }

    /// `body` given `codec`'s encoder parameters as C strings, name and
    /// value in turn, and how many pairs there are; the strings live until
    /// it returns.
    ///
    /// - Throws: ``ImagingError/outOfMemory(detail:)`` when a string cannot
    ///   be copied (never a NULL handed to libheif).
    static func withParameterStrings<T>(
        for codec: HEIFCodec, encoding what: String,
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, Int) -> T
    ) throws(ImagingError) -> T {
        var strings: [UnsafePointer<CChar>?] = []
        for (name, value) in parameters(for: codec) {
            strings.append(UnsafePointer(strdup(name)))
            strings.append(UnsafePointer(strdup(value)))
        }
        defer { for string in strings { free(UnsafeMutablePointer(mutating: string)) } }
        guard !strings.contains(where: { $0 == nil }) else {
            throw .outOfMemory(detail: "encoding \(what): no memory for its parameters")
        }
        return strings.withUnsafeBufferPointer { body($0.baseAddress, strings.count / 2) }
    }

    /// `name=value,…` as pairs.
    static func parsedParameters(_ setting: String) -> [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = []
        for item in setting.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { parameters.append((String(parts[0]), String(parts[1]))) }
        }
        return parameters
    }

    /// Whether libheif here can encode the edge tiles (its HEVC encoder).
    public static var canEncodeTiles: Bool { ck_heif_can_encode() != 0 }
}
