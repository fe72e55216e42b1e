import CropGeometry

/// An image opened once: its bytes (``ImageInput``) and what its header and
/// metadata say (``ImageHeader``), read from those bytes.
///
/// Everything a crop needs comes from here: ``CropJob/plan(for:)`` plans
/// against the header, ``CropPlan/export(to:)`` decodes from the same
/// input. The path is never opened again.
public struct ImageSource: Sendable {
    /// The bytes.
    public let input: ImageInput
    /// What the header and metadata say: a format's own header type
    /// (`header as? JPEGFileInfo` for a JPEG's markers).
    public var header: any ImageHeader { reader }
    /// The format's reader, as the pipeline calls it.
    let reader: any FormatReader
    /// The limits the header was checked against, and the decode keeps to.
    public let limits: DecodeLimits
    /// Which inflater decodes a PNG's image data (by default ISA-L where it
    /// is installed and takes the image, else libpng).
    public var inflater: Inflater = .automatic

    /// Opens the file at `path` and reads its header and metadata (no
    /// pixels).
    ///
    /// - Throws: ``ImagingError``.
    public static func open(path: String, limits: DecodeLimits = .standard) throws(ImagingError)
        -> ImageSource
    {
        try ImageSource(ImageInput(path: path), limits: limits)
    }

    /// Reads the header and metadata of `input`, by its signature, with the
    /// reader of its format.
    ///
    /// - Throws: ``ImagingError``, ``ImagingError/unknownFormat(path:)`` for
    ///   a signature CropKit does not read, and
    ///   ``ImagingError/unsupported(format:detail:)`` for a GIF, which
    ///   ``AnimatedImage`` reads.
    public init(_ input: ImageInput, limits: DecodeLimits = .standard) throws(ImagingError) {
        var head = [UInt8](repeating: 0, count: FormatRegistry.signatureLength)
        let got = try head.withUnsafeMutableBufferPointer { buffer throws(ImagingError) in
            try input.read(at: 0, into: buffer)
        }
        guard got > 0 else { throw .emptyFile(path: input.name) }
        guard let reader = FormatRegistry.reader(forSignature: Array(head.prefix(got))) else {
            throw FormatRegistry.stillRefusal(forSignature: Array(head.prefix(got)))
                ?? .unknownFormat(path: input.name)
        }
        self.reader = try reader.open(input, limits: limits)
        self.input = input
        self.limits = limits
    }

    /// The file's format.
    public var format: ImageFormat { reader.format }

    /// The size as the file declares it.
    public var storedSize: PixelSize<StoredPixels> { reader.storedSize }

    /// The file's own orientation: a JPEG's EXIF orientation, a HEIF's
    /// `irot` and `imir` (its EXIF orientation is not applied), 1 for PNG.
    public var orientation: EXIFOrientation { reader.orientation }

    /// The colour type and bit depth a decode of this image gives.
    public var pixelFormat: PixelFormat { reader.pixelFormat }

    /// Problems reading the header that did not stop it.
    public var warnings: [String] { reader.warnings }

    /// What the file is when it is an image sequence (an AVIF `avis`, a
    /// HEIF `msf1`): video coded between frames, of which the primary
    /// image alone is read and cropped; `nil` for an image.
    public var imageSequence: String? { reader.imageSequence }

    /// The grid the edges of a lossless crop of the file into its own
    /// format must lie on, where the format has one (a JPEG's iMCU
    /// blocks); `nil` otherwise.
    public var losslessBlockGrid: PixelSize<StoredPixels>? { reader.losslessBlockGrid }

    /// What a crop's report says of this source beyond its format and size
    /// (a JPEG's orientation and profile, a HEIF's transforms).
    public var reportDetails: [ImageFileSummary.Detail] { reader.reportDetails }

    /// The file's metadata, read from it as one value whatever its format.
    ///
    /// - Parameter includingEmbedded: Whether to look through the file for
    ///   what else it carries (``ImageMetadata/embedded``: the leak rules'
    ///   search, which for a HEIF decodes the padding of its edge tiles);
    ///   by default only the EXIF, XMP and profile are read.
    /// - Throws: ``ImagingError`` when the file cannot be read.
    public func metadata(includingEmbedded: Bool = false) throws(ImagingError) -> ImageMetadata {
        var metadata = try reader.metadata(in: input)
        if includingEmbedded { metadata.embedded = try reader.leakFindings(in: input) }
        return metadata
    }
}

extension ImageSource {
    /// Decodes `rect` of the stored grid (by default the whole image).
    ///
    /// Only what the rect needs is decoded: rows below it are never read;
    /// a JPEG decodes only the MCU columns it needs. The whole rect is held
    /// in memory, with what the format forces (``MemoryNeed``): over
    /// ``DecodeLimits/maxMemory`` it is refused before anything is
    /// allocated.
    ///
    /// - Parameters:
    ///   - rect: The pixels to keep, in the stored grid.
    ///   - lenient: Whether damaged JPEG data the decoder can step over is
    ///     accepted (a warning); by default it is an error.
    /// - Throws: ``ImagingError``.
    public func decode(_ rect: PixelRect<StoredPixels>? = nil, lenient: Bool = false)
        throws(ImagingError) -> DecodedImage
    {
        let rect = rect ?? PixelRect(size: storedSize)
        try checkCrop(rect, inside: storedSize)
        try decodeMemory(rect, streamed: false).check(limits)
        return try decode(rect, lenient: lenient, rows: nil)
    }

    /// ``decode(_:lenient:)``, reporting each finished row to `rows` while
    /// it decodes: how a decoder feeds an encoder.
    func decode(_ rect: PixelRect<StoredPixels>, lenient: Bool, rows: (any RowConsumer)?)
        throws(ImagingError) -> DecodedImage
    {
        try checkCrop(rect, inside: storedSize)
        return try reader.decode(rect, of: self, lenient: lenient, rows: rows)
    }
}
