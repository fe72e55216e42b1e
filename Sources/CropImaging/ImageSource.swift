import CropGeometry

/// An image file's header and metadata, read once: a PNG's chunk list or a
/// JPEG's markers. What the crop, the batch and the summary all start from.
public enum ImageSource: Sendable {
    case png(PNGFileInfo)
    case jpeg(JPEGFileInfo)

    /// Reads the file at `path` by its signature.
    ///
    /// - Throws: ``ImagingError``.
    public static func read(path: String, limits: DecodeLimits = .standard) throws(ImagingError)
        -> ImageSource
    {
        try read(path: path, limits: limits, deferringDataCRCs: false)
    }

    /// ``read(path:limits:)``; with `deferringDataCRCs`, a PNG's image data
    /// CRCs are checked later, by the crop, while it decodes (see
    /// ``PNGFileInfo/read(path:limits:deferringDataCRCs:)``).
    package static func read(path: String, limits: DecodeLimits, deferringDataCRCs: Bool)
        throws(ImagingError) -> ImageSource
    {
        switch try CropExport.format(of: path) {
        case .png:
            .png(
                try PNGFileInfo.read(
                    path: path, limits: limits, deferringDataCRCs: deferringDataCRCs))
        case .jpeg: .jpeg(try JPEGFileInfo.read(path: path, limits: limits))
        }
    }

    public var format: CropExport.Format {
        switch self {
        case .png: .png
        case .jpeg: .jpeg
        }
    }

    /// The size as the file declares it.
    public var storedSize: PixelSize<StoredPixels> {
        switch self {
        case .png(let info): PixelSize(width: info.width, height: info.height)
        case .jpeg(let info): PixelSize(width: info.width, height: info.height)
        }
    }

    /// The file's own EXIF orientation (PNG: 1).
    public var orientation: EXIFOrientation {
        switch self {
        case .png: .up
        case .jpeg(let info): info.orientation
        }
    }
}

extension CropExport {
    /// Crops `stored` out of `source` (read from `input`), turns the crop
    /// upright for `orientation` and writes it as PNG, atomically: by
    /// ``cropPNG(input:stored:orientation:output:encoder:replacing:limits:info:)``
    /// or ``cropJPEG(input:info:stored:orientation:output:encoder:replacing:limits:maxScans:lenient:)``.
    ///
    /// - Throws: ``ImagingError``; on any error no output file is left.
    public static func crop(
        _ source: ImageSource, input: String, stored: PixelRect<StoredPixels>,
        orientation: EXIFOrientation,
        output: String, encoder: PNGEncoder = PNGEncoder(), replacing: Bool = false,
        limits: DecodeLimits = .standard, maxScans: Int = JPEGDecoder.defaultMaxScans,
        lenient: Bool = false
    ) throws(ImagingError) -> Report {
        switch source {
        case .png(let info):
            try cropPNG(
                input: input, stored: stored, orientation: orientation, output: output,
                encoder: encoder,
                replacing: replacing, limits: limits, info: info)
        case .jpeg(let info):
            try cropJPEG(
                input: input, info: info, stored: stored, orientation: orientation, output: output,
                encoder: encoder, replacing: replacing, limits: limits, maxScans: maxScans,
                lenient: lenient)
        }
    }
}
