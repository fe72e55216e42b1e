import CropGeometry

extension CropPlan {
    /// A companion of an AVIF crop from pixels that is straightened (or
    /// reaches beyond the photo), resampled with it by the companion rule
    /// (DESIGN.md: straighten and resize apply to companions the same way):
    /// its output keeps its scale against the crop's, `max(1, round(W·sx))`
    /// by `max(1, round(H·sy))` as displayed, and each of its samples is the
    /// bilinear sample of the source companion at the crop's own sample
    /// position (the same crop of the same frame at the companion's output
    /// size) scaled by `sx`, `sy`; chroma samples at their own positions,
    /// centre-sited. It is coded as stored, at the source companion's bit
    /// depth and chroma format, to be shown with the photo's `irot` and
    /// `imir` (``CropPlan/companionCrop`` is `nil` for such a crop).
    func straightenedCompanion(
        _ image: HEIFFileInfo, crop: StraightenedCrop, companion size: PixelSize<StoredPixels>,
        quality: Int
    ) throws(ImagingError) -> HEIFCompanionCut {
        let photo = source.storedSize
        let shownPhoto = orientation.orientedSize(photo)
        let shownCompanion = orientation.orientedSize(size)
        // Round half up, in integers: (2·W·Mw + Pw) / (2·Pw).
        func scaled(_ side: Int, _ to: Int, _ from: Int) -> Int {
            max(1, (2 * side * to + from) / (2 * from))
        }
        let shownOut = PixelSize<StraightenedPixels>(
            width: scaled(crop.outputSize.width, shownCompanion.width, shownPhoto.width),
            height: scaled(crop.outputSize.height, shownCompanion.height, shownPhoto.height))
        let atScale: StraightenedCrop
        do throws(CropRejection) {
            atScale = try StraightenedCrop(
                frame: crop.frame, rect: crop.rect, outputSize: shownOut,
                orientation: crop.orientation)
        } catch {
            throw .unsupported(format: .heif, detail: "it has no crop at its scale")
        }
        let outStored = PixelSize<StoredPixels>(
            width: orientation.swapsAxes ? shownOut.height : shownOut.width,
            height: orientation.swapsAxes ? shownOut.width : shownOut.height)
        let (sx, sy) = (
            Double(shownCompanion.width) / Double(shownPhoto.width),
            Double(shownCompanion.height) / Double(shownPhoto.height)
        )
        // Where a stored luma position (pixel centres at whole numbers) of
        // the output is seen, and back from where a companion position is
        // seen to where it is stored: each turn an orthonormal map.
        let toShown = Self.turn(orientation, stored: outStored)
        let fromShown = Self.turn(orientation, stored: size)
        let transform = atScale.sampleTransform
        func companionPosition(_ u: Double, _ v: Double) -> (x: Double, y: Double) {
            let seen = toShown.apply(u, v)
            let q = transform.apply(Point(x: seen.x + 0.5, y: seen.y + 0.5))
            return fromShown.invert(q.x * sx - 0.5, q.y * sy - 0.5)
        }
        // The companion's samples the positions reach (two samples' margin
        // for bilinear weights and chroma), on its canvas.
        let layout = image.layout
        let (ox, oy) = image.origin
        var (minX, minY, maxX, maxY) = (
            Double.infinity, Double.infinity, -Double.infinity, -Double.infinity
        )
        for (u, v) in [
            (0.0, 0.0), (Double(outStored.width - 1), 0), (0, Double(outStored.height - 1)),
            (Double(outStored.width - 1), Double(outStored.height - 1)),
        ] {
            let p = companionPosition(u, v)
            (minX, maxX) = (min(minX, p.x), max(maxX, p.x))
            (minY, maxY) = (min(minY, p.y), max(maxY, p.y))
        }
        func clamped(_ v: Double, _ side: Int) -> Int {
            min(max(Int(v.rounded(.down)), 0), side - 1)
        }
        let x0 = clamped(minX - 2, size.width) + ox
        let y0 = clamped(minY - 2, size.height) + oy
        let x1 = clamped(maxX + 3, size.width) + ox
        let y1 = clamped(maxY + 3, size.height) + oy
        let region = PixelRect<StoredPixels>(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
        let indices = layout.tiles(touching: region)
        let decoded = try concurrentResults(indices.count) { n throws(ImagingError) in
            try Self.decodePlanes(
                layout.tiles[indices[n]], index: indices[n], info: image, input: source.input)
        }
        var slot = [Int](repeating: -1, count: layout.tiles.count)
        for (n, index) in indices.enumerated() { slot[index] = n }
        let sample = image.bitDepth > 8 ? 2 : 1
        let maximum = (1 << image.bitDepth) - 1
        let (dx, dy) = image.chromaSubsampling
        let dims = image.planeSizes(width: outStored.width, height: outStored.height)
        let canvas = image.planeSizes(width: layout.width, height: layout.height)
        var planes: [[UInt8]] = []
        for p in 0..<image.planeCount {
            let (px, py) = p == 0 ? (1, 1) : (dx, dy)
            let (tw, th) = ((layout.tileWidth + px - 1) / px, (layout.tileHeight + py - 1) / py)
            // Samples beyond the clean aperture are never read.
            let (lowX, lowY) = (ox / px, oy / py)
            let highX = min((ox + size.width - 1) / px, canvas[p].0 - 1)
            let highY = min((oy + size.height - 1) / py, canvas[p].1 - 1)
            let tilePlanes = decoded.map { $0[p] }
            let widths = indices.map {
                image.planeSizes(width: layout.tiles[$0].width, height: layout.tiles[$0].height)[p]
                    .0
            }
            func read(_ x: Int, _ y: Int) throws(ImagingError) -> Double {
                let (cx, cy) = (min(max(x, lowX), highX), min(max(y, lowY), highY))
                let n = slot[(cy / th) * layout.columns + cx / tw]
                guard n >= 0 else {
                    throw .corrupt(format: .heif, detail: "the cut reaches a tile it does not read")
                }
                let at = (cy % th) * widths[n] + cx % tw
                return sample == 1
                    ? Double(tilePlanes[n][at])
                    : Double(Int(tilePlanes[n][2 * at]) | Int(tilePlanes[n][2 * at + 1]) << 8)
            }
            let (w, h) = dims[p]
            var out = [UInt8](repeating: 0, count: w * h * sample)
            for l in 0..<h {
                for k in 0..<w {
                    // This sample's luma position, then the companion's, then
                    // in this plane's units on the canvas.
                    let u = (Double(k) + 0.5) * Double(px) - 0.5
                    let v = (Double(l) + 0.5) * Double(py) - 0.5
                    let c = companionPosition(u, v)
                    let x = (c.x + Double(ox) + 0.5) / Double(px) - 0.5
                    let y = (c.y + Double(oy) + 0.5) / Double(py) - 0.5
                    let (fx, fy) = (x.rounded(.down), y.rounded(.down))
                    let (tx, ty) = (x - fx, y - fy)
                    let (ix, iy) = (Int(fx), Int(fy))
                    let value =
                        (try read(ix, iy) * (1 - tx) + read(ix + 1, iy) * tx) * (1 - ty)
                        + (try read(ix, iy + 1) * (1 - tx) + read(ix + 1, iy + 1) * tx) * ty
                    let coded = min(max(Int(value.rounded()), 0), maximum)
                    let at = (l * w + k) * sample
                    out[at] = UInt8(coded & 0xFF)
                    if sample == 2 { out[at + 1] = UInt8(coded >> 8) }
                }
            }
            planes.append(out)
        }
        let coded = try Self.encodePlanes(
            planes, width: outStored.width, height: outStored.height, info: image, quality: quality)
        let first = layout.tiles[0]
        let colour =
            layout.isGrid ? image.primaryBoxes : first.colourBoxes + (first.pixi.map { [$0] } ?? [])
        let single = RectImage(
            configuration: coded.configuration, data: coded.data, width: outStored.width,
            height: outStored.height,
            aperture: PixelRect(x: 0, y: 0, width: outStored.width, height: outStored.height),
            colourBoxes: colour)
        let read = PixelRect<StoredPixels>(
            x: region.x - ox, y: region.y - oy, width: region.width, height: region.height)
        return HEIFCompanionCut(
            info: image, tiles: Self.heifTileCut(image, stored: read), single: single,
            size: outStored, sampled: true)
    }

    /// A quarter turn or mirror as an orthonormal map of positions (pixel
    /// centres at whole numbers) from an image of `stored` size to the
    /// image seen in `orientation`: `seen = origin + x·across + y·down`.
    struct Turn {
        var origin: (x: Double, y: Double)
        var across: (x: Double, y: Double)
        var down: (x: Double, y: Double)

        /// Where the stored position `(x, y)` is seen.
        func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
            (origin.x + x * across.x + y * down.x, origin.y + x * across.y + y * down.y)
        }

        /// Where the seen position `(x, y)` is stored: the map's transpose,
        /// since it is orthonormal.
        func invert(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
            let (dx, dy) = (x - origin.x, y - origin.y)
            return (dx * across.x + dy * across.y, dx * down.x + dy * down.y)
        }
    }

    /// The ``Turn`` of `orientation` for an image of `stored` size.
    static func turn(_ orientation: EXIFOrientation, stored: PixelSize<StoredPixels>) -> Turn {
        // Pixel centres of a size at least 2x2, so that the steps exist;
        // the map is the same for every size but its origin, which is
        // taken from the real size.
        let origin = orientation.orientedPoint(x: 0, y: 0, storedSize: stored)
        let big = PixelSize<StoredPixels>(
            width: max(stored.width, 2), height: max(stored.height, 2))
        let o = orientation.orientedPoint(x: 0, y: 0, storedSize: big)
        let r = orientation.orientedPoint(x: 1, y: 0, storedSize: big)
        let d = orientation.orientedPoint(x: 0, y: 1, storedSize: big)
        return Turn(
            origin: (Double(origin.x), Double(origin.y)),
            across: (Double(r.x - o.x), Double(r.y - o.y)),
            down: (Double(d.x - o.x), Double(d.y - o.y)))
    }
}
