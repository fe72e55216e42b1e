/// A target width-to-height ratio `p:q` in whole numbers, kept in lowest terms.
public struct AspectRatio: Hashable, Sendable, CustomStringConvertible {
    /// The first term, in lowest terms (4 of 4:5).
    public let width: Int
    /// The second term, in lowest terms (5 of 4:5).
    public let height: Int

    /// A ratio of two positive whole numbers, reduced; `nil` when either is not positive.
    public init?(width: Int, height: Int) {
        guard width > 0, height > 0 else { return nil }
        let divisor = greatestCommonDivisor(width, height)
        self.width = width / divisor
        self.height = height / divisor
    }

    /// Parses `"p:q"` (for example `"4:5"`).
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let p = Int(parts[0]), let q = Int(parts[1]),
            p <= 1_000_000_000, q <= 1_000_000_000
        else { return nil }
        self.init(width: p, height: q)
    }

    /// 1:1.
    public static let square = AspectRatio(reduced: 1, 1)

    /// A ratio already in lowest terms, both positive (not checked).
    private init(reduced width: Int, _ height: Int) {
        self.width = width
        self.height = height
    }

    /// `width:height`, as `--aspect` takes it: "4:5".
    public var description: String { "\(width):\(height)" }
}

private func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return a
}

extension PixelRect {
    /// The rectangle with exactly `ratio` that is nearest this one and lies
    /// inside `bounds`.
    ///
    /// "Nearest" is defined on the four edges. Among sizes `k·p × k·q` that fit
    /// in `bounds`, the one minimizing `|k·p − width| + |k·q − height|` wins,
    /// the larger on a tie (rounding outward keeps every selected pixel). That
    /// size is then centred on this rectangle, a half pixel going up or left,
    /// and shifted the least distance needed to lie inside `bounds`. Centring
    /// minimizes the sum of the four edge distances, so the result is the
    /// rectangle of that size nearest this one.
    ///
    /// | rect (x,y,w,h) | bounds | ratio | result |
    /// | --- | --- | --- | --- |
    /// | 10,10,514,513 | 4000×3000 | 1:1 | 10,9,514,514 |
    /// | 10,10,513,500 | 4000×3000 | 1:1 | 10,3,513,513 (every k in 500...513 ties; the largest wins) |
    /// | 0,0,4000,3000 | 4000×3000 | 1:1 | 500,0,3000,3000 |
    /// | 3900,2900,100,101 | 4000×3000 | 1:1 | 3899,2899,101,101 (centred, then moved inside) |
    /// | 100,100,1000,1000 | 4000×3000 | 16:9 | 96,316,1008,567 |
    /// | 0,0,4000,3000 | 4000×3000 | 4:3 | 0,0,4000,3000 |
    ///
    /// - Returns: `nil` when no rectangle of that ratio fits in `bounds`.
    public func fitted(to ratio: AspectRatio, within bounds: PixelSize<Space>) -> PixelRect? {
        let (p, q) = (ratio.width, ratio.height)
        let largest = min(bounds.width / p, bounds.height / q)
        guard largest >= 1 else { return nil }
        let clamp = { (k: Int) in min(max(k, 1), largest) }
        let candidates = Set(
            [
                width / p, (width + p - 1) / p, height / q, (height + q - 1) / q, 1, largest,
            ].map(clamp))
        func distance(_ k: Int) -> Int { abs(k * p - width) + abs(k * q - height) }
        var best = largest
        for k in candidates
        where distance(k) < distance(best) || (distance(k) == distance(best) && k > best) {
            best = k
        }
        let (newWidth, newHeight) = (best * p, best * q)
        func placed(_ start: Int, _ end: Int, _ size: Int, _ limit: Int) -> Int {
            let centred = (start + end - size) >> 1
            return min(max(centred, 0), limit - size)
        }
        return PixelRect(
            x: placed(x, maxX, newWidth, bounds.width),
            y: placed(y, maxY, newHeight, bounds.height),
            width: newWidth, height: newHeight)
    }
}
