import CropGeometry

extension RasterImage {
    /// These pixels turned upright for `orientation`: the pixel the person
    /// sees at `(X, Y)` is the stored pixel the orientation sends there (see
    /// `EXIFOrientation`). Lossless: pixels move, none changes.
    ///
    /// - Complexity: O(width × height).
    public func oriented(_ orientation: EXIFOrientation) -> RasterImage {
        if orientation == .up { return self }
        let stored = PixelSize<StoredPixels>(width: width, height: height)
        let size = orientation.orientedSize(stored)
        let bpp = bytesPerPixel
        // Every byte is written before the count is set; the spare byte a
        // row lets the encoder filter in place.
        let out = [UInt8](unsafeUninitializedCapacity: samples.count + size.height) {
            target, count in
            samples.withUnsafeBufferPointer { source in
                for y in 0..<height {
                    for x in 0..<width {
                        let seen = orientation.orientedPoint(x: x, y: y, storedSize: stored)
                        let from = (y * width + x) * bpp
                        let to = (seen.y * size.width + seen.x) * bpp
                        for k in 0..<bpp { target[to + k] = source[from + k] }
                    }
                }
            }
            count = samples.count
        }
        return RasterImage(
            width: size.width, height: size.height, colorType: colorType, bitDepth: bitDepth,
            samples: out,
            chunks: chunks)
    }

    /// Writes rows `rows` of these pixels turned upright for `orientation`
    /// to `target`, the turned image's buffer (row 0 at `target`, rows of
    /// the turned width): ``oriented(_:)`` a band of rows at a time, so an
    /// encoder can compress each band while the next is made.
    func writeOrientedRows(
        _ orientation: EXIFOrientation, rows: Range<Int>, into target: UnsafeMutablePointer<UInt8>
    ) {
        let stored = PixelSize<StoredPixels>(width: width, height: height)
        let size = orientation.orientedSize(stored)
        let bpp = bytesPerPixel
        let (origin, across, down) = orientation.storedWalk(storedSize: stored)
        let step = (across.x + across.y * width) * bpp
        samples.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            for y in rows {
                var from = ((origin.y + y * down.y) * width + origin.x + y * down.x) * bpp
                var to = y * size.width * bpp
                for _ in 0..<size.width {
                    (target + to).update(from: base + from, count: bpp)
                    from += step
                    to += bpp
                }
            }
        }
    }
}
