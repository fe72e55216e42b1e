extension CropRequest {
    /// The source pixels the selection covers, per the mapping contract.
    ///
    /// The answer is the one exact rational arithmetic gives on the `Double`
    /// values as given: edges within 1e-6 px of an integer snap to it, then the
    /// left and top edges round down and the right and bottom edges round up.
    /// The contract is written once, generic over its arithmetic
    /// (`zoomedDisplayRect(ow:oh:as:)`, steps 5–8 per axis): a fast path
    /// in `Double` carries a rigorous error bound and answers only when no
    /// rounding decision lies within it (measured by
    /// `Benchmarks/MappingBenchmark`: 85 ns a call against 24 µs for the
    /// exact path, so a million-record replay takes a tenth of a second of
    /// mapping, not 24 s); every other case is computed in exact rational
    /// arithmetic. The property tests check the two agree. See "Rounding" in
    /// the guide (CropImaging.docc/Guide.md) for the table.
    ///
    /// - Returns: The crop in the oriented grid and in the stored grid.
    /// - Throws: ``CropRejection`` naming the first rule the input breaks;
    ///   ``CropRejection/turned(angle:)`` when ``angle`` is not 0.
    /// - Complexity: O(1); the exact path allocates.
    public func map() throws(CropRejection) -> CropResult {
        let source = try validatedSourceSize()
        guard angle == 0 else { throw .turned(angle: angle) }
        let oriented = orientation.orientedSize(source)
        let rect: PixelRect<ImagePixels>
        if let fast = fastPixelRect(oriented: oriented) {
            guard let fastRect = fast else { throw .noImagePixels }
            rect = fastRect
        } else {
            guard let exactRect = exactPixelRect(oriented: oriented) else {
                throw .noImagePixels
            }
            rect = exactRect
        }
        return CropResult(rect: rect, orientation: orientation, sourceSize: source)
    }

    /// ``map()``, then the rectangle of exactly `aspectRatio` nearest the mapped
    /// one inside the image (see ``PixelRect/fitted(to:within:)``).
    ///
    /// - Throws: ``CropRejection``, including ``CropRejection/aspectRatioDoesNotFit(_:)``.
    public func map(aspectRatio: AspectRatio?) throws(CropRejection) -> CropResult {
        let mapped = try map()
        guard let aspectRatio else { return mapped }
        guard let fitted = mapped.rect.fitted(to: aspectRatio, within: mapped.orientedSize) else {
            throw .aspectRatioDoesNotFit(aspectRatio)
        }
        return CropResult(rect: fitted, orientation: orientation, sourceSize: mapped.sourceSize)
    }

    /// ``map()`` computed wholly in exact arithmetic, skipping the fast path;
    /// for tests that check the two paths agree.
    package func mapExactly() throws(CropRejection) -> CropResult {
        let source = try validatedSourceSize()
        guard let rect = exactPixelRect(oriented: orientation.orientedSize(source)) else {
            throw .noImagePixels
        }
        return CropResult(rect: rect, orientation: orientation, sourceSize: source)
    }

    /// Whether the fast path answers this request by itself (`false` when the
    /// exact path decides); for tests.
    package var isDecidedByFastPath: Bool {
        guard let source = try? validatedSourceSize() else { return true }
        return fastPixelRect(oriented: orientation.orientedSize(source)) != nil
    }

    /// ``map()`` as a `Result`, for callers that keep the reason.
    public func result() -> Result<CropResult, CropRejection> {
        Result { () throws(CropRejection) in try map() }
    }

    /// Rule 1: every number finite, the source a positive integer size, every
    /// extent positive. Returns the source size as integers.
    func validatedSourceSize() throws(CropRejection) -> PixelSize<StoredPixels> {
        try validated(checkingSelection: true)
    }

    /// Rule 1 for everything but the selection.
    func validatedLayout() throws(CropRejection) -> PixelSize<StoredPixels> {
        try validated(checkingSelection: false)
    }

    private func validated(checkingSelection: Bool) throws(CropRejection) -> PixelSize<StoredPixels>
    {
        // Independent tests, not one long sum: a chain of dependent
        // additions costs more time than the whole mapping.
        let layoutIsFinite =
            sourceSize.width.isFinite && sourceSize.height.isFinite && viewport.width.isFinite
            && viewport.height.isFinite && imageScale.isFinite && zoom.scale.isFinite
            && zoom.offset.dx.isFinite && zoom.offset.dy.isFinite && angle.isFinite
        let selectionIsFinite =
            !checkingSelection
            || (selection.x.isFinite && selection.y.isFinite && selection.width.isFinite
                && selection.height.isFinite)
        if !(layoutIsFinite && selectionIsFinite) {
            let numbers: [(String, Double)] = [
                ("source width", sourceSize.width), ("source height", sourceSize.height),
                ("viewport width", viewport.width), ("viewport height", viewport.height),
                ("selection x", checkingSelection ? selection.x : 0),
                ("selection y", checkingSelection ? selection.y : 0),
                ("selection width", checkingSelection ? selection.width : 0),
                ("selection height", checkingSelection ? selection.height : 0),
                ("image scale", imageScale), ("zoom scale", zoom.scale),
                ("zoom offset x", zoom.offset.dx), ("zoom offset y", zoom.offset.dy),
                ("angle", angle),
            ]
            for (field, value) in numbers where !value.isFinite {
                throw .nonFinite(field: field)
            }
        }
        let (sw, sh) = (sourceSize.width, sourceSize.height)
        // Below 2⁵³ the Int conversion is exact, so it tests integrality
        // without a libm call.
        let fitsInt = sw <= Self.maximumSourceDimension && sh <= Self.maximumSourceDimension
        guard sw > 0, sh > 0,
            fitsInt
                ? (Double(Int(sw)) == sw && Double(Int(sh)) == sh)
                : (sw.rounded(.towardZero) == sw && sh.rounded(.towardZero) == sh)
        else {
            throw .sourceNotPositiveInteger(width: sw, height: sh)
        }
        guard fitsInt else { throw .sourceTooLarge(width: sw, height: sh) }
        guard viewport.width > 0, viewport.height > 0 else {
            throw .viewportNotPositive(width: viewport.width, height: viewport.height)
        }
        guard !checkingSelection || (selection.width > 0 && selection.height > 0) else {
            throw .selectionSizeNotPositive(width: selection.width, height: selection.height)
        }
        guard zoom.scale > 0 else { throw .zoomNotPositive(zoom.scale) }
        guard imageScale > 0 else { throw .imageScaleNotPositive(imageScale) }
        return PixelSize(width: Int(sw), height: Int(sh))
    }
}

