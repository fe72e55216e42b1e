/// The grid of an image recorded beside a photo and aligned to it (an HDR
/// gain map, a depth map, a matte, the other eye of a stereo pair): its own
/// size against the photo's, both in the same pixel space (both as
/// displayed, or both as stored: the cut is the same either way).
///
/// The companion's scale is `sx = Mw / Pw`, `sy = Mh / Ph` (companion over
/// photo). A crop of the photo cuts the companion by
/// ``cut(_:)``: the same numbers an app uses to crop its own gain map
/// (Core Image's `.auxiliaryHDRGainMap`) and CropKit uses to cut the file's.
///
/// ```swift
/// import CropGeometry
///
/// // A 4032x3024 photo with a 1008x756 gain map, cropped to 1000,1000,1200,900.
/// let grid = CompanionGrid(
///     imageSize: PixelSize<ImagePixels>(width: 4032, height: 3024),
///     companionSize: PixelSize(width: 1008, height: 756))!
/// let cut = grid.cut(PixelRect(x: 1000, y: 1000, width: 1200, height: 900))
/// print(cut.size)  // 300x225
/// print(cut.copyRect?.description ?? "sampled")  // 250,250,300,225: an exact copy
/// ```
public struct CompanionGrid<Space: PixelSpace>: Hashable, Sendable {
    /// The photo's size, `Pw`×`Ph`.
    public let imageSize: PixelSize<Space>
    /// The companion's size, `Mw`×`Mh`.
    public let companionSize: PixelSize<Space>

    /// The largest side either image may have: every position of a cut is
    /// then an exact fraction of 64-bit integers.
    public static var maximumSide: Int { 1 << 20 }

    /// The grid of a companion of `companionSize` beside a photo of
    /// `imageSize`; nil when a side is not 1 to ``maximumSide``.
    public init?(imageSize: PixelSize<Space>, companionSize: PixelSize<Space>) {
        let sides = [
            imageSize.width, imageSize.height, companionSize.width, companionSize.height,
        ]
        guard sides.allSatisfy({ $0 >= 1 && $0 <= Self.maximumSide }) else { return nil }
        self.imageSize = imageSize
        self.companionSize = companionSize
    }

    /// `sx = Mw / Pw`, as a `Double` (for display; the cut uses the exact
    /// ratio).
    public var scaleX: Double { Double(companionSize.width) / Double(imageSize.width) }
    /// `sy = Mh / Ph`, as a `Double`.
    public var scaleY: Double { Double(companionSize.height) / Double(imageSize.height) }

    /// How far, as a fraction, the companion's aspect ratio is from the
    /// photo's: `|sx / sy − 1|` (a companion more than 1 % off is not
    /// aligned to its photo).
    public var aspectMismatch: Double {
        let ratio =
            Double(companionSize.width * imageSize.height)
            / Double(companionSize.height * imageSize.width)
        return abs(ratio - 1)
    }

    /// Whether the companion lies on the photo's grid: its aspect ratio
    /// within 1 % of the photo's, or each side within the rounding a cut
    /// gives (`2·|Mh·Pw − Mw·Ph| ≤ Pw + Ph`: a 14x13 matte beside a 41x37
    /// crop, cut from a 0.353 scale, is aligned though 2.8 % off).
    public var isAligned: Bool {
        let (pw, ph) = (imageSize.width, imageSize.height)
        let (mw, mh) = (companionSize.width, companionSize.height)
        return aspectMismatch <= 0.01 || 2 * abs(mh * pw - mw * ph) <= pw + ph
    }

    /// The companion's cut for the crop `rect` of the photo (inside the
    /// photo, at least one pixel each way).
    public func cut(_ rect: PixelRect<Space>) -> CompanionCut<Space> {
        precondition(
            rect.width >= 1 && rect.height >= 1 && rect.x >= 0 && rect.y >= 0
                && rect.maxX <= imageSize.width && rect.maxY <= imageSize.height,
            "the crop lies inside the photo")
        return CompanionCut(grid: self, rect: rect)
    }

