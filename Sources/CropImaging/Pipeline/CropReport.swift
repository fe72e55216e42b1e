import CropGeometry

/// What an export wrote: the file, its size and format, and the writer's
/// own report of how it was made (one of ``png``, ``jpeg``, ``heif``, ``webp``: the
/// output format's, and only its).
public struct CropReport: Sendable {
    /// The file written, or `nil` for another sink.
    public var output: String?
    /// The output's size in bytes.
    public var bytes: Int
    /// The output's width and height: the crop as seen.
    public var size: PixelSize<ImagePixels>
    /// The output format's name ("png").
    public var format: String
    /// Problems that did not stop the export.
    public var warnings: [String]
    /// What became of the input's image data checksum (a PNG source's
    /// Adler-32; `nil` for a source without one).
    public var checksum: DataChecksum?
    /// How a PNG output was made (`nil` for another format).
    public var png: PNGWriteReport? = nil
    /// How a JPEG output was made, and its metadata (`nil` for another format).
    public var jpeg: JPEGWriteReport? = nil
    /// How a HEIC output was made, and its metadata (`nil` for another format).
    public var heif: HEIFWriteReport? = nil
    /// How a WebP output was made, and its metadata (`nil` for another format).
    public var webp: WebPWriteReport? = nil
}
