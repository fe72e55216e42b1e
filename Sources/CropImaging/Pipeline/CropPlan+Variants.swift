import CropGeometry

extension CropPlan {
    /// Writes several crops of one opened image, decoding what their
    /// resampled crops need once: the union of their read rects (at the
    /// smallest JPEG shrink-on-load among them), from which each is
    /// rendered and encoded. A lossless crop among them is written as
    /// ``write(to:replacing:)`` writes it (a DCT-domain or tile-copy crop
    /// decodes nothing).
    ///
    /// Each output is written atomically; an error stops the run, and the
    /// outputs already written stay.
    ///
    /// - Parameters:
    ///   - plans: Plans of one ``ImageSource`` (the same opened file).
    ///   - paths: One output path per plan.
    ///   - replacing: Whether existing files may be replaced.
    /// - Returns: One report per plan, in order.
    /// - Throws: ``ImagingError``.
    public static func writeVariants(
        _ plans: [CropPlan], to paths: [String], replacing: Bool = false
    ) throws(ImagingError) -> [CropReport] {
        precondition(plans.count == paths.count, "one path per plan")
        // Every variant's file, encoder state and ring of output rows are
        // held at once (the JPEG ones are encoded side by side): counted
        // against the budget with the shared region, not each alone.
        var variantsNeed = MemoryNeed()
        var perVariant = 0
        for plan in plans {
            perVariant =
                perVariant.addingReportingOverflow(
                    variantOverheadBytes + plan.outputSize.width * 64 * 4
                ).partialValue
        }
        variantsNeed.add(perVariant, "\(plans.count) variants' files, encoders and row rings")
        if let first = plans.first { try variantsNeed.check(first.source.limits) }
        let resampled = plans.compactMap { plan in plan.resampling.map { (plan, $0) } }
        var region: ResamplingRegion?
        if resampled.count > 1, let first = resampled.first?.0 {
            let shrink = resampled.map(\.1.shrink).min() ?? 1
            let union = resampled.dropFirst().reduce(first.stored) { rect, next in
                let x0 = min(rect.x, next.0.stored.x)
                let y0 = min(rect.y, next.0.stored.y)
                let x1 = max(rect.maxX, next.0.stored.maxX)
                let y1 = max(rect.maxY, next.0.stored.maxY)
                return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            }
            // Every plan sees the image with the same orientation (one file,
            // one job's rule), so one upright region serves them all.
            let orientations = Set(resampled.map(\.0.orientation.rawValue))
            if orientations.count == 1 {
                var need = first.source.decodeMemory(union, streamed: false)
                need.add(
                    variantsNeed.bytes, "\(plans.count) variants' files, encoders and row rings")
                need.add(
                    union.width.multipliedReportingOverflow(by: union.height * 8).partialValue,
                    "the upright shared region")
                try need.check(first.source.limits)
                if let reports = try overlappedJPEGVariants(
                    plans, to: paths, replacing: replacing, union: union, shrink: shrink)
                {
                    return reports
                }
                region = try first.source.decodeForResampling(
                    union, orientation: first.orientation, shrink: shrink, lenient: first.lenient)
            }
        }
        var reports: [CropReport] = []
        for (plan, path) in zip(plans, paths) {
            guard let region, let resample = plan.resampling else {
                reports.append(try plan.write(to: path, replacing: replacing))
                continue
            }
            let writer = try AtomicFile.Writer(
                path: path, replacing: replacing, protecting: plan.source.input)
            // The shared region was decoded at the smallest shrink: the
            // plan's own filter widens for what remains.
            var report = try plan.encodeResampled(
                ResamplePlan(
                    crop: resample.crop, resampler: resample.resampler, shrink: region.shrink,
                    ellipse: resample.ellipse), from: region, to: writer)
            try writer.commit()
            report.output = path
            reports.append(report)
        }
        return reports
    }
}

/// What one variant holds besides its rows: its open file, its encoder's
/// state and its report (measured at about 55 KB a variant).
let variantOverheadBytes = 64 << 10
