import Foundation

/// The published recipe's mapping in plain `Double` arithmetic, kept only to
/// compare against: the benchmark times it, the tests and the demo show where
/// it is wrong. Not part of the public API.
///
/// It intersects first, subtracts the display offset, then scales, as the
/// article says; its rounding is `floor`/`ceil` of `Double` values with no
/// snap, which is what grows a crop by a pixel when an edge falls on a pixel
/// boundary that `Double` cannot represent, and its intersection in `Double`
/// is what returns a one-pixel row for a selection wholly in the padding.
package func articleCropPixels(source: CGSize, viewport: CGSize, selection: CGRect) -> CGRect? {
    guard source.width > 0, source.height > 0, viewport.width > 0, viewport.height > 0 else {
        return nil
    }
    let scale = min(viewport.width / source.width, viewport.height / source.height)
    let displayed = CGSize(width: source.width * scale, height: source.height * scale)
    let origin = CGPoint(
        x: (viewport.width - displayed.width) / 2, y: (viewport.height - displayed.height) / 2)
    let clipped = selection.intersection(CGRect(origin: origin, size: displayed))
    guard !clipped.isNull, clipped.width > 0, clipped.height > 0 else { return nil }
    let left = max(0, ((clipped.minX - origin.x) / scale).rounded(.down))
    let top = max(0, ((clipped.minY - origin.y) / scale).rounded(.down))
    let right = min(source.width, ((clipped.maxX - origin.x) / scale).rounded(.up))
    let bottom = min(source.height, ((clipped.maxY - origin.y) / scale).rounded(.up))
    guard right > left, bottom > top else { return nil }
    return CGRect(x: left, y: top, width: right - left, height: bottom - top)
}
