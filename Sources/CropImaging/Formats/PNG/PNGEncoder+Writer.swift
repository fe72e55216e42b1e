import CropGeometry

extension OutputFormat {
    /// PNG, with these compression settings.
    public static func png(_ encoder: PNGEncoder) -> OutputFormat { OutputFormat(encoder) }
}

extension PNGEncoder: FormatWriter {
    static var name: String { "png" }
    static var names: [String] { ["png"] }

    static var settings: Set<EncoderSetting> { [.compression] }

    init(settings: EncoderSettings) {
        self = settings.compression
        metadata = settings.metadata
    }

    /// Pixels, always: PNG keeps every sample as it is, so nothing is
    /// flattened.
    func decide(_ plan: CropPlan) -> WriterDecision {
        WriterDecision(
            strategy: .pixels(plan.pixelStages(flattens: false)), memory: memoryNeed(plan))
    }

    /// A PNG input keeps its colour type, bit depth, palette, tRNS and
    /// colour chunks; a JPEG input gives 8-bit gray or RGB with its ICC
    /// profile as iCCP. The decoder feeds the encoder row by row where the
    /// encoder can take rows as they come (without a turn, with
    /// libdeflate), else the encoder takes the whole crop, turned upright.
    func export(_ plan: CropPlan, to sink: some ByteSink) throws(ImagingError) -> CropReport {
        var warnings: [String] = []
        let (chunks, dropped, entries) = try pngChunks(for: plan, warnings: &warnings)
        let pixelFormat = plan.source.pixelFormat
        let layout = CropLayout(
            storedSize: plan.stored.size, orientation: plan.orientation,
            colorType: pixelFormat.colorType, bitDepth: pixelFormat.bitDepth, chunks: chunks)
        let writer = try cropWriter(for: layout, to: sink)
        var decoded = try plan.source.decode(
            plan.stored, lenient: plan.lenient, rows: writer.rowConsumer)
        let written = try writer.finish(&decoded.image)
        return CropReport(
            output: nil, bytes: written.bytes, size: plan.outputSize, format: Self.name,
            warnings: decoded.warnings + warnings, checksum: decoded.checksum,
            details: PNGWriteReport(
                colorType: layout.colorType, bitDepth: layout.bitDepth,
                keptChunks: chunks.map(\.type), droppedChunks: dropped,
                compressor: compressor.resolved, level: level,
                bandLevels: written.bandLevels, metadata: entries))
    }

    func encodeResampled(_ plan: CropPlan, from region: ResamplingRegion, to sink: some ByteSink)
        throws(ImagingError) -> CropReport
    {
        var warnings = region.warnings
        let rendered = plan.rendered(from: region)
        let (chunks, dropped, entries) = try pngChunks(for: plan, warnings: &warnings)
        var image = rendered
        // The pixels are new: only the colour meaning travels.
        let colour: Set<String> = ["iCCP", "sRGB", "gAMA", "cHRM", "cICP", "eXIf", "iTXt"]
        image.chunks = chunks.filter { colour.contains($0.type) }
        let bytes = try encode(image)
        try sink.write(bytes[...])
        return CropReport(
            output: nil, bytes: bytes.count, size: plan.outputSize, format: Self.name,
            warnings: warnings, checksum: region.checksum,
            details: PNGWriteReport(
                colorType: image.colorType, bitDepth: image.bitDepth,
                keptChunks: image.chunks.map(\.type),
                droppedChunks: dropped + chunks.map(\.type).filter { !colour.contains($0) },
                compressor: compressor.resolved, level: level, bandLevels: [:],
                metadata: entries))
    }

    /// The decode (streamed into the compressor where it can be), and the
    /// compression window or the whole crop to compress.
    func memoryNeed(_ plan: CropPlan) -> MemoryNeed {
        let source = plan.source
        let depth = source.pixelFormat.bitDepth
        let streams = depth >= 8 && compressor.resolved == .libdeflate
        let upright = plan.orientation == .up
        var need = source.decodeMemory(plan.stored, streamed: streams && upright)
        let window = streamingWindowBytes(threads: threads)
        if streams {
            let channels = source.pixelFormat.colorType.channels
            let crop = saturatingProduct(
                plan.outputSize.width, plan.outputSize.height, channels * (depth == 16 ? 2 : 1))
            need.add(min(crop, window), "the compression window")
        } else {
            // The crop packed or turned, filtered, then compressed whole.
            let crop = saturatingProduct(
                plan.outputSize.width, plan.outputSize.height,
                max(1, source.pixelFormat.colorType.channels * depth / 8))
            need.add(crop, "the crop to compress")
        }
        return need
    }

    /// The chunks the output carries (and what it drops): a PNG source's
    /// own carried chunks as they are; for another source, its metadata
    /// cleaned for the upright crop, as sBIT, iCCP (or cICP), eXIf and an
    /// XMP iTXt.
    func pngChunks(for plan: CropPlan, warnings: inout [String]) throws(ImagingError)
        -> (chunks: [PNGChunk], dropped: [String], entries: [MetadataEntry])
    {
        let size = PixelSize<StoredPixels>(
            width: plan.outputSize.width, height: plan.outputSize.height)
        let metadata = try plan.source.reader.cleanedMetadata(
            in: plan.source.input, size: size, policy: plan.placing(self.metadata))
        warnings += metadata.warnings
        if let native = metadata.native as? PNGNativeMetadata {
            return (native.chunks, native.dropped, metadata.entries)
        }
        var chunks: [PNGChunk] = []
        if let bits = metadata.significantBits {
            chunks.append(
                PNGChunk(
                    type: "sBIT",
                    data: [UInt8](
                        repeating: UInt8(bits),
                        count: plan.source.pixelFormat.colorType.channels)))
        }
        if let profile = metadata.iccProfile {
            let description = ICCProfile.description(of: profile)
            if description == nil {
                warnings.append("the ICC profile has no description CropKit can read")
            }
            chunks.append(try ICCProfile.iCCPChunk(profile, name: description ?? "ICC profile"))
        } else if let cicp = metadata.cicp {
            // The pixels are RGB now: matrix 0, full range.
            chunks.append(PNGChunk(type: "cICP", data: [cicp.primaries, cicp.transfer, 0, 1]))
        }
        if let exif = metadata.exif { chunks.append(PNGChunk(type: "eXIf", data: exif)) }
        if let xmp = metadata.xmp { chunks.append(PNGFileInfo.xmpChunk(xmp)) }
        let dropped = metadata.entries.filter { $0.action == .dropped }.map(\.segment)
        return (chunks, dropped, metadata.entries(as: .png, written: metadata.kinds))
    }
}
