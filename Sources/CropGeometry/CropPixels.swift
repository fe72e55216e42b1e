#if canImport(Foundation)
    import Foundation

    /// The article's function, with its exact signature: the source pixels an
    /// aspect-fit selection covers, or `nil` when it covers none.
    ///
    /// Computed by ``CropRequest/map()`` (exact; orientation 1, no zoom), so it
    /// never returns the one-pixel row or the grown edge that a plain `Double`
    /// computation does.
    ///
    /// - Parameters:
    ///   - source: The image's pixel size (a `CGImage`'s width and height).
    ///   - viewport: The image view's size, in points.
    ///   - selection: The selection, in the view's points.
    /// - Returns: The pixel rect, or `nil` when the input is invalid or the
    ///   selection covers no pixel. ``CropRequest/result()`` says which.
    public func cropPixels(source: CGSize, viewport: CGSize, selection: CGRect) -> CGRect? {
        let request = CropRequest(
            sourceSize: Size(width: Double(source.width), height: Double(source.height)),
            viewport: Size(width: Double(viewport.width), height: Double(viewport.height)),
            selection: Rect(
                x: Double(selection.origin.x), y: Double(selection.origin.y),
                width: Double(selection.size.width), height: Double(selection.size.height)))
        guard let rect = try? request.map().rect else { return nil }
        return CGRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }
#endif
