/// An axis-aligned rectangle in the coordinate space `Space`, in `Double`s.
///
/// The rectangle is stored exactly as given (origin and size); nothing is
/// normalized, so a negative size stays negative and is rejected by the mapping.
public struct Rect<Space: CoordinateSpace>: Hashable, Sendable, CustomStringConvertible {
    /// The left edge.
    public var x: Double
    /// The top edge (y grows downward, as in UIKit).
    public var y: Double
    /// The width, as given (a negative one is kept, and rejected by the mapping).
    public var width: Double
    /// The height, as given.
    public var height: Double

    /// A rect with this origin and size, kept exactly as given.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// A rect of `origin` and `size`.
    public init(origin: Point<Space>, size: Size<Space>) {
        self.init(x: origin.x, y: origin.y, width: size.width, height: size.height)
    }

    /// The top-left corner.
    public var origin: Point<Space> { Point(x: x, y: y) }
    /// The width and height.
    public var size: Size<Space> { Size(width: width, height: height) }
    /// The right edge, `x + width`.
    public var maxX: Double { x + width }
    /// The bottom edge, `y + height`.
    public var maxY: Double { y + height }

    /// The part this rect and `other` share, or `nil` when it has no area
    /// (what the diagram, the test vectors and the playground clip with).
    package func intersection(_ other: Rect) -> Rect? {
        let x0 = max(x, other.x)
        let y0 = max(y, other.y)
        let x1 = min(maxX, other.maxX)
        let y1 = min(maxY, other.maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// `x,y,width,height`, whole numbers without a fraction.
    public var description: String {
        [x, y, width, height].map { numberText($0) }.joined(
            separator: ",")
    }
}

extension Rect where Space: PixelSpace {
    /// The smallest whole-pixel rectangle that contains this one.
    ///
    /// Exists only for pixel spaces: a rectangle in view points has no pixels,
    /// so `Rect<ViewPoints>.roundedOutward()` does not compile. Edges within
    /// 1e-6 px of an integer are snapped to it first, as the mapping does.
    ///
    /// - Returns: `nil` when a value is not finite or the result is too large
    ///   for `Int`.
    public func roundedOutward() -> PixelRect<Space>? {
        let left = (x + snapTolerance).rounded(.down)
        let top = (y + snapTolerance).rounded(.down)
        let right = (x + width - snapTolerance).rounded(.up)
        let bottom = (y + height - snapTolerance).rounded(.up)
        // Where Int has 32 bits, 2³⁰, so that right − left fits too.
        let limit = intHas64Bits ? 9.0e15 : 0x1p30
        guard [left, top, right, bottom].allSatisfy({ $0.isFinite && abs($0) < limit }) else {
            return nil
        }
        return PixelRect(
            x: Int(left), y: Int(top), width: max(0, Int(right) - Int(left)),
            height: max(0, Int(bottom) - Int(top)))
    }
}

/// A whole-pixel rectangle in the pixel space `Space`.
public struct PixelRect<Space: PixelSpace>: Hashable, Sendable, CustomStringConvertible {
    /// The left edge, in whole pixels.
    public var x: Int
    /// The top edge, in whole pixels.
    public var y: Int
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int

    /// A whole-pixel rect with this origin and size.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole of an image of `size`: from 0,0, `size` wide and high.
    public init(size: PixelSize<Space>) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    /// The column after the right edge, `x + width`.
    public var maxX: Int { x + width }
    /// The row after the bottom edge, `y + height`.
    public var maxY: Int { y + height }
    /// The width and height.
    public var size: PixelSize<Space> { PixelSize(width: width, height: height) }
    /// Whether the rect covers no pixel (a width or height of 0 or less).
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// Whether this rectangle lies wholly inside `0..<size.width × 0..<size.height`.
    public func isInside(_ size: PixelSize<Space>) -> Bool {
        x >= 0 && y >= 0 && width >= 0 && height >= 0 && maxX <= size.width
            && maxY <= size.height
    }

    /// The same rectangle as a `Double` rectangle in the same pixel space.
    public var rect: Rect<Space> {
        Rect(x: Double(x), y: Double(y), width: Double(width), height: Double(height))
    }

    /// `x,y,width,height`, as `--pixels` takes it: "1000,500,2000,2000".
    public var description: String { "\(x),\(y),\(width),\(height)" }
}
