import CropGeometry

extension OutputFormat {
    /// WebP, with these settings.
    public static func webp(_ encoder: WebPEncoder) -> OutputFormat { OutputFormat(encoder) }
}

extension WebPEncoder: FormatWriter {
    static var name: String { "webp" }
    static var names: [String] { ["webp"] }
    static var displayName: String { "WebP" }

    static var settings: Set<EncoderSetting> { [.quality, .lossless, .keepMakerNote] }

    init(settings: EncoderSettings) {
        self.init(
            lossless: settings.lossless, quality: settings.quality, metadata: settings.metadata)
    }

    /// Pixels, always, brought to 8 bits (WebP has no wider samples);
    /// alpha is kept; the coding (``WebPEncoder/coding(for:)``) chosen once.
    func decide(_ plan: CropPlan) -> WriterDecision {
        let coding = coding(for: plan.source)
        return WriterDecision(
            strategy: .pixels(plan.pixelStages(flattens: plan.source.pixelFormat.bitDepth > 8)),
            memory: memoryNeed(plan, lossless: coding.lossless), choices: coding)
    }

    /// The crop decoded, turned upright, brought to 8-bit RGB or RGBA and
    /// encoded whole (libwebp takes a whole picture).
    func export(_ plan: CropPlan, to sink: some ByteSink) throws(ImagingError) -> CropReport {
        let decoded = try plan.uprightEightBitRGB()
        return try write(
            decoded.image, plan: plan, warnings: decoded.warnings, checksum: decoded.checksum,
            to: sink)
    }

    func encodeResampled(_ plan: CropPlan, from region: ResamplingRegion, to sink: some ByteSink)
        throws(ImagingError) -> CropReport
    {
        try write(
            plan.rendered(from: region).eightBitRGB(), plan: plan, warnings: region.warnings,
            checksum: region.checksum, to: sink)
    }

    /// The decode, the upright 8-bit copy, and libwebp's encoder (a
    /// lossless one holds the picture as ARGB and its transforms' and
    /// histograms' data, about 12 bytes a pixel; a lossy one YCbCr planes
    /// and the coded tokens, about 4).
    private func memoryNeed(_ plan: CropPlan, lossless: Bool) -> MemoryNeed {
        var need = plan.source.decodeMemory(plan.stored, streamed: false)
        let size = plan.outputSize
        need.add(saturatingProduct(size.width, size.height, 4), "the upright 8-bit copy")
        need.add(saturatingProduct(size.width, size.height, lossless ? 12 : 4), "libwebp's encoder")
        return need
    }

    /// Encodes `image` (upright, 8-bit RGB or RGBA) and writes it with the
    /// source's metadata cleaned for it.
    private func write(
        _ image: RasterImage, plan: CropPlan, warnings: [String], checksum: DataChecksum?,
        to sink: some ByteSink
    ) throws(ImagingError) -> CropReport {
        var warnings = warnings
        if plan.source.pixelFormat.bitDepth > 8 {
            warnings.append(
                "\(plan.source.pixelFormat.bitDepth)-bit samples written as 8 bits (WebP has no wider samples)"
            )
        }
        guard let (lossless, quality, reason, choice) = plan.decision.choices(as: WebPCoding.self)
        else {
            preconditionFailure("a plan's writer decides its coding when the plan is made")
        }
        let size = PixelSize<StoredPixels>(width: image.width, height: image.height)
        let metadata = try plan.source.reader.cleanedMetadata(
            in: plan.source.input, size: size, policy: plan.placing(self.metadata))
        warnings += metadata.warnings
        let encoded = try Self.encode(image, lossless: lossless, quality: quality ?? 100)
        let (bytes, chunks, entries) = Self.container(
            encoded, metadata: metadata, alpha: image.colorType == .rgba, size: size)
        try sink.write(bytes[...])
        return CropReport(
            output: nil, bytes: bytes.count, size: plan.outputSize, format: Self.name,
            warnings: warnings, checksum: checksum,
            details: WebPWriteReport(
                coding: lossless ? "VP8L" : "VP8", quality: lossless ? nil : quality,
                reason: reason, alpha: image.colorType == .rgba, chunks: chunks,
                metadata: entries, choice: choice))
    }

    /// libwebp's file with the metadata around its image: a VP8X header,
    /// ICCP, the image's chunks, EXIF, XMP (the order the container's
    /// specification gives); libwebp's file as it is when there is none.
    static func container(
        _ encoded: [UInt8], metadata: CleanedMetadata, alpha: Bool, size: PixelSize<StoredPixels>
    ) -> (bytes: [UInt8], chunks: [String], entries: [MetadataEntry]) {
        let entries = metadata.entries(as: .webp, written: metadata.kinds)
        let image = WebPContainer.chunks(of: encoded).filter {
            ["ALPH", "VP8 ", "VP8L"].contains($0.type)
        }
        guard metadata.iccProfile != nil || metadata.exif != nil || metadata.xmp != nil else {
            return (encoded, WebPContainer.chunks(of: encoded).map(\.type), entries)
        }
        var flags: UInt8 = alpha ? WebPContainer.alphaFlag : 0
        var chunks: [(String, [UInt8])] = []
        if let profile = metadata.iccProfile {
            flags |= WebPContainer.iccFlag
            chunks.append(("ICCP", profile))
        }
        chunks += image.map { ($0.type, $0.payload) }
        if let exif = metadata.exif {
            flags |= WebPContainer.exifFlag
            chunks.append(("EXIF", exif))
        }
        if let xmp = metadata.xmp {
            flags |= WebPContainer.xmpFlag
            chunks.append(("XMP ", Array(xmp.utf8)))
        }
        let header = WebPContainer.vp8x(flags: flags, width: size.width, height: size.height)
        let bytes = WebPContainer.riff([header] + chunks.map { WebPContainer.chunk($0.0, $0.1) })
        return (bytes, ["VP8X"] + chunks.map(\.0), entries)
    }
}
