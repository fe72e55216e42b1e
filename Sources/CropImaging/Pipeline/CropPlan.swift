import CropGeometry

/// A crop worked out against one opened image, before any pixel is decoded:
/// the source, the stored rect to decode, the turn to apply, the output's
/// size and format.
///
/// Made by ``CropJob/plan(for:)``; carried out by ``export(to:)`` or
/// ``write(to:replacing:)``.
public struct CropPlan: Sendable {
    /// The opened image.
    public let source: ImageSource
    /// The crop: the rect as seen, the stored rect, the orientation.
    public let result: CropResult
    /// The view request as mapped (with the image's size and orientation),
    /// or `nil` for a pixel rect.
    public let request: CropRequest?
    /// The aspect the mapped rect was snapped to, if any.
    public let aspect: AspectChoice?
    /// The output format and its settings.
    public let format: OutputFormat
    /// Whether damaged JPEG data the decoder can step over is accepted.
    public let lenient: Bool
    /// For a turned or resized crop, how it is resampled; ``result`` is
    /// then the read rect the filter needs (what is decoded), not the
    /// output. `nil` for a lossless crop.
    public internal(set) var resampling: ResamplePlan? = nil
    /// What the output format's writer decided when the plan was made
    /// (``CropJob/plan(for:)``): ``strategy``, ``memoryNeed`` and the
    /// writer's own choices, read by its export instead of deciding again.
    var decision = WriterDecision.undecided

    /// The rect a decoder cuts, in the stored grid.
    public var stored: PixelRect<StoredPixels> { result.stored }
    /// The turn applied to the crop (never to the whole image).
    public var orientation: EXIFOrientation { result.orientation }
    /// The output's size: the rect as seen, or a resampled crop's output size.
    public var outputSize: PixelSize<ImagePixels> {
        guard let resampling else { return result.rect.size }
        return PixelSize(
            width: resampling.crop.outputSize.width, height: resampling.crop.outputSize.height)
    }
}

extension CropPlan {
    /// Decodes the crop and writes it to `sink` in the plan's format: the
    /// decoder feeds the encoder row by row where the encoder can take rows
    /// as they come (a PNG without a turn, with libdeflate), else the
    /// encoder takes the whole crop, turned upright.
    ///
    /// A PNG input keeps its colour type, bit depth, palette, tRNS and
    /// colour chunks; a JPEG input gives 8-bit gray or RGB with its ICC
    /// profile as iCCP. Pixels are moved, never changed. What the export
    /// holds at once (``memoryNeed``) is checked against the source's
    /// ``DecodeLimits/maxMemory`` before anything is decoded.
    ///
    /// - Throws: ``ImagingError``; what was written to `sink` before then
    ///   is incomplete.
    public func export(to sink: some ByteSink) throws(ImagingError) -> CropReport {
        try memoryNeed.check(source.limits)
        if resampling != nil { return try Self.exportResampled([self], into: [sink])[0] }
        return try format.writer.export(self, to: sink)
    }

    /// ``export(to:)`` into a file at `path`, written atomically: a reader,
    /// or a crash at any moment, sees the old file (or none) or the whole
    /// new one.
    ///
    /// - Parameters:
    ///   - path: The file to write; its folder must exist.
    ///   - replacing: Whether an existing file may be replaced.
    /// - Throws: ``ImagingError``, ``ImagingError/outputExists(path:)`` or
    ///   ``ImagingError/outputIsInput(path:)``; on any error no output is
    ///   left.
    public func write(to path: String, replacing: Bool = false) throws(ImagingError)
        -> CropReport
    {
        let writer = try AtomicFile.Writer(
            path: path, replacing: replacing, protecting: source.input)
        var report = try export(to: writer)
        try writer.commit()
        report.output = path
        return report
    }
}
