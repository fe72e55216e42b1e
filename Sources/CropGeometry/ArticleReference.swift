/// The published recipe's mapping in plain `Double` arithmetic, kept only to
/// compare against: the benchmark times it, the tests, the demo and the
/// playground show where it is wrong. Not part of the public API.
///
/// It intersects first, subtracts the display offset, then scales, as the
/// article says; its rounding is `floor`/`ceil` of `Double` values with no
/// snap, which is what grows a crop by a pixel when an edge falls on a pixel
/// boundary that `Double` cannot represent, and its intersection in `Double`
/// is what returns a one-pixel row for a selection wholly in the padding.
///
/// The rects are `(x, y, width, height)` and the intersection is
/// swift-corelibs-foundation's `CGRect.intersection` (both rects
/// standardized; an overlap equal to one rect's span keeps that rect's
/// size), written out so that the playground, which has no Foundation, runs
/// the same arithmetic as the command line.
package func articleCropPixels(
    source: (width: Double, height: Double), viewport: (width: Double, height: Double),
    selection: (x: Double, y: Double, width: Double, height: Double)
) -> (x: Double, y: Double, width: Double, height: Double)? {
    guard source.width > 0, source.height > 0, viewport.width > 0, viewport.height > 0 else {
        return nil
    }
    let scale = min(viewport.width / source.width, viewport.height / source.height)
    let displayed = (width: source.width * scale, height: source.height * scale)
    let origin = (
        x: (viewport.width - displayed.width) / 2, y: (viewport.height - displayed.height) / 2
    )
    // CGRect.standardized, then swift-corelibs-foundation's intersection:
    // an overlap equal to one rect's span keeps that rect's size.
    func overlap(_ start: Double, _ size: Double, _ start2: Double, _ size2: Double)
        -> (start: Double, size: Double)?
    {
        let (a, w) = size < 0 ? (start + size, -size) : (start, size)
        let (b, v) = (start2, size2)
        guard a <= b + v, b <= a + w else { return nil }
        let (low, high) = (max(a, b), min(a + w, b + v))
        if low == a && high == a + w { return (low, w) }
        if low == b && high == b + v { return (low, v) }
        return (low, high - low)
    }
    guard let h = overlap(selection.x, selection.width, origin.x, displayed.width),
        let v = overlap(selection.y, selection.height, origin.y, displayed.height)
    else { return nil }
    let (minX, width, minY, height) = (h.start, h.size, v.start, v.size)
    guard width > 0, height > 0 else { return nil }
    let left = max(0, ((minX - origin.x) / scale).rounded(.down))
    let top = max(0, ((minY - origin.y) / scale).rounded(.down))
    let right = min(source.width, ((minX + width - origin.x) / scale).rounded(.up))
    let bottom = min(source.height, ((minY + height - origin.y) / scale).rounded(.up))
    guard right > left, bottom > top else { return nil }
    return (left, top, right - left, bottom - top)
}

#if canImport(Foundation)
    import Foundation

    /// ``articleCropPixels(source:viewport:selection:)`` with the article's
    /// own signature, of CoreGraphics values.
    package func articleCropPixels(source: CGSize, viewport: CGSize, selection: CGRect) -> CGRect? {
        guard
            let rect = articleCropPixels(
                source: (Double(source.width), Double(source.height)),
                viewport: (Double(viewport.width), Double(viewport.height)),
                selection: (
                    Double(selection.origin.x), Double(selection.origin.y),
                    Double(selection.size.width), Double(selection.size.height)
                ))
        else { return nil }
        return CGRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }
#endif
