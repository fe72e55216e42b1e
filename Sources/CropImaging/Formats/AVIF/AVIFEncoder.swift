import CropGeometry

/// How a crop of an AVIF is written as AVIF: exactly as a HEIC crop of a
/// HEIC (``HEIFEncoder``), the codec AV1. The tiles of a grid AVIF that the
/// rect touches are copied byte for byte and a clean aperture cuts the
/// rect; edge tiles that would carry pixels beyond the rect are decoded,
/// those pixels replaced by the rect's edge, and encoded again (libheif's
/// AV1 encoder, aom); a crop that would copy no tile (an AVIF of one coded
/// image, a small rect) is the rect encoded as one image. Nothing is hidden
/// behind `clap`.
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

    var writesResampledCrops: Bool { tiles.writesResampledCrops }

    func losslessCopy(from source: ImageSource) -> LosslessCopy? {
        tiles.losslessCopy(from: source)
    }

    func check(_ job: CropJob, for source: ImageSource) throws(CropPlanError) {
        try tiles.check(job, for: source)
    }

    func strategy(for plan: CropPlan) -> CropStrategy { tiles.strategy(for: plan) }

    func export(_ plan: CropPlan, to sink: some ByteSink) throws(ImagingError) -> CropReport {
        var report = try tiles.export(plan, to: sink)
        report.format = Self.name
        return report
    }

    func encodeResampled(_ plan: CropPlan, from region: ResamplingRegion, to sink: some ByteSink)
        throws(ImagingError) -> CropReport
    {
        try tiles.encodeResampled(plan, from: region, to: sink)
    }

    func memoryNeed(_ plan: CropPlan) -> MemoryNeed { tiles.memoryNeed(plan) }
}
