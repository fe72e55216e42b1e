import CropGeometry

/// What a progressive JPEG's scans make a decoder do, summed from the scan
/// headers alone (the entropy-coded data between them is passed over, not
/// decoded).
///
/// A progressive file is decoded whole into coefficient buffers whatever
/// the crop, and each scan walks every block of each component it names,
/// whatever its spectral band: the work is the blocks all scans visit
/// together. An encoder's scans visit each block a few times (libjpeg's
/// standard script about 5 times over the frame's blocks, at most 6 in the
/// files measured); a scan bomb repeats scans to visit them hundreds of
/// times. ``DecodeLimits/maxScanPasses`` bounds ``passes``.
public struct ScanWork: Hashable, Sendable {
    /// The scans in the file.
    public var scans: Int
    /// The blocks all scans visit together: each scan's components' blocks.
    public var blockVisits: Int
    /// The frame's blocks, every component's.
    public var frameBlocks: Int

    /// How many times over the scans visit the frame's blocks.
    public var passes: Double { Double(blockVisits) / Double(max(frameBlocks, 1)) }

    /// Walks the scans from the first one (whose header, `firstScanHeader`,
    /// was just read from `file`) to EOI, refusing past `limits` as soon as
    /// a scan header takes the sum over.
    static func sum(
        _ file: InputCursor, firstScanHeader: [UInt8], frame: JPEGFileInfo, limits: DecodeLimits
    ) throws(ImagingError) -> ScanWork {
        let maxH = frame.horizontalSampling.max() ?? 1
        let maxV = frame.verticalSampling.max() ?? 1
        let blocks = zip(frame.horizontalSampling, frame.verticalSampling).map { h, v in
            let columns = (frame.width * h + maxH - 1) / max(maxH, 1)
            let rows = (frame.height * v + maxV - 1) / max(maxV, 1)
            return ((columns + 7) / 8) * ((rows + 7) / 8)
        }
        var work = ScanWork(scans: 0, blockVisits: 0, frameBlocks: blocks.reduce(0, +))
        let budget = limits.maxScanPasses.multipliedReportingOverflow(by: work.frameBlocks)
        var next: [UInt8]? = firstScanHeader
        while true {
            // A scan header: Ns, then Ns component selectors, then Ss, Se,
            // Ah/Al. A damaged one is left to the decoder to report.
            guard let header = next, let count = header.first,
                header.count >= 1 + 2 * Int(count) + 3
            else { return work }
            work.scans += 1
            for index in 0..<Int(count) {
                if let component = frame.componentIDs.firstIndex(of: Int(header[1 + 2 * index])) {
                    work.blockVisits += blocks[component]
                }
            }
            guard work.scans <= limits.maxScans else {
                throw .limitExceeded(.scans, limit: limits.maxScans, actual: work.scans)
            }
            guard budget.overflow || work.blockVisits <= budget.partialValue else {
                throw .limitExceeded(
                    .scanPasses, limit: limits.maxScanPasses, actual: Int(work.passes.rounded(.up)))
            }
            // To the next scan header, past the tables between scans.
            while true {
                guard let marker = try file.nextJPEGMarker(), marker != 0xD9,
                    let lengthBytes = try file.read(2)
                else { return work }
                let segment = (Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])) - 2
                if marker == 0xDA {
                    next = segment >= 0 ? try file.read(segment) : nil
                    break
                }
                guard segment >= 0, file.skip(segment) else { return work }
            }
        }
    }
}
