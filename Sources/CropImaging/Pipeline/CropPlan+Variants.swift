import CropGeometry

extension CropPlan {
    /// Writes several crops of one opened image, decoding what their
    /// resampled crops need once: they are made together from the union
    /// of their read rects, the same road a single resampled crop
    /// (``write(to:replacing:)``) takes as the case of one. A
    /// lossless crop among them is written as ``write(to:replacing:)``
    /// writes it (a DCT-domain or tile-copy crop decodes nothing).
    ///
    /// Each output is written atomically; an error stops the run, and the
    /// outputs already whole stay.
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
        var reports = [CropReport?](repeating: nil, count: plans.count)
        for index in plans.indices where reports[index] == nil {
            let plan = plans[index]
            guard plan.resampling != nil else {
                reports[index] = try plan.write(to: paths[index], replacing: replacing)
                continue
            }
            // The resampled crops that see the image as this one does (one
            // file, one job's rule: all of them) are made together.
            let group = plans.indices.filter { other in
                plans[other].resampling != nil && plans[other].orientation == plan.orientation
            }
            if group.count > 1 {
                let union = readUnion(group.map { plans[$0] })
                var need = plan.source.decodeMemory(union, streamed: false)
                need.add(
                    variantsNeed.bytes, "\(plans.count) variants' files, encoders and row rings")
                need.add(
                    union.width.multipliedReportingOverflow(by: union.height * 8).partialValue,
                    "the upright shared region")
                try need.check(plan.source.limits)
            } else {
                try plan.memoryNeed.check(plan.source.limits)
            }
            var writers: [AtomicFile.Writer] = []
            for other in group {
                writers.append(
                    try AtomicFile.Writer(
                        path: paths[other], replacing: replacing, protecting: plan.source.input))
            }
            let made = try exportResampled(group.map { plans[$0] }, into: writers) {
                member, report throws(ImagingError) in
                try writers[member].commit()
                report.output = paths[group[member]]
            }
            for (member, other) in group.enumerated() { reports[other] = made[member] }
        }
        return reports.map { report in
            guard let report else { preconditionFailure("every plan was written") }
            return report
        }
    }
}

/// What one variant holds besides its rows: its open file, its encoder's
/// state and its report (measured at about 55 KB a variant).
let variantOverheadBytes = 64 << 10
