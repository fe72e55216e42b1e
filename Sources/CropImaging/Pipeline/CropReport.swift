import CropGeometry

/// What an export wrote: the file, its size and format, and the writer's
/// own account of how it was made (``details``), in the one shape every
/// format fills: how, in words; what became of the source's metadata,
/// named as the output holds it; and the format's own facts.
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
    /// The writer's account: ``WriteReport/summary``,
    /// ``WriteReport/metadata`` and ``WriteReport/facts``, whatever the
    /// format. A caller that needs a format's own fields asks for them by
    /// type (``details(as:)``), as with ``ImageSource/header``.
    public var details: any WriteReport

    /// ``details`` as a format's own report type (``JPEGWriteReport``,
    /// ``HEIFWriteReport``, ``PNGWriteReport``, ``WebPWriteReport``), or
    /// `nil` when the output is of another format.
    public func details<Report: WriteReport>(as type: Report.Type) -> Report? {
        details as? Report
    }

    /// How the crop was written, in words ("JPEG (lossless: every block
    /// copied)").
    public var summary: String { details.summary }

    /// What became of each piece of the source's metadata, named as the
    /// output holds it.
    public var metadata: [MetadataEntry] { details.metadata }
}

/// A writer's account of one crop, in the shape every format fills: the
/// report prints it without asking which format it was.
public protocol WriteReport: Sendable {
    /// How the crop was written, for a person: its format and coding, and
    /// whether the source's coded data was copied ("HEIC (lossless: 4
    /// tile(s) copied)", "WebP (lossy VP8 at quality 90: …)").
    var summary: String { get }
    /// What became of each piece of the source's metadata (kept, rewritten,
    /// dropped, and why), named as the output holds it ("EXIF chunk (from
    /// APP1 EXIF)") or, when dropped, as the source did.
    var metadata: [MetadataEntry] { get }
    /// The format's own facts about the output (its coding, its blocks, the
    /// tiles copied), each with the key `--json` writes it under.
    var facts: [ImageFileSummary.Detail] { get }
}
