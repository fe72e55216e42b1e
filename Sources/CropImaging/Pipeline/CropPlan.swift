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
        if let resampling { return try exportResampled(resampling, to: sink) }
        switch format {
        case .jpeg(let encoder):
            return try exportJPEG(encoder, to: sink)
        case .heif(let encoder):
            return try exportHEIF(encoder, to: sink)
        case .png(let encoder):
            var warnings: [String] = []
            let (chunks, dropped) = try carriedChunks(warnings: &warnings)
            let pixelFormat = source.pixelFormat
            let layout = CropLayout(
                storedSize: stored.size, orientation: orientation,
                colorType: pixelFormat.colorType, bitDepth: pixelFormat.bitDepth, chunks: chunks)
            let writer = try encoder.cropWriter(for: layout, to: sink)
            var decoded = try source.decode(stored, lenient: lenient, rows: writer.rowConsumer)
            let written = try writer.finish(&decoded.image)
            return CropReport(
                output: nil, bytes: written.bytes, size: outputSize, format: format.name,
                warnings: decoded.warnings + warnings, checksum: decoded.checksum,
                png: PNGWriteReport(
                    colorType: layout.colorType, bitDepth: layout.bitDepth,
                    keptChunks: chunks.map(\.type), droppedChunks: dropped,
                    compressor: encoder.compressor.resolved, level: encoder.level,
                    bandLevels: written.bandLevels))
        }
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

    /// The chunks the output carries (and the types it drops): a PNG's own
    /// carried chunks, a JPEG's ICC profile as iCCP.
    func carriedChunks(warnings: inout [String]) throws(ImagingError)
        -> ([PNGChunk], [String])
    {
        switch source.header {
        case let info as PNGFileInfo:
            return (info.carriedChunks, info.droppedChunkTypes)
        case let info as JPEGFileInfo:
            var chunks: [PNGChunk] = []
            if info.components == 4, info.iccProfile != nil {
                // The pixels are converted to RGB; a CMYK profile does not
                // describe them (and PNG's iCCP must be RGB or gray).
                warnings.append(
                    "the \(info.colorSpace.uppercased()) colour profile was dropped: the pixels were converted to RGB without it (colours are approximate)"
                )
            } else if let profile = info.iccProfile {
                let description = ICCProfile.description(of: profile)
                if description == nil {
                    warnings.append("the ICC profile has no description CropKit can read")
                }
                chunks.append(try ICCProfile.iCCPChunk(profile, name: description ?? "ICC profile"))
            }
            // The crop is turned upright: its EXIF says orientation 1 and
            // the size as seen.
            let policy: MetadataPolicy
            if case .png(let encoder) = format {
                policy = encoder.metadata
            } else {
                policy = MetadataPolicy()
            }
            let metadata = try JPEGMetadata.clean(
                info, input: source.input,
                size: PixelSize(width: outputSize.width, height: outputSize.height),
                orientation: .up, policy: policy)
            warnings += metadata.warnings
            if let exif = metadata.exif { chunks.append(PNGChunk(type: "eXIf", data: exif)) }
            if let xmp = metadata.xmp {
                chunks.append(
                    PNGChunk(
                        type: "iTXt",
                        data: Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(xmp.utf8)))
            }
            return (chunks, [])
        case let info as HEIFFileInfo:
            let policy: MetadataPolicy
            if case .png(let encoder) = format {
                policy = encoder.metadata
            } else {
                policy = MetadataPolicy()
            }
            // The crop is turned upright: its EXIF says orientation 1.
            let metadata = HEIFMetadata.clean(
                info, size: PixelSize(width: outputSize.width, height: outputSize.height),
                orientation: .up, policy: policy)
            warnings += metadata.warnings
            var chunks: [PNGChunk] = []
            let format = HEIFPixelFormat(info)
            if format.scaleBits > 0 {
                // 10-bit samples scaled to 16 by bit replication: sBIT
                // says how many bits are the source's.
                chunks.append(
                    PNGChunk(
                        type: "sBIT",
                        data: [UInt8](
                            repeating: UInt8(info.bitDepth), count: format.colorType.channels)))
            }
            chunks += try metadata.pngChunks(info, warnings: &warnings)
            let dropped = metadata.entries.filter { $0.action == .dropped }.map(\.segment)
            return (chunks, dropped)
        default:
            return ([], [])
        }
    }
}
