extension CropRequest {
    /// The rectangle of the view that shows exactly the pixels of `rect`, for
    /// this request's source, viewport, mode, zoom and orientation (the
    /// selection is ignored).
    ///
    /// Use it to draw the overlay of a stored crop, or to restore a selection
    /// after a rotation or a layout change. For any pixel rect that lies inside
    /// the visible part of the image, mapping the returned rect forward gives
    /// back `rect` exactly: each edge lands within far less than the 1e-6 px
    /// snap of its pixel boundary. (Parts of `rect` scrolled out of the view
    /// are outside the viewport and are clipped by a forward mapping.)
    ///
    /// - Parameter rect: Pixels in the oriented (image) grid.
    /// - Returns: The rect in view points.
    /// - Throws: ``CropRejection`` when the layout itself is invalid.
    public func viewRect(for rect: PixelRect<ImagePixels>) throws(CropRejection) -> Rect<ViewPoints>
    {
        try viewRect(forImageRect: rect.rect)
    }

    /// ``viewRect(for:)`` for a rect in image pixels that need not be whole
    /// (a region kept as a fraction of the image, for instance).
    public func viewRect(forImageRect rect: Rect<ImagePixels>) throws(CropRejection) -> Rect<
        ViewPoints
    > {
        let source = try validatedLayout()
        let oriented = orientation.orientedSize(source)
        let ow = Double(oriented.width)
        let oh = Double(oriented.height)
        let display = zoomedDisplayRect(ow: ow, oh: oh, as: Double.self)
        let (originX, originY) = (display.x, display.y)
        let (extentX, extentY) = (display.width, display.height)
        // Multiply before dividing: a pixel boundary lands on the exact view
        // coordinate whenever the product is exact.
        let left = originX + rect.x * extentX / ow
        let right = originX + rect.maxX * extentX / ow
        let top = originY + rect.y * extentY / oh
        let bottom = originY + rect.maxY * extentY / oh
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// ``viewRect(for:)`` for a rect in the stored grid.
    public func viewRect(forStored rect: PixelRect<StoredPixels>) throws(CropRejection)
        -> Rect<ViewPoints>
    {
        let source = try validatedLayout()
        return try viewRect(for: orientation.orientedRect(rect, storedSize: source))
    }

    /// This request with its selection replaced.
    public func with(selection: Rect<ViewPoints>) -> CropRequest {
        var copy = self
        copy.selection = selection
        return copy
    }
}

extension CropRequest {
    /// Where the whole image is drawn in the view after zoom (`D'` in the
    /// contract), in `Double`; it may extend beyond the viewport.
    ///
    /// - Throws: ``CropRejection`` when the layout itself is invalid.
    public func displayRect() throws(CropRejection) -> Rect<ViewPoints> {
        let source = try validatedLayout()
        let oriented = orientation.orientedSize(source)
        let display = zoomedDisplayRect(
            ow: Double(oriented.width), oh: Double(oriented.height), as: Double.self)
        return Rect(x: display.x, y: display.y, width: display.width, height: display.height)
    }
}
