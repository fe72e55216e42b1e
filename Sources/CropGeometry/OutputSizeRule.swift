/// How the output size of a crop is chosen from the size of its output rect
/// `O`: exactly, to fit a box with the aspect kept, or by one side.
///
/// A derived side is rounded to the nearest whole pixel (halves up) and is
/// at least 1:
///
/// | rule | `O` | output |
/// | --- | --- | --- |
/// | `exact(512×512)` | 3000×2000 | 512×512 (the aspect changes) |
/// | `fit(1080×1080)` | 3000×2000 | 1080×720 |
/// | `fit(1080×1080)` | 2000×3000 | 720×1080 |
/// | `width(1080)` | 4032×3024 | 1080×810 |
/// | `height(100)` | 3×1000 | 1×100 (0.3 rounds up to the minimum 1) |
public enum OutputSizeRule: Hashable, Sendable, CustomStringConvertible {
    /// Exactly this size (`--size WxH`); the aspect follows.
    case exact(PixelSize<StraightenedPixels>)
    /// The largest size inside this box with the aspect of `O` (`--fit WxH`).
    case fit(PixelSize<StraightenedPixels>)
    /// This width, the height in proportion (`--width W`).
    case width(Int)
    /// This height, the width in proportion (`--height H`).
    case height(Int)

    /// The output size for an output rect of `size`, or `nil` when the rule
    /// asks for a side of 0 or less, or the size is empty.
    public func outputSize(for size: PixelSize<StraightenedPixels>) -> PixelSize<
        StraightenedPixels
    >? {
        guard size.width > 0, size.height > 0 else { return nil }
        /// `part · whole / of` rounded half up, at least 1, in full width;
        /// `nil` when it does not fit in an `Int`.
        func scaled(_ part: Int, by whole: Int, over of: Int) -> Int? {
            let product = (2 * part).multipliedFullWidth(by: whole)
            let sum = product.low.addingReportingOverflow(UInt(of))
            let high = product.high + (sum.overflow ? 1 : 0)
            guard high < of else { return nil }
            return max(1, (2 * of).dividingFullWidth((high: high, low: sum.partialValue)).quotient)
        }
        switch self {
        case .exact(let box):
            guard box.width > 0, box.height > 0 else { return nil }
            return box
        case .fit(let box):
            guard box.width > 0, box.height > 0 else { return nil }
            // Width-limited when box.w / O.w ≤ box.h / O.h.
            let across = box.width.multipliedFullWidth(by: size.height)
            let down = box.height.multipliedFullWidth(by: size.width)
            if across.high < down.high || (across.high == down.high && across.low <= down.low) {
                guard let height = scaled(size.height, by: box.width, over: size.width) else {
                    return nil
                }
                return PixelSize(width: box.width, height: min(box.height, height))
            }
            guard let width = scaled(size.width, by: box.height, over: size.height) else {
                return nil
            }
            return PixelSize(width: min(box.width, width), height: box.height)
        case .width(let width):
            guard width > 0 else { return nil }
            guard let height = scaled(size.height, by: width, over: size.width) else { return nil }
            return PixelSize(width: width, height: height)
        case .height(let height):
            guard height > 0 else { return nil }
            guard let width = scaled(size.width, by: height, over: size.height) else { return nil }
            return PixelSize(width: width, height: height)
        }
    }

    /// The rule as its command-line option: `--size 512x512`, `--fit 1080x1080`,
    /// `--width 1080`, `--height 100`.
    public var description: String {
        switch self {
        case .exact(let box): "--size \(box.width)x\(box.height)"
        case .fit(let box): "--fit \(box.width)x\(box.height)"
        case .width(let width): "--width \(width)"
        case .height(let height): "--height \(height)"
        }
    }
}
