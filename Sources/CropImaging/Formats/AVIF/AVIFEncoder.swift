import CropGeometry
import Foundation

/// How a crop is written as AVIF.
///
/// From a grid AVIF, a crop that holds whole tiles is made as a HEIC crop
/// of a HEIC is (``HEIFEncoder``), the codec AV1: the tiles the rect
/// touches are copied byte for byte and a clean aperture cuts the rect;
/// edge tiles that would carry pixels beyond it are decoded, those pixels
/// replaced by the rect's edge, and encoded again (libheif's AV1 encoder,
/// aom). Nothing is hidden behind `clap`. Every other crop (of another
/// format, turned or resized, with alpha, or holding no whole tile) is
/// encoded whole from its pixels at its exact size, with no clean aperture
/// (libavif's readers ignore one), at ``quality``.
public struct AVIFEncoder: Sendable {
    /// The container writer this is, its codec AV1.
    var tiles: HEIFEncoder

    /// Which tiles may be encoded again: ``HEIFEncoder/Method``.
    public var method: HEIFEncoder.Method {
        get { tiles.method }
        set { tiles.method = newValue }
    }
    /// The quality (1 to 100) edge tiles or the rect are encoded at.
    public var quality: Int {
        get { tiles.quality }
        set { tiles.quality = newValue }
    }
    /// Whether the rect is grown outward to the tile grid.
    public var snapsToBlocks: Bool {
        get { tiles.snapsToBlocks }
        set { tiles.snapsToBlocks = newValue }
    }
    /// What metadata the crop keeps.
    public var metadata: MetadataPolicy {
        get { tiles.metadata }
        set { tiles.metadata = newValue }
    }

    /// The quality AV1 is encoded at unless one is given (aom's quality
    /// scale, as libheif maps it).
    public static let defaultQuality = 80

    /// An encoder; by default tiles copied where the rect allows it and
    /// edge tiles encoded again at ``defaultQuality``.
    public init(
        method: HEIFEncoder.Method = .automatic, quality: Int = AVIFEncoder.defaultQuality,
        snapsToBlocks: Bool = false, metadata: MetadataPolicy = MetadataPolicy()
    ) {
        tiles = HEIFEncoder(
            method: method, quality: quality, snapsToBlocks: snapsToBlocks, metadata: metadata)
        tiles.codec = .av1
    }
}

extension OutputFormat {
    /// AVIF (from an AVIF source: its tiles copied), with these settings.
    public static func avif(_ encoder: AVIFEncoder) -> OutputFormat { OutputFormat(encoder) }
}

extension AVIFEncoder: FormatWriter {
    static var name: String { "avif" }
    static var names: [String] { ["avif"] }
    static var displayName: String { "AVIF" }
    static var settings: Set<EncoderSetting> { HEIFEncoder.settings }

    init(settings: EncoderSettings) {
        self.init(
            method: settings.lossless ? .lossless : .automatic,
            quality: settings.quality ?? AVIFEncoder.defaultQuality,
            snapsToBlocks: settings.snapsToBlocks, metadata: settings.metadata)
    }

    /// The tiles of an AVIF source where they can be copied (`--lossless`
    /// and `--snap-to-blocks` ask for nothing else).
    func losslessCopy(from source: ImageSource) -> LosslessCopy? {
        tiles.losslessCopy(from: source)
    }

    /// A copy of tiles (`--lossless`, `--snap-to-blocks`) needs an AVIF
    /// source without alpha and an unturned crop; pixels can be written
    /// from anything.
    func check(_ job: CropJob, for source: ImageSource) throws(CropPlanError) {
        if tiles.method == .lossless || tiles.snapsToBlocks {
            try tiles.check(job, for: source)
        }
    }

    /// The tiles of an AVIF source (``HEIFEncoder``'s decision) where any
    /// can be copied; else pixels, encoded whole. Decided once: the tile cut
    /// was computed three times (strategy, memory, export) before.
    func decide(_ plan: CropPlan) -> WriterDecision {
        guard writesFromPixels(plan) else { return tiles.decide(plan) }
        return WriterDecision(
            strategy: .pixels(plan.pixelStages(flattens: plan.source.pixelFormat.bitDepth > 8)),
            memory: pixelsMemoryNeed(plan))
    }

    func export(_ plan: CropPlan, to sink: some ByteSink) throws(ImagingError) -> CropReport {
        if plan.decision.choices(as: CropPlan.HEIFWriteChoice.self) != nil {
            var report = try tiles.export(plan, to: sink)
            report.format = Self.name
            return report
        }
        let decoded = try plan.uprightEightBitRGB()
        return try writePixels(
            decoded.image, plan: plan, warnings: decoded.warnings, checksum: decoded.checksum,
            to: sink)
    }

    func encodeResampled(_ plan: CropPlan, from region: ResamplingRegion, to sink: some ByteSink)
        throws(ImagingError) -> CropReport
    {
        try writePixels(
            plan.rendered(from: region).eightBitRGB(), plan: plan, warnings: region.warnings,
            checksum: region.checksum, to: sink)
    }

    /// A tile copy's need (``HEIFEncoder``), or the decode, the upright
    /// 8-bit copy and libheif's conversion and aom (about 16 bytes a pixel,
    /// and its own tables), and the companions being cut beside it.
    private func pixelsMemoryNeed(_ plan: CropPlan) -> MemoryNeed {
        var need = plan.source.decodeMemory(plan.stored, streamed: false)
        let size = plan.outputSize
        need.add(saturatingProduct(size.width, size.height, 4), "the upright 8-bit copy")
        need.add(
            saturatingProduct(size.width, size.height, 16) + (24 << 20),
            "libheif's YCbCr copy and the AV1 encoder (aom)")
        if let avif = plan.source.header as? AVIFFileInfo, !companionJobs(plan).isEmpty {
            if plan.orientation != .up {
                need.add(
                    saturatingProduct(size.width, size.height, 4),
                    "the crop turned back as stored, as its companions are")
            }
            CropPlan.addCompanionsMemory(
                plan, info: avif.heif, threads: activeCores,
                to: &need)
        }
        return need
    }
}
