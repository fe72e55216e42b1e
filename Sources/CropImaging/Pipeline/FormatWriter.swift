import CropGeometry

/// A format's writer as the pipeline calls it: the settings of its encoder
/// (``PNGEncoder``, ``JPEGEncoder``, ``HEIFEncoder``) conform, and
/// ``FormatRegistry`` lists them.
///
/// A plan first asks the writer whether it can copy the source's coded
/// data (``losslessCopy(from:)``: a JPEG's coefficients, a HEIF's tiles),
/// then hands it the crop to write: decoded rows for an unturned crop
/// (``export(_:to:)``), or a decoded region to resample
/// (``encodeResampled(_:from:to:)``). Outside the format folders nothing
/// asks which format a writer is.
protocol FormatWriter: Sendable {
    /// The format's name in reports: "png", "jpeg", "heic".
    static var name: String { get }
    /// The format's name in messages: "PNG", "JPEG", "HEIC", "WebP".
    static var displayName: String { get }
    /// The names and file extensions that choose it, lower case: "jpg",
    /// "jpeg".
    static var names: [String] { get }
    /// The settings this format takes.
    static var settings: Set<EncoderSetting> { get }

    /// The writer for `settings` (those it does not take are ignored).
    init(settings: EncoderSettings)

    /// What is kept of the source's metadata.
    var metadata: MetadataPolicy { get }

    /// Whether a turned, resized or circled crop can be written in this
    /// format (HEIC is written by copying tiles, so not).
    var writesResampledCrops: Bool { get }

    /// How this writer copies `source`'s coded data losslessly, if it can:
    /// the grid a crop's edges must lie on, whether a crop off it is
    /// refused, whether it is grown to it.
    func losslessCopy(from source: ImageSource) -> LosslessCopy?

    /// What this writer decides for `plan`'s crop, once, when it is
    /// planned: how it makes it (a copy of the source's coded data, or
    /// pixels through stages), what its export holds in memory at once, and
    /// its own choices (a HEIF's tile cut, a WebP's coding), which
    /// ``export(_:to:)`` carries out (``CropPlan/decision``).
    func decide(_ plan: CropPlan) -> WriterDecision

    /// Refuses, before anything is decoded, a job this format cannot hold
    /// for `source`.
    ///
    /// - Throws: ``CropPlanError/unsupportedOutput(_:)``.
    func check(_ job: CropJob, for source: ImageSource) throws(CropPlanError)

    /// Writes the plan's crop, unturned and at its own size.
    ///
    /// - Throws: ``ImagingError``.
    func export(_ plan: CropPlan, to sink: some ByteSink) throws(ImagingError) -> CropReport

    /// Writes every one of `plans` (turned or resized crops of one opened
    /// image, each in this writer's format or not) in one pass over the
    /// decode of `union` at 1/`shrink`, if this writer can take them all;
    /// `nil` when it cannot (by default), and nothing was written: the
    /// pipeline then decodes the region itself and hands each plan's
    /// writer ``encodeResampled(_:from:to:)``.
    ///
    /// - Throws: ``ImagingError``.
    func exportResampled(
        _ plans: [CropPlan], into sinks: [any ByteSink], union: PixelRect<StoredPixels>,
        shrink: Int
    ) throws(ImagingError) -> [CropReport]?

    /// Writes the plan's turned or resized crop from a decoded region that
    /// covers its read rect.
    ///
    /// - Throws: ``ImagingError``.
    func encodeResampled(
        _ plan: CropPlan, from region: ResamplingRegion, to sink: some ByteSink
    ) throws(ImagingError) -> CropReport
}

/// What a crop's writer decided when the crop was planned: how it makes it,
/// what that holds in memory at once, and its own choices, which its export
/// carries out and its report tells, so that neither decides again.
struct WriterDecision: Sendable {
    /// How the crop is made.
    var strategy: CropStrategy
    /// What the export holds in memory at once.
    var memory: MemoryNeed
    /// The writer's own choices (its type is the writer's).
    var choices: (any Sendable)? = nil
    /// What the writer adds to a resampled crop's need, beside the
    /// resample's own (a JPEG's gain map resampled with it).
    var resampledExtra = MemoryNeed()

    /// `choices` as the writer's type.
    func choices<Choice>(as type: Choice.Type) -> Choice? { choices as? Choice }

    /// Before a writer has decided (a plan being made).
    static let undecided = WriterDecision(strategy: .pixels([]), memory: MemoryNeed())
}

extension FormatWriter {
    /// The name in capitals.
    static var displayName: String { name.uppercased() }

    var writesResampledCrops: Bool { true }

    func losslessCopy(from source: ImageSource) -> LosslessCopy? { nil }

    func check(_ job: CropJob, for source: ImageSource) throws(CropPlanError) {}

    func exportResampled(
        _ plans: [CropPlan], into sinks: [any ByteSink], union: PixelRect<StoredPixels>,
        shrink: Int
    ) throws(ImagingError) -> [CropReport]? { nil }
}

/// How a writer copies a source's coded data: a crop whose edges lie on
/// ``grid`` (or the image's edge) is copied, not decoded.
struct LosslessCopy {
    /// The grid: a JPEG's iMCU, a HEIF's tiles.
    var grid: PixelSize<StoredPixels>
    /// Whether a crop off the grid is refused (`--lossless`) instead of
    /// re-encoded.
    var required: Bool
    /// Whether a crop off the grid is grown outward to it.
    var snaps: Bool
}
