/// A width and height in the coordinate space `Space`.
public struct Size<Space: CoordinateSpace>: Hashable, Sendable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// A whole-pixel width and height in the pixel space `Space`.
public struct PixelSize<Space: PixelSpace>: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}
