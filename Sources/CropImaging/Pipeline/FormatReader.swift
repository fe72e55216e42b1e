import CropGeometry

/// A format's reader as the pipeline calls it: recognise the file, read its
/// header and metadata, decode a region of it as rows, say what a decode
/// holds in memory, and what in the file could show more than a crop.
///
/// One type in each format folder conforms (its header: what reading the
/// file gives), and ``FormatRegistry`` lists it: that list is the only
/// place the pipeline learns of a format.
protocol FormatReader: ImageHeader {
    /// The format this reader reads.
    static var format: ImageFormat { get }

    /// The format's name in messages ("PNG", "WebP").
    static var displayName: String { get }

    /// How many of a file's first bytes ``matches(signature:)`` looks at.
    static var signatureLength: Int { get }

    /// Whether a file starting with `head` is of this format.
    static func matches(signature head: [UInt8]) -> Bool

    /// Reads the header and metadata of `input` (no pixels), checked
    /// against `limits`.
    ///
    /// - Throws: ``ImagingError``.
    static func open(_ input: ImageInput, limits: DecodeLimits) throws(ImagingError) -> Self

    /// The pixels of `rect` (the stored grid) of `source`, whose header
    /// this is, in this format's decoded pixel format, reporting each
    /// finished row to `rows`.
    ///
    /// - Throws: ``ImagingError``.
    func decode(
        _ rect: PixelRect<StoredPixels>, of source: ImageSource, lenient: Bool,
        rows: (any RowConsumer)?
    ) throws(ImagingError) -> DecodedImage

    /// What decoding `rect` holds in memory at once; `streamed` when the
    /// rows go to an encoder as they come instead of being held whole.
    func decodeMemory(_ rect: PixelRect<StoredPixels>, streamed: Bool) -> MemoryNeed

    /// The grid a crop's edges must lie on for the format's lossless crop
    /// of itself, when it has one map hints about (a JPEG's iMCU blocks).
    var losslessBlockGrid: PixelSize<StoredPixels>? { get }

    /// How the file's pixels are coded when they are coded losslessly, read
    /// from the bitstream ("PNG", "VP8L", "AV1 at quantizer 0"); `nil` when
    /// they are coded lossy or that cannot be told. A writer that encodes
    /// pixels again keeps a lossless source lossless by it.
    func losslessCoding(in input: ImageInput) -> String?

    /// What HDR gain map the file carries beside its pixels, in words ("an
    /// MPF gain map", "an HDR gain map auxiliary image"), or `nil`.
    func gainMap(in input: ImageInput) -> String?

    /// The file's HDR gain map cut to the stored rect `stored` in the form
    /// a JPEG holds it (an 8-bit gray image, stored orientation, and the
    /// XMP that names it), for a JPEG made from another format; `nil` when
    /// there is none that form can hold.
    ///
    /// - Throws: ``ImagingError`` when it cannot be cut; the crop goes on
    ///   without it.
    func jpegGainMap(in input: ImageInput, stored: PixelRect<StoredPixels>)
        throws(ImagingError) -> JPEGGainMapCut?

    /// The file's HDR gain map decoded whole: its luma (its first channel),
    /// 8-bit, in its stored orientation; `nil` without one. What an export
    /// check reads a crop's gain map back with.
    ///
    /// - Throws: ``ImagingError`` when it cannot be decoded.
    func gainMapImage(in input: ImageInput) throws(ImagingError) -> RasterImage?

    /// How many pixels the HDR gain map a JPEG crop would carry has (0
    /// without one): what a resampled crop decodes of it, for its memory
    /// need.
    func gainMapPixels(in input: ImageInput) -> Int

    /// Whether the decoder can decode at 1/2, 1/4 or 1/8 of the size
    /// (a JPEG's DCT scaling), for a resample that reduces.
    var shrinksOnLoad: Bool { get }

    /// The pixels of `rect` of the grid the image has at 1/`shrink` of its
    /// size (only when ``shrinksOnLoad``).
    ///
    /// - Throws: ``ImagingError``.
    func decodeShrunk(
        _ rect: PixelRect<StoredPixels>, shrink: Int, of source: ImageSource, lenient: Bool
    ) throws(ImagingError) -> DecodedImage

    /// What in the file could show more of the photo than its primary
    /// image: thumbnails, previews, other images, bytes after the end.
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read.
    func leakFindings(in input: ImageInput) throws(ImagingError) -> [LeakFinding]

    /// The file's metadata as one format-neutral value (without
    /// ``ImageMetadata/embedded``, which ``leakFindings(in:)`` gives).
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read.
    func metadata(in input: ImageInput) throws(ImagingError) -> ImageMetadata

    /// The metadata cleaned by the leak rules for a crop of `size` (as its
    /// pixels are stored in the output, upright) written as new pixels
    /// under `policy`.
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read.
    func cleanedMetadata(
        in input: ImageInput, size: PixelSize<StoredPixels>, policy: MetadataPolicy
    )
        throws(ImagingError) -> CleanedMetadata

    /// What `cropkit info` shows of the file.
    func summary(in input: ImageInput) -> ImageFileSummary

    /// What a crop's report says of its source beyond its format and
    /// size: the orientation it was seen with and how.
    var reportDetails: [ImageFileSummary.Detail] { get }
}

extension FormatReader {
    /// The format's short name in capitals ("PNG", "JPEG", "HEIF").
    static var displayName: String { format.rawValue.uppercased() }

    /// The format this reader reads.
    public var format: ImageFormat { Self.format }

    /// Nothing by default.
    var reportDetails: [ImageFileSummary.Detail] { [] }

    /// No block grid by default.
    var losslessBlockGrid: PixelSize<StoredPixels>? { nil }

    /// Lossy, or not known to be lossless, by default.
    func losslessCoding(in input: ImageInput) -> String? { nil }

    /// No HDR gain map by default.
    func gainMap(in input: ImageInput) -> String? { nil }

    /// No gain map by default.
    func gainMapPixels(in input: ImageInput) -> Int { 0 }

    /// No gain map to decode by default.
    func gainMapImage(in input: ImageInput) throws(ImagingError) -> RasterImage? { nil }

    /// No gain map a JPEG holds by default.
    func jpegGainMap(in input: ImageInput, stored: PixelRect<StoredPixels>)
        throws(ImagingError) -> JPEGGainMapCut?
    { nil }

    /// No shrink-on-load by default.
    var shrinksOnLoad: Bool { false }

    func decodeShrunk(
        _ rect: PixelRect<StoredPixels>, shrink: Int, of source: ImageSource, lenient: Bool
    ) throws(ImagingError) -> DecodedImage {
        try decode(rect, of: source, lenient: lenient, rows: nil)
    }
}

/// A source's HDR gain map cut to a crop in the form a JPEG holds it
/// (``FormatReader/jpegGainMap(in:stored:)``).
struct JPEGGainMapCut {
    /// The cut gain map, 8-bit gray, in the source's stored orientation.
    var image: RasterImage
    /// The XMP packet the gain map's JPEG carries (Apple's `apdi` type and
    /// formats, its `HDRGainMap` version).
    var xmp: String
    /// The name of the source's report entry it replaces ("auxiliary item
    /// 52 urn:…"): the gain map is carried, not dropped.
    var sourceEntry: String
    /// Whether it takes Ultra HDR's form (an `hdrgm:` gain map: the crop's
    /// XMP then says `hdrgm:Version` and names it in a container
    /// directory) rather than Apple's (MPF and `apdi` alone).
    var ultraHDR = false
}
