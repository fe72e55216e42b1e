import CropGeometry

extension OutputFormat {
    /// JPEG, with these settings.
    public static func jpeg(_ encoder: JPEGEncoder) -> OutputFormat { OutputFormat(encoder) }
}

extension JPEGEncoder: FormatWriter {
    static var name: String { "jpeg" }
    static var names: [String] { ["jpg", "jpeg"] }

    static var settings: Set<EncoderSetting> {
        [.quality, .lossless, .snapsToBlocks, .keepMakerNote]
    }

    init(settings: EncoderSettings) {
        self.init(
            method: settings.lossless ? .lossless : .automatic, quality: settings.quality,
            snapsToBlocks: settings.snapsToBlocks, metadata: settings.metadata)
    }

    /// A JPEG source's coefficients, on its iMCU grid, unless a quality
    /// was asked for.
    func losslessCopy(from source: ImageSource) -> LosslessCopy? {
        guard quality == nil, let info = source.header as? JPEGFileInfo else { return nil }
        return LosslessCopy(
            grid: info.blockGrid, required: method == .lossless, snaps: snapsToBlocks)
    }

    /// The source's coefficients where the rect's top-left corner lies on
    /// a JPEG source's iMCU grid and no quality was asked for; else pixels,
    /// flattened to 8-bit opaque.
    func decide(_ plan: CropPlan) -> WriterDecision {
        let strategy = strategy(for: plan)
        var decision = WriterDecision(
            strategy: strategy, memory: memoryNeed(plan, strategy: strategy))
        // A resampled crop decodes its gain map whole, turns it upright and
        // samples it (8-bit, up to three samples a pixel, each step a copy).
        if plan.resampling != nil, metadata.companions == .keep, !metadata.stripAll {
            let pixels = plan.source.reader.gainMapPixels(in: plan.source.input)
            if pixels > 0 {
                decision.resampledExtra.add(
                    saturatingProduct(pixels, 9, 1), "the gain map decoded, turned and resampled")
            }
            // A stereo pair's other eye, and Google's depth map (from its
            // PNG header), too.
            if let info = plan.source.header as? JPEGFileInfo {
                if let eye = try? GainMap.find(info, input: plan.source.input, eyes: true),
                    eye.isEye,
                    let map = try? ImageSource(ImageInput(bytes: eye.bytes, name: "other eye"))
                {
                    decision.resampledExtra.add(
                        saturatingProduct(map.storedSize.width, map.storedSize.height, 9),
                        "the other eye decoded, turned and resampled")
                }
                if let png = try? GoogleDepth.find(info, input: plan.source.input) {
                    decision.resampledExtra.add(
                        saturatingProduct(GoogleDepth.pixels(png), 9, 1),
                        "the depth map decoded, turned and resampled")
                }
            }
        }
        // A JPEG's own MPF gain map is cut beside the crop, on the other
        // core: its rows decoded (gray, or three samples a pixel at most)
        // and its coefficients, at most 4 bytes a map pixel.
        if plan.resampling == nil, metadata.companions == .keep, !metadata.stripAll,
            plan.source.header is JPEGFileInfo
        {
            let pixels = plan.source.reader.gainMapPixels(in: plan.source.input)
            if pixels > 0 {
                decision.memory.add(
                    saturatingProduct(pixels, 4, 1), "the gain map being cut beside the crop")
            }
        }
        return decision
    }

    private func strategy(for plan: CropPlan) -> CropStrategy {
        if plan.resampling == nil, quality == nil, let info = plan.source.header as? JPEGFileInfo,
            plan.stored.x % info.blockGrid.width == 0, plan.stored.y % info.blockGrid.height == 0
        {
            return .coefficientCopy(grid: info.blockGrid)
        }
        return .pixels(plan.pixelStages(flattens: true))
    }

    func export(_ plan: CropPlan, to sink: some ByteSink) throws(ImagingError) -> CropReport {
        try plan.exportJPEG(self, to: sink)
    }

    /// Crops of an upright JPEG, every one of them written as JPEG, are
    /// rendered and encoded while the union of their read rects is
    /// decoded (``CropPlan/overlappedResampledJPEGs``); anything else is
    /// decoded and turned upright first.
    func exportResampled(
        _ plans: [CropPlan], into sinks: [any ByteSink], union: PixelRect<StoredPixels>,
        shrink: Int
    ) throws(ImagingError) -> [CropReport]? {
        guard let info = plans.first?.source.header as? JPEGFileInfo,
            plans.allSatisfy({ plan in
                plan.format.encoder(JPEGEncoder.self) != nil && plan.orientation == .up
            })
        else { return nil }
        return try CropPlan.overlappedResampledJPEGs(
            plans, into: sinks, union: union, shrink: shrink, info: info)
    }

    /// Rendered a band at a time into the encoder's ring
    /// (``CropPlan/ringResampledJPEGs``).
    func encodeResampled(_ plan: CropPlan, from region: ResamplingRegion, to sink: some ByteSink)
        throws(ImagingError) -> CropReport
    {
        try plan.ringResampledJPEG(from: region, to: sink)
    }

    /// A DCT-domain crop holds coefficients: a ring of two block rows of a
    /// single-scan file, or the whole frame's of a progressive or
    /// multi-scan one, then the crop's own. Otherwise the crop is decoded
    /// whole while the encoder takes its rows and holds its coefficients
    /// (it codes them in two passes); a turned crop is copied upright first
    /// (measured: a turned 2000x2000 PNG's JPEG peaks 8 MB over the
    /// upright one's).
    private func memoryNeed(_ plan: CropPlan, strategy: CropStrategy) -> MemoryNeed {
        let (stored, outputSize) = (plan.stored, plan.outputSize)
        if case .coefficientCopy = strategy, let info = plan.source.header as? JPEGFileInfo {
            var need = MemoryNeed()
            if info.holdsFrameCoefficients {
                need.add(
                    saturatingProduct(info.coefficientBlocks, 128, 1),
                    "the \(info.progressive ? "progressive" : "multi-scan") frame's coefficients"
                )
            } else {
                let ringRows = min(info.height, 2 * info.blockGrid.height)
                need.add(
                    saturatingProduct(info.coefficientBlocks, ringRows, 128)
                        / max(info.height, 1),
                    "two block rows of the frame's coefficients")
            }
            need.add(
                saturatingProduct(stored.width, stored.height, 3 * 128) / 64 + 1,
                "the crop's coefficients")
            return need
        }
        var need = plan.source.decodeMemory(stored, streamed: false)
        if plan.orientation != .up {
            need.add(saturatingProduct(outputSize.width, outputSize.height, 3), "the upright copy")
        }
        need.add(
            saturatingProduct(outputSize.width, outputSize.height, 3),
            "the encoder's coefficients of the crop")
        return need
    }
}
