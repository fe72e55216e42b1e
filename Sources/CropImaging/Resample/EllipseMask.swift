import Foundation

/// The ellipse inscribed in an image, as alpha: a circular (or elliptical)
/// crop for an avatar.
///
/// Each pixel's alpha is multiplied by the fraction of its square that the
/// ellipse covers: 1 inside, 0 outside, and on the edge the exact area
/// (integrated to far below 1/255), rounded to the nearest level. The
/// ellipse touches the middle of each side of the image.
public enum EllipseMask {
    /// The fraction of pixel `(x, y)` (the square `[x, x+1] × [y, y+1]`)
    /// inside the ellipse inscribed in a `width × height` image.
    public static func coverage(x: Int, y: Int, width: Int, height: Int) -> Double {
        let (a, b) = (Double(width) / 2, Double(height) / 2)
        let (cx, cy) = (a, b)
        // Decided by the corners when all four are on one side.
        func inside(_ px: Double, _ py: Double) -> Bool {
            let (dx, dy) = ((px - cx) / a, (py - cy) / b)
            return dx * dx + dy * dy <= 1
        }
        let (x0, y0, x1, y1) = (Double(x), Double(y), Double(x + 1), Double(y + 1))
        let corners = [inside(x0, y0), inside(x1, y0), inside(x0, y1), inside(x1, y1)]
        if corners.allSatisfy({ $0 }) { return 1 }
        // The nearest point of the square to the centre decides "outside".
        let nx = min(max(cx, x0), x1)
        let ny = min(max(cy, y0), y1)
        if !inside(nx, ny) { return 0 }
        // The area: the chord's overlap with [y0, y1], integrated across the
        // pixel by composite Simpson on 512 panels (the integrand is
        // continuous; its kinks cost under 1e-5 of a pixel).
        func overlap(_ px: Double) -> Double {
            let t = (px - cx) / a
            let s = 1 - t * t
            guard s > 0 else { return 0 }
            let half = b * s.squareRoot()
            return max(0, min(y1, cy + half) - max(y0, cy - half))
        }
        let panels = 512
        let step = 1.0 / Double(panels)
        var sum = overlap(x0) + overlap(x1)
        for k in 1..<panels {
            sum += (k % 2 == 1 ? 4 : 2) * overlap(x0 + Double(k) * step)
        }
        return min(1, max(0, sum * step / 3))
    }
}

extension RasterImage {
    /// These pixels with the inscribed ellipse's coverage multiplied into
    /// their alpha (an alpha channel is added when there is none).
    ///
    /// - Precondition: Direct colour at 8 or 16 bits
    ///   (``directColor()``).
    public func maskedByEllipse() -> RasterImage {
        precondition(bitDepth >= 8 && colorType != .palette)
        let hasAlpha = colorType == .grayAlpha || colorType == .rgba
        let colorChannels = hasAlpha ? colorType.channels - 1 : colorType.channels
        let bytes = bitDepth == 16 ? 2 : 1
        let maximum = bitDepth == 16 ? 65535 : 255
        let outChannels = colorChannels + 1
        var out = [UInt8](repeating: 0, count: width * height * outChannels * bytes)
        // Coverage per pixel, symmetric about both axes: a quarter is
        // computed, the rest mirrored.
        for y in 0..<height {
            for x in 0..<width {
                let qx = min(x, width - 1 - x)
                let qy = min(y, height - 1 - y)
                let covered = EllipseMask.coverage(x: qx, y: qy, width: width, height: height)
                let from = (y * width + x) * colorType.channels * bytes
                let to = (y * width + x) * outChannels * bytes
                for index in 0..<(colorChannels * bytes) { out[to + index] = samples[from + index] }
                var alpha = maximum
                if hasAlpha {
                    let at = from + colorChannels * bytes
                    alpha =
                        bytes == 2 ? Int(samples[at]) << 8 | Int(samples[at + 1]) : Int(samples[at])
                }
                let level = Int((Double(alpha) * covered).rounded())
                let at = to + colorChannels * bytes
                if bytes == 2 {
                    out[at] = UInt8(level >> 8)
                    out[at + 1] = UInt8(level & 0xFF)
                } else {
                    out[at] = UInt8(level)
                }
            }
        }
        return RasterImage(
            width: width, height: height, colorType: colorChannels == 1 ? .grayAlpha : .rgba,
            bitDepth: bitDepth, samples: out, chunks: chunks)
    }
}
