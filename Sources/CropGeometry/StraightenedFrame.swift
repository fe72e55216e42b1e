/// The straightened pixel frame `P` of an image turned by an angle: where
/// each of its points samples the image, which image pixels a rect of it
/// covers, and the largest rect of it that lies wholly inside the image.
///
/// `P` is the image grid turned by `θ` about the image's centre
/// `c = (ow/2, oh/2)`; a point `p` of `P` shows the image at
/// `q = R(−θ)(p − c) + c`, where `R(θ)` turns clockwise on a screen whose y
/// axis points down. At `θ = 0`, `P` is the image grid.
///
/// The turn is computed in `Double` from ``cosine`` and ``sine``, which are
/// exact at every multiple of 90° (so a quarter turn moves pixel edges onto
/// pixel edges); every decision about whole pixels (``isInside(_:)``,
/// ``readRect(for:support:)``) is exact for those two `Double` values.
public struct StraightenedFrame: Hashable, Sendable {
    /// The image as the person sees it (after the EXIF orientation).
    public let imageSize: PixelSize<ImagePixels>
    /// The angle θ in degrees, positive clockwise as seen on screen.
    public let angle: Double
    /// `cos θ` as used for every position.
    public let cosine: Double
    /// `sin θ` as used for every position.
    public let sine: Double

    /// The frame of an image of `imageSize` turned by `angle` degrees.
    ///
    /// - Throws: ``CropRejection/nonFinite(field:)`` for a NaN or infinite
    ///   angle, ``CropRejection/sourceNotPositiveInteger(width:height:)``
    ///   for an empty image.
    public init(imageSize: PixelSize<ImagePixels>, angle: Double) throws(CropRejection) {
        guard angle.isFinite else { throw .nonFinite(field: "angle") }
        guard imageSize.width > 0, imageSize.height > 0,
            Double(imageSize.width) <= CropRequest.maximumSourceDimension,
            Double(imageSize.height) <= CropRequest.maximumSourceDimension
        else {
            throw .sourceNotPositiveInteger(
                width: Double(imageSize.width), height: Double(imageSize.height))
        }
        self.imageSize = imageSize
        self.angle = angle
        (cosine, sine) = Self.cosineAndSine(degrees: angle)
    }

    /// `cos` and `sin` of an angle in degrees: the angle is reduced exactly
    /// to within 45° of a multiple of 90°, whose cosine and sine are exact
    /// (0 or ±1), and the rest is turned in radians. So 90°, 180°, −90° and
    /// 360° give exact quarter turns, and `−θ` gives exactly the mirror
    /// values of `θ`. The rest's cosine and sine are CropKit's own,
    /// correctly rounded and the same on every platform (`Trigonometry`).
    public static func cosineAndSine(degrees: Double) -> (cosine: Double, sine: Double) {
        // `truncatingRemainder` is exact; so is the subtraction of the
        // nearest multiple of 90 (both terms are within a factor of two).
        let reduced = degrees.truncatingRemainder(dividingBy: 360)
        let quarters = (reduced / 90).rounded()
        let rest = reduced - 90 * quarters
        let radians = rest * (Double.pi / 180)
        let (c, s) =
            rest == 0 ? (1.0, 0.0) : (Trigonometry.cosine(radians), Trigonometry.sine(radians))
        switch ((Int(quarters) % 4) + 4) % 4 {
        case 0: return (c, s)
        case 1: return (-s, c)
        case 2: return (-c, -s)
        default: return (s, -c)
        }
    }

    /// The image's centre `c`, which the turn keeps in place.
    public var center: Point<ImagePixels> {
        Point(x: Double(imageSize.width) / 2, y: Double(imageSize.height) / 2)
    }

    /// Where `p` in the frame samples the image: `q = R(−θ)(p − c) + c`.
    @inline(__always)
    public func imagePosition(of p: Point<StraightenedPixels>) -> Point<ImagePixels> {
        let (cx, cy) = (Double(imageSize.width) / 2, Double(imageSize.height) / 2)
        let (dx, dy) = (p.x - cx, p.y - cy)
        return Point(x: cx + cosine * dx + sine * dy, y: cy - sine * dx + cosine * dy)
    }

    /// Where the image point `q` is shown in the frame: `p = R(θ)(q − c) + c`.
    public func framePosition(of q: Point<ImagePixels>) -> Point<StraightenedPixels> {
        let (cx, cy) = (Double(imageSize.width) / 2, Double(imageSize.height) / 2)
        let (dx, dy) = (q.x - cx, q.y - cy)
        return Point(x: cx + cosine * dx - sine * dy, y: cy + sine * dx + cosine * dy)
    }

    /// The four corners of `rect` in the image: top-left, top-right,
    /// bottom-right, bottom-left as seen in the frame.
    public func quad(of rect: PixelRect<StraightenedPixels>) -> [Point<ImagePixels>] {
        corners(of: rect).map { imagePosition(of: $0) }
    }

