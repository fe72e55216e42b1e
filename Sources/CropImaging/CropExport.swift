import CropGeometry

/// Cutting a rect out of an image file and writing it as PNG, losslessly.
public enum CropExport {
    /// What an export wrote.
    public struct Report: Sendable {
        public var output: String
        public var bytes: Int
        public var width: Int
        public var height: Int
        public var colorType: PNGColorType
        public var bitDepth: Int
        public var keptChunks: [String]
        public var droppedChunks: [String]
        public var warnings: [String]
        public var compressor: Compressor
        public var level: Int
    }

    /// Crops `stored` out of the PNG at `input`, turns the crop upright for
    /// `orientation`, and writes it to `output` atomically.
    ///
    /// The output keeps the input's colour type, bit depth, palette, tRNS and
    /// colour chunks; its pixels are the input's, moved, never changed.
    ///
    /// - Throws: ``ImagingError``; on any error no output file is left.
    public static func cropPNG(
        input: String, stored: PixelRect<StoredPixels>, orientation: EXIFOrientation = .up,
        output: String,
        encoder: PNGEncoder = PNGEncoder(), replacing: Bool = false,
        limits: DecodeLimits = .standard
    ) throws(ImagingError) -> Report {
        let info = try PNGFileInfo.read(path: input, limits: limits)
        // One owner for the pixels, so the encoder can filter them in place.
        var image = try PNGDecoder.decode(
            path: input, rect: (stored.x, stored.y, stored.width, stored.height), info: info,
            limits: limits)
        if orientation != .up { image = image.oriented(orientation) }
        let (width, height) = (image.width, image.height)
        let writer = try AtomicFile.Writer(path: output, replacing: replacing, protecting: input)
        let bytes = try encoder.write(taking: &image, to: writer)
        try writer.commit()
        return Report(
            output: output, bytes: bytes, width: width, height: height,
            colorType: image.colorType, bitDepth: image.bitDepth,
            keptChunks: image.chunks.map(\.type),
            droppedChunks: info.droppedChunkTypes, warnings: info.warnings,
            compressor: encoder.compressor.resolved,
            level: encoder.level)
    }

    /// The image formats CropKit recognises by their first bytes.
    public enum Format: String, Sendable {
        case png
        case jpeg
    }

    /// The format of the file at `path`, from its signature.
    ///
    /// - Throws: ``ImagingError`` `.cannotOpen`, or `.unsupported` for an
    ///   unknown format.
    public static func format(of path: String) throws(ImagingError) -> Format {
        let file = try BinaryFile(path: path)
        guard let head = file.read(min(8, file.size)), !head.isEmpty else {
            throw ImagingError(.corrupt, "'\(path)' is empty")
        }
        if head.starts(with: [137, 80, 78, 71]) { return .png }
        if head.starts(with: [0xFF, 0xD8]) { return .jpeg }
        throw ImagingError(.unsupported, "'\(path)' is neither PNG nor JPEG (unknown signature)")
    }
}
