import CropGeometry
import Foundation

extension OutputFormat {
    /// HEIC (from a HEIC source: its tiles copied), with these settings.
    public static func heif(_ encoder: HEIFEncoder) -> OutputFormat { OutputFormat(encoder) }
}

extension HEIFEncoder: FormatWriter {
    static var name: String { "heic" }
    static var names: [String] { ["heic", "heif"] }

    static var settings: Set<EncoderSetting> {
        [.quality, .lossless, .snapsToBlocks, .keepMakerNote]
    }

    /// Edge tiles at ``HEIFEncoder/defaultQuality`` unless one is given.
    init(settings: EncoderSettings) {
        self.init(
            method: settings.lossless ? .lossless : .automatic,
            quality: settings.quality ?? HEIFEncoder.defaultQuality,
            snapsToBlocks: settings.snapsToBlocks, metadata: settings.metadata)
    }

    /// HEIC is written by copying a HEIC's tiles, never by encoding a whole
    /// image: a turned, resized or circled crop is written as PNG or JPEG.
    var writesResampledCrops: Bool { false }

    /// A HEIF source's tiles, on its tile grid, when its canvas starts at
    /// the grid's origin.
    func losslessCopy(from source: ImageSource) -> LosslessCopy? {
        guard let info = (source.header as? any HEIFContainerHeader)?.heif,
            info.codec == codec, info.origin == (0, 0)
        else { return nil }
        return LosslessCopy(
            grid: PixelSize(width: info.layout.tileWidth, height: info.layout.tileHeight),
            required: method == .lossless, snaps: snapsToBlocks)
    }

    /// Refuses a turned, resized or circled crop, a crop of another format
    /// and a crop of an image with alpha, before anything is decoded
    /// (`crop`, `batch` and the library alike: a batch line found it only
    /// after decoding the region, 0.3 s and 68 MB for 12 MP).
    func check(_ job: CropJob, for source: ImageSource) throws(CropPlanError) {
        if let refusal = refusal(of: source, resampled: job.isResampled) {
            throw .unsupportedOutput(refusal)
        }
    }

    /// Why a crop of `source` (`resampled`: turned, resized or circled)
    /// cannot be written by copying its tiles, or `nil`: the one place the
    /// refusals are made, which ``check(_:for:)`` gives before anything is
    /// decoded and the export gives again should it ever be reached without
    /// it.
    func refusal(of source: ImageSource, resampled: Bool) -> String? {
        let kind = codec == .hevc ? "HEIC" : "AVIF"
        if resampled {
            return
                "a turned or resized crop is written as \(ImageFormat.listing(OutputFormat.resampledDisplayNames)), not \(kind) (every tile would be encoded again)"
        }
        guard let info = (source.header as? any HEIFContainerHeader)?.heif, info.codec == codec
        else {
            return
                "\(kind) output is made from a\(codec == .hevc ? "" : "n") \(kind) source only (its tiles are copied, never encoded whole); write \(codec == .hevc ? ".png, .jpg, .webp or .avif" : ".png, .jpg or .webp")"
        }
        if info.alpha != nil {
            return "\(kind) output of an image with alpha is not offered; write .png"
        }
        return nil
    }

    /// The tiles the rect touches (``CropPlan/HEIFTileCut``), cut once:
    /// copied where they lie inside the rect, edge tiles encoded again; or,
    /// when no tile it touches can be copied, the rect encoded as one image
    /// (a job HEIC cannot hold was refused by ``check(_:for:)``).
    func decide(_ plan: CropPlan) -> WriterDecision {
        guard let info = (plan.source.header as? any HEIFContainerHeader)?.heif else {
            return WriterDecision(strategy: .pixels([]), memory: MemoryNeed())
        }
        let cut = CropPlan.heifTileCut(info, stored: plan.stored)
        // No tile the rect touches lies inside it: nothing is copied, and
        // the rect is encoded again (as one image where it fits one, else
        // its tiles each).
        let copiesNone = fixesEdges && cut.tiles.allSatisfy(\.fix)
        let rectImage = copiesNone && CropPlan.rectImageGeometry(info: info, cut: cut) != nil
        let strategy: CropStrategy =
            copiesNone
            ? .pixels([.decodeRegion, .encode])
            : .tileCopy(
                grid: PixelSize(width: info.layout.tileWidth, height: info.layout.tileHeight))
        return WriterDecision(
            strategy: strategy, memory: memoryNeed(plan, info: info, cut: cut),
            choices: CropPlan.HEIFWriteChoice(cut: cut, rectImage: rectImage))
    }

    func export(_ plan: CropPlan, to sink: some ByteSink) throws(ImagingError) -> CropReport {
        try plan.exportHEIF(self, to: sink)
    }

    func encodeResampled(_ plan: CropPlan, from region: ResamplingRegion, to sink: some ByteSink)
        throws(ImagingError) -> CropReport
    {
        throw .unsupported(
            format: plan.source.format,
            detail: refusal(of: plan.source, resampled: true) ?? "not a crop HEIC can hold")
    }

