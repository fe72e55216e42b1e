/// The EXIF orientation tag (1–8): how the stored pixels are turned to be
/// shown upright.
///
/// For a stored pixel `(x, y)` in an `sw×sh` buffer, the pixel the person sees:
///
/// | value | name | seen at `(X, Y)` | oriented size |
/// | --- | --- | --- | --- |
/// | 1 | up | `(x, y)` | `sw×sh` |
/// | 2 | mirrored | `(sw−1−x, y)` | `sw×sh` |
/// | 3 | rotated 180° | `(sw−1−x, sh−1−y)` | `sw×sh` |
/// | 4 | mirrored vertically | `(x, sh−1−y)` | `sw×sh` |
/// | 5 | transposed | `(y, x)` | `sh×sw` |
/// | 6 | rotated 90° clockwise | `(sh−1−y, x)` | `sh×sw` |
/// | 7 | transversed | `(sh−1−y, sw−1−x)` | `sh×sw` |
/// | 8 | rotated 90° counter-clockwise | `(y, sw−1−x)` | `sh×sw` |
public enum EXIFOrientation: Int, CaseIterable, Hashable, Sendable {
    /// 1: the stored pixels are upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: turned half a turn.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the main diagonal (rows become columns).
    case leftMirrored = 5
    /// 6: shown turned a quarter turn clockwise (a phone held upright).
    case right = 6
    /// 7: mirrored along the anti-diagonal.
    case rightMirrored = 7
    /// 8: shown turned a quarter turn counter-clockwise.
    case left = 8

    /// Whether the oriented image is the stored one turned a quarter (5–8).
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The orientation that turns the seen image back to the stored one:
    /// a quarter turn each way (6 and 8) undo each other, and every other
    /// orientation undoes itself.
    public var inverse: EXIFOrientation {
        switch self {
        case .right: .left
        case .left: .right
        default: self
        }
    }

    /// The size the person sees for a stored buffer of `stored` size.
    public func orientedSize(_ stored: PixelSize<StoredPixels>) -> PixelSize<ImagePixels> {
        swapsAxes
            ? PixelSize(width: stored.height, height: stored.width)
            : PixelSize(width: stored.width, height: stored.height)
    }

    /// The stored size behind an oriented image of `oriented` size.
    public func storedSize(_ oriented: PixelSize<ImagePixels>) -> PixelSize<StoredPixels> {
        swapsAxes
            ? PixelSize(width: oriented.height, height: oriented.width)
            : PixelSize(width: oriented.width, height: oriented.height)
    }

    /// The stored pixels behind an oriented rectangle.
    ///
    /// - Parameters:
    ///   - rect: A rectangle in the oriented (image) grid.
    ///   - stored: The stored buffer's size `sw×sh`.
    /// - Returns: The rectangle of the stored grid that holds exactly those pixels.
    public func storedRect(
        _ rect: PixelRect<ImagePixels>, storedSize stored: PixelSize<StoredPixels>
    ) -> PixelRect<StoredPixels> {
        let (sw, sh) = (stored.width, stored.height)
        let (x0, y0, x1, y1) = (rect.x, rect.y, rect.maxX, rect.maxY)
        // Each case inverts the table above on half-open intervals: a stored
        // column x is seen at X = sw−1−x, so X in [x0, x1) is x in [sw−x1, sw−x0).
        let (sx0, sy0, sx1, sy1): (Int, Int, Int, Int)
        switch self {
        case .up: (sx0, sy0, sx1, sy1) = (x0, y0, x1, y1)
        case .upMirrored: (sx0, sy0, sx1, sy1) = (sw - x1, y0, sw - x0, y1)
        case .down: (sx0, sy0, sx1, sy1) = (sw - x1, sh - y1, sw - x0, sh - y0)
        case .downMirrored: (sx0, sy0, sx1, sy1) = (x0, sh - y1, x1, sh - y0)
        case .leftMirrored: (sx0, sy0, sx1, sy1) = (y0, x0, y1, x1)
        case .right: (sx0, sy0, sx1, sy1) = (y0, sh - x1, y1, sh - x0)
        case .rightMirrored: (sx0, sy0, sx1, sy1) = (sw - y1, sh - x1, sw - y0, sh - x0)
        case .left: (sx0, sy0, sx1, sy1) = (sw - y1, x0, sw - y0, x1)
        }
        return PixelRect(x: sx0, y: sy0, width: sx1 - sx0, height: sy1 - sy0)
    }

    /// The oriented rectangle the person sees for a stored rectangle.
    ///
    /// The inverse of ``storedRect(_:storedSize:)``.
    public func orientedRect(
        _ rect: PixelRect<StoredPixels>, storedSize stored: PixelSize<StoredPixels>
    ) -> PixelRect<ImagePixels> {
        let (sw, sh) = (stored.width, stored.height)
        let (x0, y0, x1, y1) = (rect.x, rect.y, rect.maxX, rect.maxY)
        let (ox0, oy0, ox1, oy1): (Int, Int, Int, Int)
        switch self {
        case .up: (ox0, oy0, ox1, oy1) = (x0, y0, x1, y1)
        case .upMirrored: (ox0, oy0, ox1, oy1) = (sw - x1, y0, sw - x0, y1)
        case .down: (ox0, oy0, ox1, oy1) = (sw - x1, sh - y1, sw - x0, sh - y0)
        case .downMirrored: (ox0, oy0, ox1, oy1) = (x0, sh - y1, x1, sh - y0)
        case .leftMirrored: (ox0, oy0, ox1, oy1) = (y0, x0, y1, x1)
        case .right: (ox0, oy0, ox1, oy1) = (sh - y1, x0, sh - y0, x1)
        case .rightMirrored: (ox0, oy0, ox1, oy1) = (sh - y1, sw - x1, sh - y0, sw - x0)
        case .left: (ox0, oy0, ox1, oy1) = (y0, sw - x1, y1, sw - x0)
        }
        return PixelRect(x: ox0, y: oy0, width: ox1 - ox0, height: oy1 - oy0)
    }

    /// Where the stored pixel `(x, y)` is seen, per the table above.
    public func orientedPoint(x: Int, y: Int, storedSize stored: PixelSize<StoredPixels>)
        -> (x: Int, y: Int)
    {
        let (sw, sh) = (stored.width, stored.height)
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (sw - 1 - x, y)
        case .down: return (sw - 1 - x, sh - 1 - y)
        case .downMirrored: return (x, sh - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (sh - 1 - y, x)
        case .rightMirrored: return (sh - 1 - y, sw - 1 - x)
        case .left: return (y, sw - 1 - x)
        }
    }

    /// How to walk an image of `stored` size turned for this orientation row
    /// by row: the stored pixel seen at `(X, Y)` is `origin + X·across +
    /// Y·down`.
    package func storedWalk(storedSize stored: PixelSize<StoredPixels>) -> (
        origin: (x: Int, y: Int), across: (x: Int, y: Int), down: (x: Int, y: Int)
    ) {
        let size = orientedSize(stored)
        func storedPoint(_ x: Int, _ y: Int) -> (x: Int, y: Int) {
            let rect = storedRect(PixelRect(x: x, y: y, width: 1, height: 1), storedSize: stored)
            return (rect.x, rect.y)
        }
        let origin = storedPoint(0, 0)
        let right = size.width > 1 ? storedPoint(1, 0) : origin
        let below = size.height > 1 ? storedPoint(0, 1) : origin
        return (
            origin, (right.x - origin.x, right.y - origin.y),
            (below.x - origin.x, below.y - origin.y)
        )
    }
}
