import CropGeometry

/// What an AVIF file's boxes say about its primary image: the HEIF
/// container's reading (``HEIFFileInfo``: one coded image or a grid of
/// tiles, `clap`, `irot` and `imir` in file order, colour, EXIF and XMP
/// items, alpha and other images), its coded images AV1 (`av01` items with
/// an `av1C` configuration).
///
/// Every rule of HEIF carries over: the stored grid is the canvas with the
/// clean aperture applied, the transforms make the orientation, an EXIF
/// orientation inside is reported and not applied, hostile boxes are
/// refused before a decoder sees a byte, and libheif decodes one coded
/// image at a time from a minimal file CropKit writes.
public struct AVIFFileInfo: Sendable {
    /// The container's reading.
    public var heif: HEIFFileInfo
}

extension AVIFFileInfo: FormatReader {
    static var format: ImageFormat { .avif }
    static var displayName: String { "AVIF" }
    static var signatureLength: Int { 12 }

    /// An ISOBMFF file whose major brand is `avif` (an image) or `avis`
    /// (a sequence, refused when read).
    static func matches(signature head: [UInt8]) -> Bool {
        head.count >= 12 && Array(head[4..<8]) == Array("ftyp".utf8)
            && ["avif", "avis"].contains(String(decoding: head[8..<12], as: UTF8.self))
    }

    static func open(_ input: ImageInput, limits: DecodeLimits) throws(ImagingError) -> Self {
        let heif = try Self.asAVIF { () throws(ImagingError) in
            try HEIFFileInfo.read(input, limits: limits)
        }
        guard heif.layout.tiles.first?.codec == .av1 else {
            throw .unsupported(
                format: .avif,
                detail: "the file says it is AVIF, and its primary image is not AV1-coded")
        }
        var info = AVIFFileInfo(heif: heif)
        if heif.brands.first == "avis" {
            info.heif.warnings.append(
                "an image sequence (avis): its primary image is cropped; the sequence's frames are neither read nor carried"
            )
        }
        return info
    }

    /// The size after the clean aperture, before `irot` and `imir`.
    public var storedSize: PixelSize<StoredPixels> { heif.storedSize }
    /// The orientation the transforms make.
    public var orientation: EXIFOrientation { heif.orientation }
    /// RGB or RGBA, 8-bit, or 16-bit above 8 bits.
    public var pixelFormat: PixelFormat { heif.pixelFormat }
    /// Problems reading the boxes that did not stop it.
    public var warnings: [String] { heif.warnings }
    /// "an AVIF image sequence (avis)" for a file whose major brand is
    /// `avis`.
    public var imageSequence: String? {
        heif.brands.first == "avis" ? "an AVIF image sequence (avis)" : nil
    }

    func decode(
        _ rect: PixelRect<StoredPixels>, of source: ImageSource, lenient: Bool,
        rows: (any RowConsumer)?
    ) throws(ImagingError) -> DecodedImage {
        try Self.asAVIF { () throws(ImagingError) in
            try heif.decode(rect, of: source, lenient: lenient, rows: rows)
        }
    }

    func decodeMemory(_ rect: PixelRect<StoredPixels>, streamed: Bool) -> MemoryNeed {
        heif.decodeMemory(rect, streamed: streamed)
    }

    func losslessCoding(in input: ImageInput) -> String? { heif.losslessCoding(in: input) }

    func gainMap(in input: ImageInput) -> String? { heif.gainMap(in: input) }

    func gainMapImage(in input: ImageInput) throws(ImagingError) -> RasterImage? {
        try Self.asAVIF { () throws(ImagingError) in try heif.gainMapImage(in: input) }
    }

    func leakFindings(in input: ImageInput) throws(ImagingError) -> [LeakFinding] {
        try heif.leakFindings(in: input)
    }

    func metadata(in input: ImageInput) throws(ImagingError) -> ImageMetadata {
        try heif.metadata(in: input)
    }

    var reportDetails: [ImageFileSummary.Detail] { heif.reportDetails }

    func cleanedMetadata(
        in input: ImageInput, size: PixelSize<StoredPixels>, policy: MetadataPolicy
    )
        throws(ImagingError) -> CleanedMetadata
    {
        try heif.cleanedMetadata(in: input, size: size, policy: policy)
    }

    func summary(in input: ImageInput) -> ImageFileSummary {
        var summary = heif.summary(in: input)
        summary.format = .avif
        return summary
    }

    /// `body`'s errors said of AVIF, not HEIF: the file is what the person
    /// gave.
    static func asAVIF<T>(_ body: () throws(ImagingError) -> T) throws(ImagingError) -> T {
        do throws(ImagingError) {
            return try body()
        } catch .corrupt(.heif, let detail) {
            throw .corrupt(format: .avif, detail: detail)
        } catch .unsupported(.heif, let detail) {
            throw .unsupported(format: .avif, detail: detail)
        } catch .structureLimit(.heif, let detail) {
            throw .structureLimit(format: .avif, detail: detail)
        } catch .recoverableCorruption(.heif, let detail) {
            throw .recoverableCorruption(format: .avif, detail: detail)
        }
    }
}

extension AVIFFileInfo: HEIFContainerHeader {}
