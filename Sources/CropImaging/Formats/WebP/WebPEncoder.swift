internal import CImagingShims
import CropGeometry
import Foundation

/// How a crop is written as WebP.
///
/// WebP is always written as new pixels (libwebp cannot copy part of a
/// bitstream): by default losslessly (VP8L, every sample kept, the colour
/// under transparent pixels too) when the source is lossless (a VP8L
/// WebP, a PNG, a lossless AVIF or HEIC: what its bitstream says), and
/// lossy (VP8) from a lossy source, at the quality the
/// source was coded at when it is a lossy WebP (estimated from its
/// quantizers) and at ``defaultQuality`` otherwise. ``quality`` asks for
/// lossy at that quality; ``lossless`` for VP8L whatever the source.
public struct WebPEncoder: Sendable {
    /// Whether the output is VP8L whatever the source.
    public var lossless: Bool
    /// Lossy at this quality (1-100) whatever the source.
    public var quality: Int?
    /// What metadata the crop keeps.
    public var metadata: MetadataPolicy

    /// An encoder; by default lossless from a lossless source and lossy
    /// at the source's quality from a lossy one, metadata kept where it
    /// stays true.
    public init(
        lossless: Bool = false, quality: Int? = nil, metadata: MetadataPolicy = MetadataPolicy()
    ) {
        self.lossless = lossless
        self.quality = quality
        self.metadata = metadata
    }

    /// The quality a lossy source that is not a WebP (JPEG, HEIC) is
    /// written at unless one is given.
    public static let defaultQuality = 90
    /// libwebp's lossless effort (0-9) for VP8L output, chosen by
    /// measurement (Benchmarks/RESULTS.md). `CROPKIT_WEBP_LOSSLESS_LEVEL`
    /// overrides it, for measuring alternatives only.
    public static let losslessLevel: Int = {
        let chosen = 0
        let setting = ProcessInfo.processInfo.environment["CROPKIT_WEBP_LOSSLESS_LEVEL"]
        return setting.flatMap(Int.init).map { min(9, max(0, $0)) } ?? chosen
    }()
    /// libwebp's method (0-6) for VP8 output, chosen by measurement.
    public static let lossyMethod = 2

    /// How a crop is coded: VP8L, or VP8 at a quality, why in a sentence,
    /// and what chose it in a word (``WebPWriteReport/choice``).
    typealias WebPCoding = (lossless: Bool, quality: Int?, reason: String, choice: String)

    /// How a crop of `source` is coded: VP8L, or VP8 at a quality, and why.
    func coding(for source: ImageSource) -> WebPCoding {
        if lossless { return (true, nil, "--lossless", "lossless") }
        if let quality { return (false, quality, "the quality given", "given") }
        if let coding = source.reader.losslessCoding(in: source.input) {
            return (true, nil, "the source is lossless (\(coding))", "sourceLossless")
        }
        guard let info = source.header as? WebPFileInfo else {
            return (false, Self.defaultQuality, "the default for a lossy source", "default")
        }
        if let estimated = info.estimatedQuality {
            return (
                false, estimated, "the source's quality, estimated from its quantizers", "estimated"
            )
        }
        return (
            false, Self.defaultQuality, "the default (the source's quality could not be read)",
            "defaultUnread"
        )
    }

    /// Encodes 8-bit RGB or RGBA pixels as a WebP bitstream (a whole WebP
    /// file as libwebp writes it).
    static func encode(
        _ image: RasterImage, lossless: Bool, quality: Int
    ) throws(ImagingError) -> [UInt8] {
        guard ck_webp_can_encode() != 0 else { throw RuntimeLibrary.libwebp.missing }
        precondition(
            image.bitDepth == 8 && (image.colorType == .rgb || image.colorType == .rgba),
            "WebP takes 8-bit RGB or RGBA")
        guard image.width <= 16383, image.height <= 16383 else {
            throw .encodeFailed(
                format: "webp",
                detail:
                    "\(image.width)x\(image.height) is larger than WebP's 16383x16383; write .png")
        }
        var request = ck_webp_encode_request()
        request.width = UInt32(image.width)
        request.height = UInt32(image.height)
        request.channels = UInt32(image.colorType.channels)
        request.stride = UInt32(image.rowBytes)
        request.lossless = lossless ? 1 : 0
        request.lossless_level = UInt32(losslessLevel)
        request.quality = UInt32(min(100, max(0, quality)))
        request.method = UInt32(lossyMethod)
        let status = image.samples.withUnsafeBufferPointer { pixels in
            request.pixels = pixels.baseAddress
            return ck_webp_encode(&request)
        }
        defer { ck_free(request.output) }
        guard status == CK_STATUS_OK, let output = request.output else {
            if status == CK_STATUS_OUT_OF_MEMORY {
                throw .outOfMemory(detail: "libwebp: \(cMessage(request.message))")
            }
            throw .encodeFailed(format: "webp", detail: cMessage(request.message))
        }
        return Array(UnsafeBufferPointer(start: output, count: request.output_size))
    }
}