    /// Whether every point of `rect` shows the image (no fill), exactly for
    /// ``cosine`` and ``sine``, to the contract's snap: a corner may lie up to
    /// 1e-6 px outside the image.
    public func isInside(_ rect: PixelRect<StraightenedPixels>) -> Bool {
        guard !rect.isEmpty else { return false }
        // Decided in `Double` when every corner is clearly in or one is
        // clearly out; exactly otherwise.
        let (w, h) = (Double(imageSize.width), Double(imageSize.height))
        // Each corner is a few roundings of terms no larger than this sum:
        // 64 units in the last place of it bound the error with room.
        let margin =
            64 * Double.ulpOfOne
            * (w + h + Double(abs(rect.x) + abs(rect.y) + rect.width + rect.height))
        var undecided = false
        for q in quad(of: rect) {
            let slack = min(
                min(q.x + snapTolerance, w + snapTolerance - q.x),
                min(q.y + snapTolerance, h + snapTolerance - q.y))
            if slack < -margin { return false }
            if slack <= margin { undecided = true }
        }
        if !undecided { return true }
        let low = ExactRational(0) - ExactRational(1) / ExactRational(snapDenominator)
        let width = ExactRational(imageSize.width) - low
        let height = ExactRational(imageSize.height) - low
        for corner in exactQuad(of: rect) {
            guard ExactRational.compare(corner.x, low) >= 0,
                ExactRational.compare(corner.x, width) <= 0,
                ExactRational.compare(corner.y, low) >= 0,
                ExactRational.compare(corner.y, height) <= 0
            else { return false }
        }
        return true
    }

    /// Whether `rect` shows any of the image: its quad and the image overlap
    /// with a positive area (two convex shapes with no separating axis).
    public func overlapsImage(_ rect: PixelRect<StraightenedPixels>) -> Bool {
        guard !rect.isEmpty else { return false }
        let quad = self.quad(of: rect)
        let image = [
            (0.0, 0.0), (Double(imageSize.width), 0),
            (Double(imageSize.width), Double(imageSize.height)),
            (0, Double(imageSize.height)),
        ]
        func separated(_ axis: (Double, Double)) -> Bool {
            let a = quad.map { $0.x * axis.0 + $0.y * axis.1 }
            let b = image.map { $0.0 * axis.0 + $0.1 * axis.1 }
            return a.reduce(-Double.infinity, max) <= b.reduce(Double.infinity, min)
                || b.reduce(-Double.infinity, max) <= a.reduce(Double.infinity, min)
        }
        // The image's own axes, and the quad's (the frame's axes turned).
        return
            !(separated((1, 0)) || separated((0, 1)) || separated((cosine, -sine))
            || separated((sine, cosine)))
    }

