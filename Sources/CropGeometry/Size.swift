/// A width and height in the coordinate space `Space`.
public struct Size<Space: CoordinateSpace>: Hashable, Sendable {
    /// The width, as given.
    public var width: Double
    /// The height, as given.
    public var height: Double

    /// A size of `width` by `height`, kept exactly as given.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// A whole-pixel width and height in the pixel space `Space`.
public struct PixelSize<Space: PixelSpace>: Hashable, Sendable, CustomStringConvertible {
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int

    /// A size of `width` by `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `widthxheight`, as `--source` takes it: "4000x3000".
    public var description: String { "\(width)x\(height)" }
}