// MARK: - The fast path

/// The rounding decisions of one axis in `Double`: a pixel interval (whole
/// numbers in `[0, 2⁴⁰]`), `empty` (certainly no pixels), or `undecided` (too
/// close to call in `Double`).
private struct FastAxis {
    var low: Double
    var high: Double

    static let empty = FastAxis(low: 0, high: 0)
    static let undecided = FastAxis(low: -1, high: -1)

    var isUndecided: Bool { low < 0 }
}

/// The integer nearest `v` (ties to even) for `|v| < 2⁵¹`, without a libm
/// call: adding and subtracting 1.5·2⁵² rounds to an integer, since in that
/// range the sum's unit is 1.
@inline(__always)
private func nearestOfSmall(_ v: Double) -> Double {
    (v + 0x1.8p52) - 0x1.8p52
}

/// The `Int` of a whole number in `[0, 2⁵²)`, read off its bits: in that range
/// `v + 2⁵²` has unit 1, so its significand is `v`. No range checks needed.
@inline(__always)
private func intOfSmallWhole(_ v: Double) -> Int {
    Int(truncatingIfNeeded: (v + 0x1p52).bitPattern &- (0x1p52 as Double).bitPattern)
}

/// 1 when `condition` holds, else 0, without a branch.
@inline(__always)
private func bit(_ condition: Bool) -> UInt8 {
    condition ? 1 : 0
}

extension CropRequest {
    /// Steps 3–8 in `Double` with an error bound, or `nil` when a decision is
    /// too close to call (the exact path then answers). `.some(nil)` means
    /// rejected: no image pixels.
    fileprivate func fastPixelRect(oriented: PixelSize<ImagePixels>) -> PixelRect<ImagePixels>?? {
        let ow = Double(oriented.width)
        let oh = Double(oriented.height)
        let (vw, vh) = (viewport.width, viewport.height)
        // Products of these stay far from overflow and underflow; the per-axis
        // checks below catch the rest (an infinite or vanishing term).
        guard ow <= 0x1p40, oh <= 0x1p40, vw >= 0x1p-200, vw <= 0x1p200, vh >= 0x1p-200,
            vh <= 0x1p200
        else { return nil }
        let display = zoomedDisplayRect(ow: ow, oh: oh, as: Double.self)
        let horizontal = fastAxis(
            lo: selection.x, size: selection.width, view: vw, origin: display.x,
            extent: display.width, offset: zoom.offset.dx, pixels: ow)
        if horizontal.isUndecided { return nil }
        let vertical = fastAxis(
            lo: selection.y, size: selection.height, view: vh, origin: display.y,
            extent: display.height, offset: zoom.offset.dy, pixels: oh)
        if vertical.isUndecided { return nil }
        guard horizontal.high > horizontal.low, vertical.high > vertical.low else {
            return .some(nil)
        }
        let (left, top) = (intOfSmallWhole(horizontal.low), intOfSmallWhole(vertical.low))
        return PixelRect(
            x: left, y: top, width: intOfSmallWhole(horizontal.high) - left,
            height: intOfSmallWhole(vertical.high) - top)
    }

