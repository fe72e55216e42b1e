extension CropRequest {
    /// The source pixels the selection covers, per the mapping contract.
    ///
    /// The answer is the one exact rational arithmetic gives on the `Double`
    /// values as given: edges within 1e-6 px of an integer snap to it, then the
    /// left and top edges round down and the right and bottom edges round up.
    /// A fast path in `Double` carries a rigorous error bound and answers only
    /// when no rounding decision lies within it; every other case is computed
    /// in exact rational arithmetic. See "Rounding" in the README for the table.
    ///
    /// - Returns: The crop in the oriented grid and in the stored grid.
    /// - Throws: ``CropRejection`` naming the first rule the input breaks.
    /// - Complexity: O(1); the exact path allocates.
    public func map() throws(CropRejection) -> CropResult {
        let source = try validatedSourceSize()
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
    /// - Throws: ``CropRejection``, including ``CropRejection/aspectRatioDoesNotFit``.
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

    private func validated(checkingSelection: Bool) throws(CropRejection) -> PixelSize<StoredPixels> {
        let selectionNumbers = checkingSelection ? [selection.x, selection.y, selection.width, selection.height] : [0, 0, 1, 1]
        let numbers: [(String, Double)] = [
            ("source width", sourceSize.width), ("source height", sourceSize.height),
            ("viewport width", viewport.width), ("viewport height", viewport.height),
            ("selection x", selectionNumbers[0]), ("selection y", selectionNumbers[1]),
            ("selection width", selectionNumbers[2]), ("selection height", selectionNumbers[3]),
            ("image scale", imageScale), ("zoom scale", zoom.scale),
            ("zoom offset x", zoom.offset.dx), ("zoom offset y", zoom.offset.dy),
        ]
        for (field, value) in numbers where !value.isFinite {
            throw .nonFinite(field: field)
        }
        let (sw, sh) = (sourceSize.width, sourceSize.height)
        guard sw > 0, sh > 0, sw.rounded(.towardZero) == sw, sh.rounded(.towardZero) == sh else {
            throw .sourceNotPositiveInteger(width: sw, height: sh)
        }
        guard sw <= Self.maximumSourceDimension, sh <= Self.maximumSourceDimension else {
            throw .sourceTooLarge(width: sw, height: sh)
        }
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

/// The rounding decisions of one axis in `Double`, or why it could not decide.
private enum FastAxis {
    case pixels(Int, Int)
    case empty
    case undecided
}

extension CropRequest {
    /// Steps 3–8 in `Double` with an error bound, or `nil` when a decision is
    /// too close to call (the exact path then answers). `.some(nil)` means
    /// rejected: no image pixels.
    fileprivate func fastPixelRect(oriented: PixelSize<ImagePixels>) -> PixelRect<ImagePixels>?? {
        let ow = Double(oriented.width)
        let oh = Double(oriented.height)
        let (vw, vh) = (viewport.width, viewport.height)
        let z = zoom.scale
        // The bound below assumes no overflow or loss to underflow; outside
        // these ranges the exact path answers.
        let huge = 0x1p200
        let tiny = 0x1p-200
        guard ow <= 0x1p40, oh <= 0x1p40,
            vw >= tiny, vw <= huge, vh >= tiny, vh <= huge, z >= tiny, z <= huge,
            imageScale >= tiny, imageScale <= huge,
            abs(selection.x) <= huge, abs(selection.y) <= huge,
            selection.width <= huge, selection.height <= huge,
            abs(zoom.offset.dx) <= huge, abs(zoom.offset.dy) <= huge
        else { return nil }

        let (dx, dy, dw, dh) = displayRectInDouble(ow: ow, oh: oh)
        let horizontal = fastAxis(
            lo: selection.x, size: selection.width, view: vw,
            displayOrigin: dx, displaySize: dw, offset: zoom.offset.dx, pixels: ow)
        let vertical = fastAxis(
            lo: selection.y, size: selection.height, view: vh,
            displayOrigin: dy, displaySize: dh, offset: zoom.offset.dy, pixels: oh)
        switch (horizontal, vertical) {
        case (.undecided, _), (_, .undecided):
            return nil
        case (.empty, _), (_, .empty):
            return .some(nil)
        case (.pixels(let left, let right), .pixels(let top, let bottom)):
            guard right > left, bottom > top else { return .some(nil) }
            return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
        }
    }

    /// Step 3 in `Double`: the display rect before zoom.
    func displayRectInDouble(ow: Double, oh: Double) -> (Double, Double, Double, Double) {
        let (vw, vh) = (viewport.width, viewport.height)
        switch mode {
        case .aspectFit, .aspectFill:
            // Width-limited when vw/ow is the chosen ratio. Near a tie either
            // choice gives the same rect to within the error bound.
            let widthRatioIsSmaller = vw * oh <= vh * ow
            if widthRatioIsSmaller == (mode == .aspectFit) {
                let height = oh * vw / ow
                return (0, (vh - height) / 2, vw, height)
            } else {
                let width = ow * vh / oh
                return ((vw - width) / 2, 0, width, vh)
            }
        case .scaleToFill:
            return (0, 0, vw, vh)
        default:
            let (nw, nh) = (ow / imageScale, oh / imageScale)
            return (
                placed(nw, in: vw, mode.horizontalPlacement), placed(nh, in: vh, mode.verticalPlacement),
                nw, nh
            )
        }
    }

    private func placed(_ natural: Double, in view: Double, _ placement: ContentMode.Placement)
        -> Double
    {
        switch placement {
        case .start: 0
        case .middle: (view - natural) / 2
        case .end: view - natural
        }
    }

    /// Steps 4–8 along one axis in `Double`.
    ///
    /// Every view-space quantity is computed in at most eight roundings from
    /// terms bounded by `magnitude`, so its absolute error is below
    /// 16·u·magnitude (u = 2⁻⁵³); a pixel edge's error is then below
    /// 64·u·(magnitude·pixels/size + |edge| + 1). Decisions are accepted only
    /// with twice that margin.
    private func fastAxis(
        lo: Double, size: Double, view: Double, displayOrigin: Double, displaySize: Double,
        offset: Double, pixels: Double
    ) -> FastAxis {
        let z = zoom.scale
        let origin = displayOrigin * z - offset
        let extent = displaySize * z
        let magnitude =
            abs(lo) + size + view + abs(origin) + extent + abs(offset)
            + (view + abs(displayOrigin) + displaySize) * z
        let u = 0x1p-53
        let viewError = 64 * u * magnitude

        let clipLo = max(lo, max(origin, 0))
        let clipHi = min(lo + size, min(origin + extent, view))
        let gap = clipHi - clipLo
        if gap < -viewError { return .empty }
        if gap <= viewError { return .undecided }

        let perPoint = pixels / extent
        let edgeError = 128 * u * (magnitude * perPoint + pixels + 1)
        let left = (clipLo - origin) * perPoint + 1e-6
        let right = (clipHi - origin) * perPoint - 1e-6
        let leftFloor = left.rounded(.down)
        let rightCeiling = right.rounded(.up)
        guard left - leftFloor > edgeError, leftFloor + 1 - left > edgeError,
            rightCeiling - right > edgeError, right - (rightCeiling - 1) > edgeError
        else { return .undecided }
        let low = Int(min(max(leftFloor, 0), pixels))
        let high = Int(min(max(rightCeiling, 0), pixels))
        return .pixels(low, high)
    }
}

// MARK: - The exact path

extension CropRequest {
    /// Steps 3–8 in exact rational arithmetic; `nil` when rejected.
    fileprivate func exactPixelRect(oriented: PixelSize<ImagePixels>) -> PixelRect<ImagePixels>? {
        let ow = ExactRational(oriented.width)
        let oh = ExactRational(oriented.height)
        let vw = ExactRational(viewport.width)
        let vh = ExactRational(viewport.height)
        let two = ExactRational(2)
        let (dx, dy, dw, dh): (ExactRational, ExactRational, ExactRational, ExactRational)
        switch mode {
        case .aspectFit, .aspectFill:
            let widthRatioIsSmaller = ExactRational.compare(vw * oh, vh * ow) <= 0
            if widthRatioIsSmaller == (mode == .aspectFit) {
                let height = oh * vw / ow
                (dx, dy, dw, dh) = (ExactRational(0), (vh - height) / two, vw, height)
            } else {
                let width = ow * vh / oh
                (dx, dy, dw, dh) = ((vw - width) / two, ExactRational(0), width, vh)
            }
        case .scaleToFill:
            (dx, dy, dw, dh) = (ExactRational(0), ExactRational(0), vw, vh)
        default:
            let scale = ExactRational(imageScale)
            let (nw, nh) = (ow / scale, oh / scale)
            func placed(_ natural: ExactRational, _ view: ExactRational, _ p: ContentMode.Placement)
                -> ExactRational
            {
                switch p {
                case .start: ExactRational(0)
                case .middle: (view - natural) / two
                case .end: view - natural
                }
            }
            (dx, dy, dw, dh) = (
                placed(nw, vw, mode.horizontalPlacement), placed(nh, vh, mode.verticalPlacement),
                nw, nh
            )
        }
        let z = ExactRational(zoom.scale)
        guard
            let (left, right) = exactAxis(
                lo: selection.x, size: selection.width, view: vw,
                origin: dx * z - ExactRational(zoom.offset.dx), extent: dw * z,
                pixels: oriented.width),
            let (top, bottom) = exactAxis(
                lo: selection.y, size: selection.height, view: vh,
                origin: dy * z - ExactRational(zoom.offset.dy), extent: dh * z,
                pixels: oriented.height),
            right > left, bottom > top
        else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Steps 5–8 along one axis, exactly; `nil` when the clip is empty.
    private func exactAxis(
        lo: Double, size: Double, view: ExactRational, origin: ExactRational,
        extent: ExactRational, pixels: Int
    ) -> (Int, Int)? {
        let zero = ExactRational(0)
        let selectionLo = ExactRational(lo)
        let selectionHi = selectionLo + ExactRational(size)
        let clipLo = ExactRational.max(selectionLo, ExactRational.max(origin, zero))
        let clipHi = ExactRational.min(selectionHi, ExactRational.min(origin + extent, view))
        guard ExactRational.compare(clipHi, clipLo) > 0 else { return nil }
        let perPoint = ExactRational(pixels) / extent
        let snap = ExactRational(1) / ExactRational(1_000_000)
        let left = ((clipLo - origin) * perPoint + snap).floor()
        let right = ((clipHi - origin) * perPoint - snap).ceiling()
        // The clip lies inside the display rect, so both edges are in
        // [0, pixels] and fit; the clamp is the contract's, not a repair.
        let low = min(max(left ?? 0, 0), pixels)
        let high = min(max(right ?? pixels, 0), pixels)
        return (low, high)
    }
}