    /// The companion's cut for the crop `rect` of the photo resized to
    /// `outputSize` (a variant or an avatar), so that the companion keeps
    /// its scale against the output: `max(1, round(W·sx))` by
    /// `max(1, round(H·sy))` for a `W×H` output, each of its pixels sampled
    /// at the position of ``cut(_:)``'s rule with that output size. With
    /// `outputSize` the rect's own size, this is ``cut(_:)``.
    ///
    /// ```swift
    /// import CropGeometry
    ///
    /// // The same crop of the 4032x3024 photo, as a 400x300 variant.
    /// let grid = CompanionGrid(
    ///     imageSize: PixelSize<ImagePixels>(width: 4032, height: 3024),
    ///     companionSize: PixelSize(width: 1008, height: 756))!
    /// let cut = grid.cut(
    ///     PixelRect(x: 1000, y: 1000, width: 1200, height: 900),
    ///     resizedTo: PixelSize(width: 400, height: 300))
    /// print(cut.size)  // 100x75
    /// print(cut.copyRect?.description ?? "sampled")  // sampled
    /// ```
    public func cut(_ rect: PixelRect<Space>, resizedTo outputSize: PixelSize<Space>)
        -> CompanionCut<Space>
    {
        precondition(
            outputSize.width >= 1 && outputSize.height >= 1, "the output has at least one pixel")
        let plain = cut(rect)
        return CompanionCut(
            grid: self, rect: rect,
            size: PixelSize(
                width: CompanionCut<Space>.scaledSide(
                    outputSize.width, companionSize.width, imageSize.width),
                height: CompanionCut<Space>.scaledSide(
                    outputSize.height, companionSize.height, imageSize.height)),
            plain: plain.size)
    }
}

/// A companion cut to a crop of its photo: its output size, where each of
/// its pixels samples the source companion, and whether that is an exact
/// copy of a whole-pixel rect (DESIGN.md, "Companion images").
///
/// For the crop `(x, y, w, h)`, the output is `W' = max(1, round(w·sx))` by
/// `H' = max(1, round(h·sy))` (round half up), and its pixel `(i, j)`
/// samples the source companion, bilinear, pixel centres at `k + ½`, at
/// `((x + (i + ½)·w/W')·sx − ½, (y + (j + ½)·h/H')·sy − ½)`. A position
/// outside the companion takes its nearest edge pixel.
public struct CompanionCut<Space: PixelSpace>: Hashable, Sendable {
    /// The companion's grid.
    public let grid: CompanionGrid<Space>
    /// The crop of the photo.
    public let rect: PixelRect<Space>
    /// The companion's output size, `W'`×`H'`.
    public let size: PixelSize<Space>

    /// Whether ``size`` is the rect's own scaled size (not resized).
    private let isPlain: Bool

    init(grid: CompanionGrid<Space>, rect: PixelRect<Space>) {
        self.grid = grid
        self.rect = rect
        size = PixelSize(
            width: Self.scaledSide(rect.width, grid.companionSize.width, grid.imageSize.width),
            height: Self.scaledSide(rect.height, grid.companionSize.height, grid.imageSize.height))
        isPlain = true
    }

    /// A resized cut: `size` for the crop `rect`, whose plain cut is
    /// `plain`.
    init(
        grid: CompanionGrid<Space>, rect: PixelRect<Space>, size: PixelSize<Space>,
        plain: PixelSize<Space>
    ) {
        self.grid = grid
        self.rect = rect
        self.size = size
        isPlain = size == plain
    }

    /// `max(1, round(side · to / from))`, round half up.
    static func scaledSide(_ side: Int, _ to: Int, _ from: Int) -> Int {
        max(1, (2 * side * to + from) / (2 * from))
    }

    /// The whole-pixel companion rect the cut copies, when
    /// `x·sx, y·sy, w·sx, h·sy` are whole numbers (every output pixel is
    /// then that rect's pixel, and a coding of blocks or tiles can copy
    /// them); nil when the cut samples between pixels.
    public var copyRect: PixelRect<Space>? {
        guard isPlain else { return nil }
        let (m, p) = (grid.companionSize, grid.imageSize)
        let scaled = [
            (rect.x * m.width, p.width), (rect.y * m.height, p.height),
            (rect.width * m.width, p.width), (rect.height * m.height, p.height),
        ]
        guard scaled.allSatisfy({ $0.0 % $0.1 == 0 }), scaled[2].0 > 0, scaled[3].0 > 0 else {
            return nil
        }
        return PixelRect(
            x: scaled[0].0 / scaled[0].1, y: scaled[1].0 / scaled[1].1,
            width: scaled[2].0 / scaled[2].1, height: scaled[3].0 / scaled[3].1)
    }