    /// Steps 5–8 along one axis in `Double`, with the bound on the terms
    /// the zoomed display rect's `origin` and `extent` came from.
    @inline(__always)
    private func fastAxis(
        lo: Double, size: Double, view: Double, origin: Double, extent: Double,
        offset: Double, pixels: Double
    ) -> FastAxis {
        // Every term the display rect and the clip are computed from is at
        // most this (summed as a tree: a serial chain of additions is slow):
        // the unzoomed display rect lies within |origin + offset| / z of the
        // view and is at most `extent / z` long, both scaled back by z.
        let magnitude =
            ((abs(lo) + size) + (view + abs(origin)))
            + ((extent + abs(offset)) + ((view * zoom.scale + abs(origin) + abs(offset)) + extent))
        guard extent >= 0x1p-900, magnitude <= 0x1p900 else { return .undecided }
        return decideAxis(
            lo: lo, size: size, view: view, origin: origin, extent: extent, magnitude: magnitude,
            pixels: pixels, perPoint: pixels / extent)
    }
}

/// Steps 5–8 along one axis in `Double`, given the zoomed display rect's
/// `origin` and `extent` on that axis.
///
/// `perPoint` is `pixels / extent`, within two roundings of exact. The caller
/// guarantees no overflow or underflow: `extent ≥ 2⁻⁹⁰⁰`, `magnitude ≤ 2⁹⁰⁰`
/// and `pixels ≤ 2⁴⁰`.
/// `magnitude` must bound every term that `origin`, `extent` and the clipped
/// edges are computed from, so that each of those view-space quantities,
/// computed in at most eight roundings, is within 16·u·magnitude of its exact
/// value (u = 2⁻⁵³); a pixel edge is then within
/// 64·u·(magnitude·pixels/extent + pixels + 1) of its exact value. Decisions
/// are accepted only with twice that margin; NaN or infinity anywhere fails a
/// comparison and leaves the axis undecided.
@inline(__always)
private func decideAxis(
    lo: Double, size: Double, view: Double, origin: Double, extent: Double, magnitude: Double,
    pixels: Double, perPoint: Double
) -> FastAxis {
    let u = 0x1p-53
    let viewError = 64 * u * magnitude

    let clipLo = max(lo, max(origin, 0))
    let clipHi = min(lo + size, min(origin + extent, view))
    let gap = clipHi - clipLo

    // With a clip of positive width the edges lie within the display rect,
    // so in [0, pixels] up to rounding; otherwise the values below are
    // garbage that the final test rejects (it fails for NaN too). Deciding
    // "empty" only after that keeps one unpredictable branch, not two.
    let edgeError = 128 * u * (magnitude * perPoint + pixels + 1)
    let left = (clipLo - origin) * perPoint + snapTolerance
    let right = (clipHi - origin) * perPoint - snapTolerance
    // An edge is decided when no integer lies within E of it: its distance
    // to the nearest integer exceeds E (never when E ≥ 1/2). The floor or
    // ceiling then follows from the side of that integer it lies on.
    let leftNearest = nearestOfSmall(left)
    let rightNearest = nearestOfSmall(right)
    let leftOffset = left - leftNearest
    let rightOffset = right - rightNearest
    let leftFloor = leftOffset < 0 ? leftNearest - 1 : leftNearest
    let rightCeiling = rightOffset > 0 ? rightNearest + 1 : rightNearest
    let decided =
        bit(gap > viewError) & bit(abs(leftOffset) > edgeError) & bit(abs(rightOffset) > edgeError)
    guard decided == 1 else { return gap < -viewError ? .empty : .undecided }
    // Step 8's clamp to [0, pixels] changes nothing here: the exact edges lie
    // in [0, pixels] (the clip is inside the display rect), and a decided
    // floor or ceiling of them is the exact one.
    return FastAxis(low: leftFloor, high: rightCeiling)
}

// MARK: - The exact path

