import CropGeometry

/// A turned, resized or circled crop of an animation, planned: the job,
/// the canvas rect it reads and the output canvas it makes
/// (``AnimatedImage/resampling(for:)``).
public struct AnimationResampling: Sendable {
    /// The job, as planned for each displayed canvas.
    public var job: CropJob
    /// The canvas pixels the crop reads (its rect's bounds, with the
    /// filter's support).
    public var read: PixelRect<StoredPixels>
    /// The output canvas.
    public var size: PixelSize<StoredPixels>
}

extension AnimatedImage {
    /// Plans a turned, resized or circled crop (`--angle`, `--inside`,
    /// `--width`, `--fit`, `--circle`) of every frame: each displayed
    /// canvas goes through the still pipeline as a still of the canvas's
    /// size would (the contract's positions, filter and fill), and the
    /// output canvases are written with the same timeline.
    ///
    /// - Throws: ``CropPlanError`` as ``CropJob/plan(for:)`` does for the
    ///   canvas.
    public func resampling(for job: CropJob) throws(CropPlanError) -> AnimationResampling {
        var planning = job
        planning.format = .png(PNGEncoder(threads: 1))
        let plan = try planning.plan(for: try standIn())
        return AnimationResampling(
            job: planning, read: plan.stored,
            size: PixelSize(width: plan.outputSize.width, height: plan.outputSize.height))
    }

    /// Crops every frame as `resampling` says and writes the animation in
    /// `format` to `sink`: the output canvas `i` is the source's displayed
    /// canvas `i` through the still pipeline, shown for the same duration.
    ///
    /// - Throws: ``ImagingError``, as ``crop(_:as:to:)-(PixelRect<StoredPixels>,_,_)`` does.
    public func crop(
        _ resampling: AnimationResampling, as format: ImageFormat, to sink: some ByteSink
    ) throws(ImagingError) -> AnimationCropReport {
        try checkOutput(format, size: resampling.size)
        try checkCrop(resampling.read)
        let (work, overflow) = (resampling.size.width * resampling.size.height)
            .multipliedReportingOverflow(by: animation.frames.count)
        guard !overflow, work <= limits.maxAnimationPixels else {
            throw .limitExceeded(
                .animationPixels, limit: limits.maxAnimationPixels, actual: overflow ? .max : work)
        }
        let depth = animation.bitDepth
        let limits = self.limits
        let job = resampling.job
        let name = input.name
        var cropper = AnimationCropper(
            animation: animation, input: input, limits: limits, rect: PixelRect(size: size),
            output: format)
        cropper.inflater = inflater
        cropper.resample = AnimationCropper.Resample(size: resampling.size) {
            canvas throws(ImagingError) in
            let still = try PNGEncoder(level: .fixed(1), threads: 1).encode(canvas.raster)
            let source = try ImageSource(ImageInput(bytes: still, name: name), limits: limits)
            let plan: CropPlan
            do {
                plan = try job.plan(for: source)
            } catch {
                throw .unsupported(format: format, detail: "a frame could not be planned: \(error)")
            }
            let memory = MemorySink()
            _ = try plan.export(to: memory)
            let made = try ImageSource(ImageInput(bytes: memory.bytes, name: name), limits: limits)
                .decode().image
            return AnimationFrameDecoder.rgba(made, depth: depth)
        }
        let outcome = try cropper.write(to: sink)
        return AnimationCropReport(
            format: format, size: resampling.size, frames: animation.frames.count,
            plays: animation.plays, totalMilliseconds: animation.totalMilliseconds,
            copied: outcome.copied, losslessAgain: outcome.losslessAgain,
            lossyAgain: outcome.lossyAgain, fromCanvas: outcome.fromCanvas, bytes: outcome.bytes,
            coding: outcome.colorType, droppedMetadata: droppedEntries(into: format),
            warnings: animation.warnings)
    }

    /// ``crop(_:as:to:)-(AnimationResampling,_,_)`` into a file at `path`,
    /// written atomically.
    ///
    /// - Throws: ``ImagingError``; on any error no output is left.
    public func write(
        _ resampling: AnimationResampling, as format: ImageFormat, to path: String,
        replacing: Bool = false
    ) throws(ImagingError) -> AnimationCropReport {
        let writer = try AtomicFile.Writer(path: path, replacing: replacing, protecting: input)
        var report = try crop(resampling, as: format, to: writer)
        try writer.commit()
        report.output = path
        return report
    }
}
