/// A point in the coordinate space `Space`.
public struct Point<Space: CoordinateSpace>: Hashable, Sendable {
    /// The horizontal coordinate.
    public var x: Double
    /// The vertical coordinate (growing downward).
    public var y: Double

    /// The point at `x`, `y`.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The vector that takes `rhs` to `lhs`.
    public static func - (lhs: Point, rhs: Point) -> Vector<Space> {
        Vector(dx: lhs.x - rhs.x, dy: lhs.y - rhs.y)
    }

    /// This point moved by `rhs`.
    public static func + (lhs: Point, rhs: Vector<Space>) -> Point {
        Point(x: lhs.x + rhs.dx, y: lhs.y + rhs.dy)
    }
}

/// A displacement in the coordinate space `Space`.
public struct Vector<Space: CoordinateSpace>: Hashable, Sendable {
    /// The horizontal component.
    public var dx: Double
    /// The vertical component.
    public var dy: Double

    /// The vector `dx`, `dy`.
    public init(dx: Double, dy: Double) {
        self.dx = dx
        self.dy = dy
    }
}