    /// Tiles are copied a MiB at a time; edge tiles are decoded to their
    /// planes, copied once and encoded (x265 holds a few frames), one a
    /// core. Tiles reaching beyond the canvas are decoded (one a core) to
    /// judge their padding first.
    private func memoryNeed(_ plan: CropPlan, info: HEIFFileInfo, cut: CropPlan.HEIFTileCut)
        -> MemoryNeed
    {
        var need = MemoryNeed()
        let layout = info.layout
        let threads = max(
            1,
            min(activeCores, layout.columns + layout.rows))
        // Edge tiles are encoded side by side, one a core, each by an
        // encoder of its own.
        let tile = saturatingProduct(layout.tileWidth, layout.tileHeight, 16)
        need.add(saturatingProduct(tile, threads, 1), "the edge tiles being encoded again")
        need.add(
            saturatingProduct(24 << 20, threads, 1),
            "the HEVC encoders (x265: their tables, threads and frames)")
        let decoded = saturatingProduct(
            layout.tileWidth, layout.tileHeight, info.bitDepth > 8 ? 12 : 6)
        need.add(saturatingProduct(decoded, threads, 1), "the padded tiles being judged")
        // A crop that would copy no tile decodes every tile it touches
        // at once and gathers the rect's planes, to encode them as one
        // image.
        if cut.mayCopyNoTile(of: layout) {
            let pixelBytes = info.bitDepth > 8 ? 6 : 3
            let tile = saturatingProduct(layout.tileWidth, layout.tileHeight, pixelBytes)
            need.add(saturatingProduct(tile, cut.tiles.count, 1), "the rect's tiles decoded")
            need.add(
                saturatingProduct(plan.stored.width + 16, plan.stored.height + 16, pixelBytes),
                "the rect's planes gathered")
        }
        if metadata.companions == .keep, !metadata.stripAll {
            CropPlan.addCompanionsMemory(plan, info: info, threads: threads, to: &need)
        }
        need.add(1 << 20, "the copy buffer")
        return need
    }
}

extension CropPlan {
    /// Adds to `need` what cutting `info`'s companions for `plan` holds:
    /// they are cut side by side, `threads` at once, each holding the
    /// tiles its cut reads decoded to their planes and its cut's planes;
    /// the largest ones at once. The HEIC writer and AVIF's pixel route
    /// both cut them.
    static func addCompanionsMemory(
        _ plan: CropPlan, info: HEIFFileInfo, threads: Int, to need: inout MemoryNeed
    ) {
        let layout = info.layout
        let photo = PixelSize<StoredPixels>(width: info.width, height: info.height)
        var needs: [Int] = []
        for companion in info.companions where !companion.showsWholePhoto {
            guard let layout = companion.layout, companion.problem == nil,
                let grid = CompanionGrid(
                    imageSize: photo,
                    companionSize: PixelSize(width: companion.width, height: companion.height))
            else { continue }
            let cut = grid.cut(plan.stored)
            let read = cut.readRect
            let (ox, oy) = (companion.clap?.x ?? 0, companion.clap?.y ?? 0)
            let margin = PixelRect<StoredPixels>(
                x: max(read.x + ox - 2, 0), y: max(read.y + oy - 2, 0),
                width: min(read.maxX + ox + 2, layout.width) - max(read.x + ox - 2, 0),
                height: min(read.maxY + oy + 2, layout.height) - max(read.y + oy - 2, 0))
            // Samples a pixel, in halves: 2 (monochrome), 3 (4:2:0),
            // 4 (4:2:2), 6 (4:4:4); twice that above 8 bits.
            let halves =
                [2, 3, 4, 6][layout.tiles[0].chromaCode]
                * (layout.tiles[0].bitDepth > 8 ? 2 : 1)
            let tiles = layout.tiles(touching: margin).count
            let tileBytes = saturatingProduct(layout.tileWidth, layout.tileHeight, halves) / 2
            // A resampled crop's companion is at its scale against the
            // output, which may be larger than the rect's (and turned: its
            // longer side taken each way).
            let side = max(plan.outputSize.width, plan.outputSize.height)
            let out =
                plan.resampling == nil
                ? cut.size
                : PixelSize<StoredPixels>(
                    width: max(
                        cut.size.width,
                        saturatingProduct(side, companion.width, 1) / max(1, info.width) + 1),
                    height: max(
                        cut.size.height,
                        saturatingProduct(side, companion.height, 1) / max(1, info.height) + 1))
            let outBytes =
                saturatingProduct(out.width + 64, out.height + 64, halves) / 2
            needs.append(
                saturatingProduct(tiles, tileBytes, 1).addingReportingOverflow(
                    outBytes
                ).partialValue)
        }
        for eye in info.stereoEyes where eye.layout != nil && eye.problem == nil {
            needs.append(saturatingProduct(layout.tileWidth, layout.tileHeight, 16))
        }
        let atOnce = needs.sorted(by: >).prefix(threads)
        if !atOnce.isEmpty {
            need.add(
                atOnce.reduce(0) { $0.addingReportingOverflow($1).partialValue },
                "the companions being cut (\(atOnce.count) at once)")
        }
    }
}
