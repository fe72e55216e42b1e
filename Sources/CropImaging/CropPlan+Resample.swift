import CropGeometry

/// How a resampled crop is made: the straightened (or resized) crop and the
/// filter and fill it is rendered with.
public struct ResamplePlan: Sendable {
    /// The output rect, output size and sample positions.
    public let crop: StraightenedCrop
    /// The filter and fill.
    public let resampler: Resampler

    /// A plan rendering `crop` with `resampler`.
    public init(crop: StraightenedCrop, resampler: Resampler) {
        self.crop = crop
        self.resampler = resampler
    }

    /// How far from a sample position the filter reads.
    public var support: Double { resampler.filter.support(reduction: crop.reduction) }
}

extension CropPlan {
    /// A resampled crop: the read rect decoded (region-decoded, upright),
    /// made direct colour, rendered at the output size, and written whole.
    /// PNG keeps the colour chunks (and gets an alpha channel for a
    /// transparent fill); JPEG is encoded at the encoder's quality with the
    /// fill, or white for a transparent fill, where there is no image.
    func exportResampled(_ resample: ResamplePlan, to sink: some ByteSink) throws(ImagingError)
        -> CropReport
    {
        var warnings: [String] = []
        let decoded = try source.decode(stored, lenient: lenient)
        warnings += decoded.warnings
        let upright = decoded.image.oriented(orientation).directColor()
        var resampler = resample.resampler
        if case .jpeg = format, resampler.fill == .transparent {
            // JPEG has no transparency: where there is no image, white.
            resampler.fill = .rgb(255, 255, 255)
        }
        let rendered = resampler.render(resample.crop, from: upright, at: result.rect)
        switch format {
        case .png(let encoder):
            let (chunks, dropped) = try carriedChunks(warnings: &warnings)
            var image = rendered
            // The pixels are new: only the colour meaning travels.
            let colour: Set<String> = ["iCCP", "sRGB", "gAMA", "cHRM", "cICP", "eXIf", "iTXt"]
            image.chunks = chunks.filter { colour.contains($0.type) }
            let bytes = try encoder.encode(image)
            try sink.write(bytes[...])
            return CropReport(
                output: nil, bytes: bytes.count, size: outputSize, format: format.name,
                colorType: image.colorType, bitDepth: image.bitDepth,
                keptChunks: image.chunks.map(\.type),
                droppedChunks: dropped + chunks.map(\.type).filter { !colour.contains($0) },
                warnings: warnings, checksum: decoded.checksum,
                compressor: encoder.compressor.resolved, level: encoder.level, bandLevels: [:])
        case .jpeg(let encoder):
            return try encodeResampledJPEG(
                rendered, encoder: encoder, warnings: warnings, to: sink)
        case .heif:
            throw .unsupported(
                format: .heif,
                detail:
                    "a turned or resized crop is not written as HEIC (its tiles would all be encoded again); write .png or .jpg"
            )
        }
    }
}
