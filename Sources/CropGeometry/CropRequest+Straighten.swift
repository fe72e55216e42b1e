extension CropRequest {
    /// The crop of a turned (or resized) request, per "Straighten and
    /// resize" in the contract.
    ///
    /// With ``angle`` 0 the output rect is ``map()``'s rect (so the crop is
    /// lossless unless `size` asks for another size). Otherwise the
    /// selection, clipped to the viewport, is moved into the straightened
    /// frame (`p = (v − centre(D')) / s + c`), snapped and rounded outward,
    /// exactly: that is the output rect `O`. It may reach beyond the turned
    /// image; that part of the output is fill.
    ///
    /// - Parameter size: How the output size is chosen; `nil` for `O`'s own.
    /// - Returns: The output rect, the output size and the sample positions.
    /// - Throws: ``CropRejection``: the contract's rules;
    ///   ``CropRejection/nonUniformScaleCannotTurn``;
    ///   ``CropRejection/noImagePixels`` when `O` shows none of the image;
    ///   ``CropRejection/outputTooLarge``.
    public func straightened(size: OutputSizeRule? = nil) throws(CropRejection)
        -> StraightenedCrop
    {
        let source = try validatedSourceSize()
        let oriented = orientation.orientedSize(source)
        let frame = try StraightenedFrame(imageSize: oriented, angle: angle)
        let rect: PixelRect<StraightenedPixels>
        if angle == 0 {
            var unturned = self
            unturned.angle = 0
            let mapped = try unturned.map().rect
            rect = PixelRect(x: mapped.x, y: mapped.y, width: mapped.width, height: mapped.height)
        } else {
            guard displayScaleIsUniform(oriented: oriented) else {
                throw .nonUniformScaleCannotTurn
            }
            guard let exact = exactStraightenedRect(oriented: oriented) else {
                throw .noImagePixels
            }
            guard let exact else { throw .outputTooLarge }
            rect = exact
        }
        let crop = try StraightenedCrop(frame: frame, rect: rect, orientation: orientation)
        guard let size else { return crop }
        return try crop.resized(size)
    }

    /// The straightened frame of this request's image at its angle.
    ///
    /// - Throws: ``CropRejection`` when the source size or angle is invalid.
    public func straightenedFrame() throws(CropRejection) -> StraightenedFrame {
        let source = try validatedLayout()
        return try StraightenedFrame(imageSize: orientation.orientedSize(source), angle: angle)
    }

    /// The rectangle of the view that selects exactly `rect` of the
    /// straightened frame at this request's layout: the inverse of
    /// ``straightened(size:)`` for an overlay. Mapping the returned rect
    /// forward (with this angle) gives back `rect` whenever it lies inside
    /// the viewport.
    ///
    /// - Throws: ``CropRejection`` when the layout itself is invalid.
    public func viewRect(forStraightened rect: PixelRect<StraightenedPixels>)
        throws(CropRejection) -> Rect<ViewPoints>
    {
        // The frame meets the view as the image grid does: the same scale,
        // the same centre.
        try viewRect(
            forImageRect: Rect(
                x: Double(rect.x), y: Double(rect.y), width: Double(rect.width),
                height: Double(rect.height)))
    }

    /// The view selection of the largest rect inside the turned image
    /// (``StraightenedFrame/largestRectInside(aspect:)``), with the rect.
    ///
    /// - Throws: ``CropRejection/aspectRatioDoesNotFit(_:)`` when nothing of
    ///   the ratio fits, ``CropRejection/noImagePixels`` when not one pixel
    ///   does; the layout's own rejections.
    public func largestSelectionInside(aspect: AspectRatio? = nil) throws(CropRejection) -> (
        selection: Rect<ViewPoints>, rect: PixelRect<StraightenedPixels>
    ) {
        let frame = try straightenedFrame()
        guard let rect = frame.largestRectInside(aspect: aspect) else {
            if let aspect { throw .aspectRatioDoesNotFit(aspect) }
            throw .noImagePixels
        }
        return (try viewRect(forStraightened: rect), rect)
    }
}