extension CropRequest {
    /// Steps 3–8 in exact rational arithmetic; `nil` when rejected.
    fileprivate func exactPixelRect(oriented: PixelSize<ImagePixels>) -> PixelRect<ImagePixels>? {
        let display = zoomedDisplayRect(
            ow: ExactRational(oriented.width), oh: ExactRational(oriented.height),
            as: ExactRational.self)
        let (vw, vh) = (ExactRational(viewport.width), ExactRational(viewport.height))
        guard
            let (left, right) = exactAxis(
                lo: selection.x, size: selection.width, view: vw, origin: display.x,
                extent: display.width, pixels: oriented.width),
            let (top, bottom) = exactAxis(
                lo: selection.y, size: selection.height, view: vh, origin: display.y,
                extent: display.height, pixels: oriented.height),
            right > left, bottom > top
        else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The output rect `O` of a turned request, exactly: the selection
    /// clipped to the viewport (not to the image, which no longer fills an
    /// axis-aligned rect), moved into the straightened frame
    /// (`p = (v − centre(D')) / s + c`, which is step 6 itself when the
    /// display scale is the same across and down), snapped and rounded
    /// outward, not clamped. `nil` when the clip is empty; `.some(nil)`
    /// when an edge does not fit in an `Int`.
    func exactStraightenedRect(oriented: PixelSize<ImagePixels>) -> PixelRect<StraightenedPixels>??
    {
        let display = zoomedDisplayRect(
            ow: ExactRational(oriented.width), oh: ExactRational(oriented.height),
            as: ExactRational.self)
        let (vw, vh) = (ExactRational(viewport.width), ExactRational(viewport.height))
        guard
            let horizontal = exactAxis(
                lo: selection.x, size: selection.width, view: vw, origin: display.x,
                extent: display.width, pixels: oriented.width, clipsToImage: false),
            let vertical = exactAxis(
                lo: selection.y, size: selection.height, view: vh, origin: display.y,
                extent: display.height, pixels: oriented.height, clipsToImage: false)
        else { return nil }
        let limit = intHas64Bits ? 1 << 53 : 1 << 29
        guard let (left, right) = horizontal, let (top, bottom) = vertical,
            [left, right, top, bottom].allSatisfy({ abs($0) <= limit })
        else { return .some(nil) }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Whether the zoomed display rect has the same scale across and down
    /// (`D'.w / ow = D'.h / oh`), exactly: only such a display can turn.
    func displayScaleIsUniform(oriented: PixelSize<ImagePixels>) -> Bool {
        let (ow, oh) = (ExactRational(oriented.width), ExactRational(oriented.height))
        let display = zoomedDisplayRect(ow: ow, oh: oh, as: ExactRational.self)
        return ExactRational.compare(display.width * oh, display.height * ow) == 0
    }

    /// Steps 5–8 along one axis, exactly; `nil` when the clip is empty.
    private func exactAxis(
        lo: Double, size: Double, view: ExactRational, origin: ExactRational,
        extent: ExactRational, pixels: Int
    ) -> (Int, Int)? {
        guard
            let axis = exactAxis(
                lo: lo, size: size, view: view, origin: origin, extent: extent, pixels: pixels,
                clipsToImage: true)
        else { return nil }
        return axis
    }

    /// Steps 5–8 along one axis, exactly, clipping the selection to the
    /// visible image (`clipsToImage`, the contract) or to the viewport alone
    /// (a turned request, whose edges are then not clamped); `nil` when the
    /// clip is empty, `.some(nil)` when an unclamped edge does not fit in
    /// an `Int`.
    private func exactAxis(
        lo: Double, size: Double, view: ExactRational, origin: ExactRational,
        extent: ExactRational, pixels: Int, clipsToImage: Bool
    ) -> (Int, Int)?? {
        let zero = ExactRational(0)
        let selectionLo = ExactRational(lo)
        let selectionHi = selectionLo + ExactRational(size)
        let clipLo = ExactRational.max(
            selectionLo, clipsToImage ? ExactRational.max(origin, zero) : zero)
        let clipHi = ExactRational.min(
            selectionHi, clipsToImage ? ExactRational.min(origin + extent, view) : view)
        guard ExactRational.compare(clipHi, clipLo) > 0 else { return nil }
        let perPoint = ExactRational(pixels) / extent
        let snap = ExactRational(1) / ExactRational(snapDenominator)
        let left = ((clipLo - origin) * perPoint + snap).floor()
        let right = ((clipHi - origin) * perPoint - snap).ceiling()
        if !clipsToImage {
            guard let left, let right else { return .some(nil) }
            return (left, right)
        }
        // The clip lies inside the display rect, so both edges are in
        // [0, pixels] and fit; the clamp is the contract's, not a repair.
        let low = min(max(left ?? 0, 0), pixels)
        let high = min(max(right ?? pixels, 0), pixels)
        return (low, high)
    }
}