    /// The image pixels a decoder must read to sample every point of `rect`
    /// with a filter that reaches `support` pixels from a sample position:
    /// the bounding box of the rect's quad grown by `support`, rounded
    /// outward and clamped to the image, exactly for ``cosine`` and ``sine``.
    ///
    /// - Parameters:
    ///   - rect: Pixels of the frame.
    ///   - support: How far from its position a sample reads, in image
    ///     pixels (½ for nearest, 1 for bilinear, 3 × the reduction for
    ///     Lanczos-3); at least 0.
    /// - Returns: `nil` when the grown box misses the image.
    public func readRect(for rect: PixelRect<StraightenedPixels>, support: Double)
        -> PixelRect<ImagePixels>?
    {
        guard !rect.isEmpty, support.isFinite, support >= 0 else { return nil }
        let quad = exactQuad(of: rect)
        let grow = ExactRational(support)
        func extreme(_ values: [ExactRational], lowest: Bool) -> ExactRational {
            values.dropFirst().reduce(values[0]) {
                lowest ? ExactRational.min($0, $1) : ExactRational.max($0, $1)
            }
        }
        guard let left = (extreme(quad.map { $0.x }, lowest: true) - grow).floor(),
            let right = (extreme(quad.map { $0.x }, lowest: false) + grow).ceiling(),
            let top = (extreme(quad.map { $0.y }, lowest: true) - grow).floor(),
            let bottom = (extreme(quad.map { $0.y }, lowest: false) + grow).ceiling()
        else { return nil }
        let x0 = max(left, 0)
        let y0 = max(top, 0)
        let x1 = min(right, imageSize.width)
        let y1 = min(bottom, imageSize.height)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The largest rect of the frame that lies wholly inside the turned
    /// image (``isInside(_:)``), as a crop screen shrinks the crop while the
    /// person straightens, so that no fill is ever needed.
    ///
    /// The rect is centred on the image's centre (its left and top edges
    /// are `⌊(ow − w)/2⌋` and `⌊(oh − h)/2⌋` after moving into the frame's
    /// whole pixels). Without an aspect ratio it has the largest area; with
    /// one, its width and height are exactly in that ratio, as large as
    /// fits.
    ///
    /// - Parameter aspect: The exact ratio to keep, or `nil` for the
    ///   largest area.
    /// - Returns: `nil` when not even one pixel (or one unit of the ratio)
    ///   fits.
    public func largestRectInside(aspect: AspectRatio? = nil) -> PixelRect<StraightenedPixels>? {
        let (w, h) = (Double(imageSize.width), Double(imageSize.height))
        let (c, s) = (abs(cosine), abs(sine))
        if let aspect {
            // Half-sizes k·p/2, k·q/2 fit about the exact centre when
            // k·(p·c + q·s) ≤ w and k·(p·s + q·c) ≤ h; rounding the centre
            // can only lower that.
            let (p, q) = (Double(aspect.width), Double(aspect.height))
            let bound = min(w / (p * c + q * s), h / (p * s + q * c))
            let top = Int(min(bound, 0x1p40).rounded(.down)) + 1
            let k = Self.largest(upTo: top) { k in
                centred(width: k * aspect.width, height: k * aspect.height).map(isInside) ?? false
            }
            return k.flatMap { centred(width: $0 * aspect.width, height: $0 * aspect.height) }
        }
        // Every width the turned image could hold, each with its tallest
        // height; past 20 000 widths, those near the continuous optimum
        // (where the rect touches two opposite sides, or all four).
        let widest = Int(min(w * c + h * s, 0x1p40).rounded(.up))
        var widths = 1...max(1, widest)
        if widest > 20_000 {
            let (long, short) = w >= h ? (w, h) : (h, w)
            let width: Double
            if short <= 2 * s * c * long || abs(s - c) < 1e-10 {
                width = w >= h ? (short / 2) / s : (short / 2) / c
            } else {
                width = (w * c - h * s) / (c * c - s * s)
            }
            let guess = Int(min(max(width, 1), Double(widest)).rounded())
            widths = max(1, guess - 200)...min(widest, guess + 200)
        }
        var best: PixelRect<StraightenedPixels>?
        var bestArea = 0
        for width in widths {
            let heightBound = Int(min(h * c + w * s, 0x1p40).rounded(.up))
            // Only heights that could beat the best so far need a look.
            guard width * heightBound > bestArea,
                let height = Self.largest(
                    upTo: heightBound,
                    where: { centred(width: width, height: $0).map(isInside) ?? false })
            else { continue }
            if width * height > bestArea {
                bestArea = width * height
                best = centred(width: width, height: height)
            }
        }
        return best
    }

    /// The largest `n` in `1...top` with `fits(n)`, where `fits` holds for
    /// a whole prefix of each parity class (a centred rect grows by one
    /// pixel on each side as its size grows by two); `nil` when none.
    private static func largest(upTo top: Int, where fits: (Int) -> Bool) -> Int? {
        var best: Int?
        for start in [1, 2] where start <= top {
            // Binary search over start, start + 2, …, up to top.
            guard fits(start) else { continue }
            var (low, high) = (0, (top - start) / 2)
            while low < high {
                let middle = (low + high + 1) / 2
                if fits(start + 2 * middle) { low = middle } else { high = middle - 1 }
            }
            best = max(best ?? 0, start + 2 * low)
        }
        return best
    }

    /// The rect of `width × height` whose centre is nearest the image's
    /// centre (left and top rounded down).
    private func centred(width: Int, height: Int) -> PixelRect<StraightenedPixels>? {
        guard width > 0, height > 0 else { return nil }
        let x = Int(((Double(imageSize.width) - Double(width)) / 2).rounded(.down))
        let y = Int(((Double(imageSize.height) - Double(height)) / 2).rounded(.down))
        return PixelRect(x: x, y: y, width: width, height: height)
    }

    private func corners(of rect: PixelRect<StraightenedPixels>) -> [Point<StraightenedPixels>] {
        let (x0, y0) = (Double(rect.x), Double(rect.y))
        let (x1, y1) = (Double(rect.maxX), Double(rect.maxY))
        return [Point(x: x0, y: y0), Point(x: x1, y: y0), Point(x: x1, y: y1), Point(x: x0, y: y1)]
    }

    /// The corners of `rect` in the image, exactly for ``cosine`` and ``sine``.
    private func exactQuad(of rect: PixelRect<StraightenedPixels>) -> [(
        x: ExactRational, y: ExactRational
    )] {
        let two = ExactRational(2)
        let cx = ExactRational(imageSize.width) / two
        let cy = ExactRational(imageSize.height) / two
        let (c, s) = (ExactRational(cosine), ExactRational(sine))
        return [(rect.x, rect.y), (rect.maxX, rect.y), (rect.maxX, rect.maxY), (rect.x, rect.maxY)]
            .map { corner in
                let dx = ExactRational(corner.0) - cx
                let dy = ExactRational(corner.1) - cy
                return (x: cx + c * dx + s * dy, y: cy - s * dx + c * dy)
            }
    }
}
