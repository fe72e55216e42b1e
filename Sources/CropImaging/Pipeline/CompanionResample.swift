import CropGeometry

/// A companion image resampled with its photo (DESIGN.md, "Companion
/// images": straighten and resize apply to companions the same way): for
/// a crop that turns or resizes, the companion's output keeps its scale
/// against the output, `max(1, round(W·sx))` by `max(1, round(H·sy))` for a
/// `W×H` output, and each of its pixels samples the source companion,
/// bilinear, at the photo's sample position `q` of that pixel (the same
/// crop of the same frame at the companion's output size) scaled by `sx`,
/// `sy`: `(q.x·sx − ½, q.y·sy − ½)`. Unturned and unresized, that is the
/// plain cut's position.
enum CompanionResample {
    /// `companion` (as displayed, 8-bit, any channels) beside a photo
    /// `photo` as displayed, resampled for the photo's `crop`; `nil` when
    /// the crop cannot be made at the companion's size.
    static func resample(
        _ companion: RasterImage, photo: PixelSize<ImagePixels>, crop: StraightenedCrop
    ) -> RasterImage? {
        let (mw, mh) = (companion.width, companion.height)
        let (pw, ph) = (photo.width, photo.height)
        let (ow, oh) = (crop.outputSize.width, crop.outputSize.height)
        // Round half up, in integers: (2·W·Mw + Pw) / (2·Pw).
        let width = max(1, (2 * ow * mw + pw) / (2 * pw))
        let height = max(1, (2 * oh * mh + ph) / (2 * ph))
        guard
            let scaled = try? StraightenedCrop(
                frame: crop.frame, rect: crop.rect,
                outputSize: PixelSize(width: width, height: height),
                orientation: crop.orientation)
        else { return nil }
        let channels = companion.colorType.channels
        let (sx, sy) = (Double(mw) / Double(pw), Double(mh) / Double(ph))
        func clamp(_ v: Int, _ side: Int) -> Int { min(max(v, 0), side - 1) }
        var samples = [UInt8](repeating: 0, count: width * height * channels)
        companion.samples.withUnsafeBufferPointer { source in
            for j in 0..<height {
                for i in 0..<width {
                    let q = scaled.samplePosition(column: i, row: j)
                    let (x, y) = (q.x * sx - 0.5, q.y * sy - 0.5)
                    let (fx, fy) = (x.rounded(.down), y.rounded(.down))
                    let (tx, ty) = (x - fx, y - fy)
                    let (x0, y0) = (Int(fx), Int(fy))
                    let (c0, c1) = (clamp(x0, mw), clamp(x0 + 1, mw))
                    let (r0, r1) = (clamp(y0, mh) * mw, clamp(y0 + 1, mh) * mw)
                    for k in 0..<channels {
                        let a = Double(source[(r0 + c0) * channels + k])
                        let b = Double(source[(r0 + c1) * channels + k])
                        let c = Double(source[(r1 + c0) * channels + k])
                        let d = Double(source[(r1 + c1) * channels + k])
                        let value =
                            (a * (1 - tx) + b * tx) * (1 - ty) + (c * (1 - tx) + d * tx) * ty
                        samples[(j * width + i) * channels + k] = UInt8(
                            min(255, max(0, value.rounded())))
                    }
                }
            }
        }
        return RasterImage(
            width: width, height: height, colorType: companion.colorType, bitDepth: 8,
            samples: samples)
    }
}
