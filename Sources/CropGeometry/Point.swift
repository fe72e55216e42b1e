/// A point in the coordinate space `Space`.
public struct Point<Space: CoordinateSpace>: Hashable, Sendable {
    public var x: Double
    public var y: Double

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
    public var dx: Double
    public var dy: Double

    public init(dx: Double, dy: Double) {
        self.dx = dx
        self.dy = dy
    }
}