    /// Where output column `i` samples the source companion, exactly:
    /// `(x + (i + ½)·w/W')·sx − ½`.
    public func sampleX(_ i: Int) -> CompanionPosition {
        Self.position(
            i, origin: rect.x, side: rect.width, outSide: size.width,
            companion: grid.companionSize.width, image: grid.imageSize.width)
    }

    /// Where output row `j` samples the source companion, exactly:
    /// `(y + (j + ½)·h/H')·sy − ½`.
    public func sampleY(_ j: Int) -> CompanionPosition {
        Self.position(
            j, origin: rect.y, side: rect.height, outSide: size.height,
            companion: grid.companionSize.height, image: grid.imageSize.height)
    }

    /// `((2·o·W' + (2i + 1)·s)·M − W'·P) / (2·W'·P)`: the position with
    /// every term over one denominator.
    private static func position(
        _ i: Int, origin: Int, side: Int, outSide: Int, companion: Int, image: Int
    ) -> CompanionPosition {
        CompanionPosition(
            numerator: (2 * origin * outSide + (2 * i + 1) * side) * companion - outSide * image,
            denominator: 2 * outSide * image)
    }

    /// The companion pixels the cut reads: from the first sample's pixel to
    /// the last one's right (or lower) neighbour when it has a weight,
    /// clamped to the companion. The copy rect, when there is one.
    public var readRect: PixelRect<Space> {
        func span(_ first: CompanionPosition, _ last: CompanionPosition, _ side: Int) -> (Int, Int)
        {
            let start = min(max(first.floor, 0), side - 1)
            let end = min(max(last.floor + (last.isWhole ? 0 : 1), 0), side - 1)
            return (start, max(end, start) - start + 1)
        }
        let (x, w) = span(sampleX(0), sampleX(size.width - 1), grid.companionSize.width)
        let (y, h) = span(sampleY(0), sampleY(size.height - 1), grid.companionSize.height)
        return PixelRect(x: x, y: y, width: w, height: h)
    }
}

/// An exact position on a companion's pixel grid, in pixels (pixel `k`'s
/// centre at `k`): `numerator / denominator`, the denominator positive.
public struct CompanionPosition: Hashable, Sendable {
    /// The numerator.
    public let numerator: Int
    /// The denominator, positive.
    public let denominator: Int

    /// The position `numerator / denominator`.
    public init(numerator: Int, denominator: Int) {
        precondition(denominator > 0, "the denominator is positive")
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The pixel at or left of the position (`⌊numerator / denominator⌋`).
    public var floor: Int {
        let (q, r) = numerator.quotientAndRemainder(dividingBy: denominator)
        return r < 0 ? q - 1 : q
    }

    /// Whether the position is a pixel's centre exactly.
    public var isWhole: Bool { numerator % denominator == 0 }

    /// The weight of the pixel right of ``floor`` in a bilinear sample, 0
    /// up to (not including) 1.
    public var fraction: Double {
        Double(numerator - floor * denominator) / Double(denominator)
    }

    /// The position as a `Double`.
    public var value: Double { Double(numerator) / Double(denominator) }
}

extension CompanionCut {
    /// The bilinear sample at output pixel `(i, j)` of the source
    /// companion whose value at pixel `(x, y)` is `companion(x, y)`, edges
    /// clamped: the reference every cut companion is compared with.
    public func referenceSample(_ i: Int, _ j: Int, of companion: (Int, Int) -> Double)
        -> Double
    {
        let (px, py) = (sampleX(i), sampleY(j))
        let (mw, mh) = (grid.companionSize.width, grid.companionSize.height)
        func clamp(_ v: Int, _ side: Int) -> Int { min(max(v, 0), side - 1) }
        let (x0, y0) = (px.floor, py.floor)
        let (tx, ty) = (px.fraction, py.fraction)
        let a = companion(clamp(x0, mw), clamp(y0, mh))
        let b = companion(clamp(x0 + 1, mw), clamp(y0, mh))
        let c = companion(clamp(x0, mw), clamp(y0 + 1, mh))
        let d = companion(clamp(x0 + 1, mw), clamp(y0 + 1, mh))
        return (a * (1 - tx) + b * tx) * (1 - ty) + (c * (1 - tx) + d * tx) * ty
    }
}
