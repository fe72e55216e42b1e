/// An axis-aligned rectangle in the coordinate space `Space`, in `Double`s.
///
/// The rectangle is stored exactly as given (origin and size); nothing is
/// normalized, so a negative size stays negative and is rejected by the mapping.
public struct Rect<Space: CoordinateSpace>: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public init(origin: Point<Space>, size: Size<Space>) {
        self.init(x: origin.x, y: origin.y, width: size.width, height: size.height)
    }

    public var origin: Point<Space> { Point(x: x, y: y) }
    public var size: Size<Space> { Size(width: width, height: height) }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

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
        let limit = 9.0e15
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
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

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

    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var size: PixelSize<Space> { PixelSize(width: width, height: height) }
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

    public var description: String { "\(x),\(y),\(width),\(height)" }
}
