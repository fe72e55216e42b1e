/// A zoom applied to the display rect: scale `z` about the view's origin, then
/// shifted by the scroll view's content offset.
///
/// The displayed rect becomes `(D.x·z − ox, D.y·z − oy, D.w·z, D.h·z)`.
public struct Zoom: Hashable, Sendable {
    /// The zoom scale `z`; must be positive and finite.
    public var scale: Double
    /// The content offset `(ox, oy)`, in points.
    public var offset: Vector<ViewPoints>

    /// A zoom of `scale` with the content offset `offset` (a scroll view's `zoomScale` and `contentOffset`).
    public init(scale: Double = 1, offset: Vector<ViewPoints> = Vector(dx: 0, dy: 0)) {
        self.scale = scale
        self.offset = offset
    }

    /// No zoom: scale 1 and offset 0,0.
    public static let identity = Zoom()
}
