import CropGeometry
import CropRecords

/// How a plan's crop is made, as its output format's writer chose it:
/// the source's coded data copied, or pixels passed through stages.
///
/// ``CropPlan/strategy`` says which before anything is decoded; the writer
/// then carries it out, and `crop --json` reports it.
public enum CropStrategy: Hashable, Sendable, CustomStringConvertible {
    /// A JPEG's DCT coefficients copied, block by block, on its iMCU
    /// `grid` (edge blocks that would show pixels beyond the rect encoded
    /// again): lossless.
    case coefficientCopy(grid: PixelSize<StoredPixels>)
    /// A HEIF's coded tiles copied on its tile `grid` (edge tiles that would
    /// code pixels beyond the rect encoded again).
    case tileCopy(grid: PixelSize<StoredPixels>)
    /// Pixels decoded and passed through these stages, in order.
    case pixels([CropStage])

    /// "coefficientCopy 16x16", "pixels: decodeRegion, orient, encode".
    public var description: String {
        switch self {
        case .coefficientCopy(let grid): "coefficientCopy \(grid.width)x\(grid.height)"
        case .tileCopy(let grid): "tileCopy \(grid.width)x\(grid.height)"
        case .pixels(let stages): "pixels: " + stages.map(\.rawValue).joined(separator: ", ")
        }
    }

    /// `{kind, grid, stages, summary}`, as `crop --json` gives it: the
    /// kind (`coefficientCopy`, `tileCopy`, `pixels`), the block or tile
    /// grid copied on (`null` for pixels), the stages pixels pass through
    /// (empty for a copy) and ``description``.
    public var json: JSONValue {
        let (kind, grid, stages): (String, PixelSize<StoredPixels>?, [CropStage]) =
            switch self {
            case .coefficientCopy(let grid): ("coefficientCopy", grid, [])
            case .tileCopy(let grid): ("tileCopy", grid, [])
            case .pixels(let stages): ("pixels", nil, stages)
            }
        return .object([
            .init("kind", .string(kind)), .init("grid", grid.map(\.json) ?? .null),
            .init("stages", .array(stages.map { .string($0.rawValue) })),
            .init("summary", .string(description)),
        ])
    }
}

/// A stage pixels pass through on their way from a decoder to an encoder.
public enum CropStage: String, Hashable, Sendable, CaseIterable {
    /// Only the stored rect the crop needs is decoded, as rows.
    case decodeRegion
    /// The rows are turned upright for the orientation.
    case orient
    /// The output is rendered from the region (turned, resized).
    case resample
    /// The output is cut to its inscribed ellipse.
    case mask
    /// Transparency and wide samples are flattened for a format without
    /// them (JPEG: onto white, to 8 bits).
    case flatten
    /// The output format's encoder takes the rows.
    case encode
}

extension CropPlan {
    /// How this crop is made: chosen by the output format's writer from
    /// the source, the rect and the job. Pure: nothing is decoded.
    public var strategy: CropStrategy { decision.strategy }

    /// The stages pixels pass through for this plan, the writer flattening
    /// them when `flattens` (a format without alpha or wide samples).
    func pixelStages(flattens: Bool) -> [CropStage] {
        var stages: [CropStage] = [.decodeRegion]
        if orientation != .up { stages.append(.orient) }
        if let resampling {
            stages.append(.resample)
            if resampling.ellipse { stages.append(.mask) }
        }
        if flattens { stages.append(.flatten) }
        return stages + [.encode]
    }
}
