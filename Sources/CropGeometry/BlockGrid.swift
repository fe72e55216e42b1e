/// A JPEG's block grid (its iMCU: 8 or 16 pixels each way by the chroma
/// sampling), and the rects a crop can copy losslessly on it.
///
/// A crop of a JPEG is lossless, copied in the DCT domain, when its stored
/// rect's left and top edges lie on the grid and its right and bottom edges
/// lie on the grid or at the photo's edge (a block cut inside the photo
/// would hide pixels beyond the rect in its padding).
extension PixelRect where Space == StoredPixels {
    /// Whether this rect is lossless on `grid` in a photo of `size`.
    public func isOnBlockGrid(_ grid: PixelSize<StoredPixels>, within size: PixelSize<StoredPixels>)
        -> Bool
    {
        guard grid.width > 0, grid.height > 0 else { return false }
        return x % grid.width == 0 && y % grid.height == 0
            && (maxX % grid.width == 0 || maxX == size.width)
            && (maxY % grid.height == 0 || maxY == size.height)
    }

    /// This rect with each edge moved to `grid` (or the photo's edge):
    /// outward (left and top down, right and bottom up, as far as the photo
    /// goes), or inward. Inward may leave an empty rect.
    public func snapped(
        toBlocks grid: PixelSize<StoredPixels>, within size: PixelSize<StoredPixels>, outward: Bool
    ) -> PixelRect {
        let (gw, gh) = (max(grid.width, 1), max(grid.height, 1))
        func down(_ v: Int, _ step: Int) -> Int { v / step * step }
        func up(_ v: Int, _ step: Int, _ end: Int) -> Int { min((v + step - 1) / step * step, end) }
        let x0 = outward ? down(x, gw) : up(x, gw, size.width)
        let y0 = outward ? down(y, gh) : up(y, gh, size.height)
        let x1 = outward || maxX == size.width ? up(maxX, gw, size.width) : down(maxX, gw)
        let y1 = outward || maxY == size.height ? up(maxY, gh, size.height) : down(maxY, gh)
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// The smallest rect of exactly `ratio` (width to height, as stored)
    /// whose every edge lies on `grid` that holds this one, placed as near
    /// it as the photo allows; `nil` when none fits in the photo.
    ///
    /// On a grid of `gw×gh`, such a rect is `gw·p·t` by `gh·q·t` for
    /// `p:q = ratio·gh/gw` in lowest terms: coarse steps for ratios like
    /// 16:9, which is why it may not exist.
    public func snapped(
        toBlocks grid: PixelSize<StoredPixels>, keeping ratio: AspectRatio,
        within size: PixelSize<StoredPixels>
    ) -> PixelRect? {
        let (gw, gh) = (max(grid.width, 1), max(grid.height, 1))
        // Width w = gw·a, height h = gh·b with w:h = W:H, so a·gw·H = b·gh·W.
        guard let blocks = AspectRatio(width: ratio.width * gh, height: ratio.height * gw) else {
            return nil
        }
        let (p, q) = (blocks.width, blocks.height)
        let stepWidth = gw * p
        let stepHeight = gh * q
        // A grid position whose span holds `start..<end`, nearest the one
        // that centres it; `nil` when the grid has none.
        func place(_ start: Int, _ end: Int, _ outer: Int, _ total: Int, _ step: Int) -> Int? {
            let low = max(0, end - outer)
            let high = min(start, total - outer)
            guard low <= high else { return nil }
            let centred = start - (outer - (end - start)) / 2
            let first = (low + step - 1) / step * step
            guard first <= high else { return nil }
            let last = high / step * step
            let nearest = min(max(centred / step * step, first), last)
            return nearest
        }
        var steps = max(
            (width + stepWidth - 1) / stepWidth, (height + stepHeight - 1) / stepHeight, 1)
        while stepWidth * steps <= size.width && stepHeight * steps <= size.height {
            let (w, h) = (stepWidth * steps, stepHeight * steps)
            if let x0 = place(x, maxX, w, size.width, gw),
                let y0 = place(y, maxY, h, size.height, gh)
            {
                return PixelRect(x: x0, y: y0, width: w, height: h)
            }
            steps += 1
        }
        return nil
    }
}

extension CropResult {
    /// Whether a JPEG crop of this result is lossless on `grid` (the
    /// source's block grid: ``PixelRect/isOnBlockGrid(_:within:)`` of the
    /// stored rect).
    public func isLossless(blockGrid grid: PixelSize<StoredPixels>) -> Bool {
        stored.isOnBlockGrid(grid, within: sourceSize)
    }

    /// The result for a stored rect, with this result's orientation and
    /// source.
    public func withStored(_ rect: PixelRect<StoredPixels>) -> CropResult {
        CropResult(
            rect: orientation.orientedRect(rect, storedSize: sourceSize), orientation: orientation,
            sourceSize: sourceSize)
    }
}
