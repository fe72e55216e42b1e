/// The crop's output image: its pixels as written, upright (turned as the
/// person saw the photo), origin at its top-left. A place in the photo
/// lands here through a ``PlaceMapping``.
public enum OutputPixels: PixelSpace {}

/// A place named in a photo's metadata (a focus point, a face, an image
/// region, a lens centre): a point, a rectangle, a circle or a polygon, in
/// continuous coordinates of `Space` (pixel `i` spans `i` to `i + 1`, its
/// centre at `i + ½`).
public enum Place<Space: CoordinateSpace>: Hashable, Sendable {
    /// A point.
    case point(Point<Space>)
    /// An axis-aligned rectangle.
    case rect(Rect<Space>)
    /// A circle by its centre and radius.
    case circle(center: Point<Space>, radius: Double)
    /// A polygon by its corners, in order.
    case polygon([Point<Space>])

    /// The smallest axis-aligned rectangle holding the place (a point's has
    /// no size); `nil` for a polygon without corners.
    public var boundingBox: Rect<Space>? {
        switch self {
        case .point(let p): return Rect(x: p.x, y: p.y, width: 0, height: 0)
        case .rect(let r): return r
        case .circle(let c, let radius):
            return Rect(x: c.x - radius, y: c.y - radius, width: 2 * radius, height: 2 * radius)
        case .polygon(let corners):
            guard let first = corners.first else { return nil }
            var (x0, y0, x1, y1) = (first.x, first.y, first.x, first.y)
            for p in corners {
                (x0, x1) = (min(x0, p.x), max(x1, p.x))
                (y0, y1) = (min(y0, p.y), max(y1, p.y))
            }
            return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
    }
}

/// Where a place landed in a crop: the part of it the crop holds, in the
/// output's pixels, and whether anything of it was cut away.
public struct MappedPlace: Hashable, Sendable {
    /// The place as the crop holds it; `nil` when nothing of it is inside
    /// (the field is removed, DESIGN.md "Coordinates in metadata").
    public var place: Place<OutputPixels>?
    /// Whether the crop cut part of it away (it was clipped to the output).
    public var clipped: Bool

    /// A mapped place.
    public init(place: Place<OutputPixels>?, clipped: Bool) {
        self.place = place
        self.clipped = clipped
    }
}

/// Where the places named in a photo's metadata land in its crop: the same
/// exact transform as the pixels (orientation, crop offset, straighten,
/// resize), then the clipping rule (DESIGN.md, "Coordinates in metadata").
///
/// A place is given as seen (``ImagePixels``) or as stored
/// (``StoredPixels``), in pixels or normalized to the image (0 to 1), or
/// as Apple's Vision framework gives faces (normalized, origin at the
/// bottom-left); it lands in the output (``OutputPixels``), upright. An
/// iOS app that draws face boxes over its crop preview uses the same
/// numbers.
///
/// ```swift
/// import CropGeometry
///
/// // The photo as seen is 4032x3024; the crop is 1000,500,2000,1500.
/// let result = CropResult(
///     rect: PixelRect(x: 1000, y: 500, width: 2000, height: 1500), orientation: .up,
///     sourceSize: PixelSize(width: 4032, height: 3024))
/// let mapping = PlaceMapping(result)
/// let face = mapping.map(Place<ImagePixels>.rect(Rect(x: 900, y: 600, width: 300, height: 300)))
/// print(face.place?.boundingBox?.description ?? "outside")  // 0,100,200,300
/// print(face.clipped)  // true: its left 100 pixels are not in the crop
/// ```
public struct PlaceMapping: Hashable, Sendable {
    /// The output's size, as written (upright).
    public let outputSize: PixelSize<OutputPixels>
    /// The photo's stored size.
    public let sourceSize: PixelSize<StoredPixels>
    /// The orientation that relates the stored photo to the photo as seen.
    public let orientation: EXIFOrientation
    /// From the photo as seen to the output.
    private let toOutput: AffineMap<ImagePixels, OutputPixels>
    /// From the output back to the photo as seen.
    private let toImage: AffineMap<OutputPixels, ImagePixels>

    /// The mapping of a plain crop: its rect as seen, written upright at its
    /// own size.
    public init(_ result: CropResult) {
        outputSize = PixelSize(width: result.rect.width, height: result.rect.height)
        sourceSize = result.sourceSize
        orientation = result.orientation
        let (x, y) = (Double(result.rect.x), Double(result.rect.y))
        toOutput = AffineMap(a: 1, b: 0, c: 0, d: 1, tx: -x, ty: -y)
        toImage = AffineMap(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    /// The mapping of a straightened or resized crop: each output pixel
    /// where ``StraightenedCrop/sampleTransform`` samples the photo.
    public init(_ crop: StraightenedCrop) {
        outputSize = PixelSize(width: crop.outputSize.width, height: crop.outputSize.height)
        sourceSize = crop.sourceSize
        orientation = crop.orientation
        let t = crop.sampleTransform
        toImage = AffineMap(a: t.a, b: t.b, c: t.c, d: t.d, tx: t.tx, ty: t.ty)
        let det = t.a * t.d - t.b * t.c
        let (a, b, c, d) = (t.d / det, -t.b / det, -t.c / det, t.a / det)
        toOutput = AffineMap(
            a: a, b: b, c: c, d: d, tx: -(a * t.tx + b * t.ty), ty: -(c * t.tx + d * t.ty))
    }

    /// Where the photo's point `p` (as seen) is in the output, unclipped.
    public func outputPoint(of p: Point<ImagePixels>) -> Point<OutputPixels> {
        toOutput.apply(p)
    }

    /// Where the output's point `p` is in the photo as seen: the inverse.
    public func imagePoint(of p: Point<OutputPixels>) -> Point<ImagePixels> {
        toImage.apply(p)
    }

    /// Where the stored point `p` is seen (continuous: the stored pixel
    /// `(i, j)`, spanning `i…i+1`, is seen as the pixel the orientation
    /// table names).
    public func imagePoint(ofStored p: Point<StoredPixels>) -> Point<ImagePixels> {
        let turn = Self.turn(orientation, stored: sourceSize)
        return Point(
            x: turn.origin.x + p.x * turn.across.x + p.y * turn.down.x,
            y: turn.origin.y + p.x * turn.across.y + p.y * turn.down.y)
    }

    /// Where the point `p` as seen is stored: the inverse of
    /// ``imagePoint(ofStored:)``.
    public func storedPoint(ofImage p: Point<ImagePixels>) -> Point<StoredPixels> {
        let turn = Self.turn(orientation, stored: sourceSize)
        let (dx, dy) = (p.x - turn.origin.x, p.y - turn.origin.y)
        return Point(
            x: dx * turn.across.x + dy * turn.across.y, y: dx * turn.down.x + dy * turn.down.y)
    }

    /// `place` (in the photo as seen) in the crop, clipped to the output.
    public func map(_ place: Place<ImagePixels>) -> MappedPlace {
        switch place {
        case .point(let p):
            let q = outputPoint(of: p)
            let inside =
                q.x >= 0 && q.y >= 0 && q.x <= Double(outputSize.width)
                && q.y <= Double(outputSize.height)
            return MappedPlace(place: inside ? .point(q) : nil, clipped: !inside)
        case .rect(let r):
            let corners = [
                Point<ImagePixels>(x: r.x, y: r.y), Point(x: r.maxX, y: r.y),
                Point(x: r.maxX, y: r.maxY), Point(x: r.x, y: r.maxY),
            ]
            let mapped = mapPolygon(corners)
            // Unturned, a rect stays a rect.
            guard isAxisAligned, let kept = mapped.place, let box = kept.boundingBox else {
                return mapped
            }
            return MappedPlace(place: .rect(box), clipped: mapped.clipped)
        case .circle(let center, let radius):
            return mapCircle(center: center, radius: radius)
        case .polygon(let corners):
            return mapPolygon(corners)
        }
    }

    /// `place` as stored in the crop, clipped to the output.
    public func map(stored place: Place<StoredPixels>) -> MappedPlace {
        map(seen(place))
    }

    /// `place`, normalized to the photo as seen (0 to 1 across and down,
    /// origin at the top-left; a circle's radius relative to the width), in
    /// the crop, normalized to the output the same way.
    public func map(normalized place: Place<ImagePixels>) -> MappedPlace {
        let shown = orientation.orientedSize(sourceSize)
        let (w, h) = (Double(shown.width), Double(shown.height))
        let mapped = map(place.scaled(x: w, y: h))
        return MappedPlace(
            place: mapped.place?.scaled(
                x: 1 / Double(outputSize.width), y: 1 / Double(outputSize.height)),
            clipped: mapped.clipped)
    }

    /// A rectangle as Apple's Vision framework gives a face's bounding box
    /// in the photo as seen (normalized, origin at the bottom-left, y up),
    /// in the crop the same way; `nil` when nothing of it is inside. A
    /// straightened crop gives the box of the turned, clipped face.
    public func map(visionRect r: Rect<ImagePixels>) -> Rect<OutputPixels>? {
        let topDown = Rect<ImagePixels>(
            x: r.x, y: 1 - r.y - r.height, width: r.width, height: r.height)
        let shown = orientation.orientedSize(sourceSize)
        let (w, h) = (Double(shown.width), Double(shown.height))
        // In output pixels, then normalized: the bottom edge's distance
        // from the output's bottom is exact there.
        let scaled: Place<ImagePixels> = Place.rect(topDown).scaled(x: w, y: h)
        guard let box = map(scaled).place?.boundingBox else { return nil }
        let (ow, oh) = (Double(outputSize.width), Double(outputSize.height))
        return Rect(
            x: box.x / ow, y: max(oh - box.maxY, 0) / oh, width: box.width / ow,
            height: box.height / oh)
    }

    /// Whether the transform keeps axis-aligned rectangles axis-aligned
    /// (no straighten; orientation and resize do).
    public var isAxisAligned: Bool {
        (toOutput.b == 0 && toOutput.c == 0) || (toOutput.a == 0 && toOutput.d == 0)
    }

    /// The polygon through the transform, clipped to the output
    /// (Sutherland–Hodgman against each edge: exact for a convex output).
    private func mapPolygon(_ corners: [Point<ImagePixels>]) -> MappedPlace {
        let mapped = corners.map { outputPoint(of: $0) }
        let (w, h) = (Double(outputSize.width), Double(outputSize.height))
        var kept = mapped
        // Each edge in turn (left, right, top, bottom): keep the side
        // inside the output, cutting each side that crosses it.
        for edge in 0..<4 {
            guard !kept.isEmpty else { break }
            let at = [0, w, 0, h][edge]
            func value(_ p: Point<OutputPixels>) -> Double { edge < 2 ? p.x : p.y }
            func inside(_ p: Point<OutputPixels>) -> Bool {
                edge % 2 == 0 ? value(p) >= at : value(p) <= at
            }
            var next: [Point<OutputPixels>] = []
            for (n, current) in kept.enumerated() {
                let previous = kept[(n + kept.count - 1) % kept.count]
                let (inCurrent, inPrevious) = (inside(current), inside(previous))
                if inCurrent != inPrevious {
                    let (a, b) = (value(previous), value(current))
                    let t = (at - a) / (b - a)
                    next.append(
                        Point(
                            x: previous.x + t * (current.x - previous.x),
                            y: previous.y + t * (current.y - previous.y)))
                }
                if inCurrent { next.append(current) }
            }
            kept = next
        }
        let clipped = kept != mapped
        // A point cut on an edge lies on it exactly, not a rounding error
        // beside it.
        kept = kept.map { Point(x: min(max($0.x, 0), w), y: min(max($0.y, 0), h)) }
        guard kept.count >= 3, let box = Place<OutputPixels>.polygon(kept).boundingBox,
            box.width > 0, box.height > 0
        else { return MappedPlace(place: nil, clipped: true) }
        return MappedPlace(place: .polygon(kept), clipped: clipped)
    }

    /// A circle: a circle again when the transform keeps circles (no
    /// resize to another aspect) and the output holds it whole; else the
    /// rectangle round what the output holds of its (elliptic) image.
    private func mapCircle(center: Point<ImagePixels>, radius: Double) -> MappedPlace {
        let c = outputPoint(of: center)
        // The output's extent of the circle's image along each axis: an
        // ellipse's half-width is the radius times the row's length.
        let rx = radius * (toOutput.a * toOutput.a + toOutput.b * toOutput.b).squareRoot()
        let ry = radius * (toOutput.c * toOutput.c + toOutput.d * toOutput.d).squareRoot()
        let (w, h) = (Double(outputSize.width), Double(outputSize.height))
        let whole = c.x - rx >= 0 && c.y - ry >= 0 && c.x + rx <= w && c.y + ry <= h
        let similar = abs(rx - ry) <= 1e-9 * max(rx, ry)
        if whole && similar {
            return MappedPlace(place: .circle(center: c, radius: rx), clipped: false)
        }
        // The box of the ellipse, clipped (for a circle kept round, the
        // box of the disc's part inside, exactly).
        var x0 = max(c.x - rx, 0)
        var x1 = min(c.x + rx, w)
        var y0 = max(c.y - ry, 0)
        var y1 = min(c.y + ry, h)
        guard x1 > x0, y1 > y0 else { return MappedPlace(place: nil, clipped: true) }
        if similar {
            // Across: at the row of the kept band nearest the centre.
            let nearY = min(max(c.y, y0), y1)
            let halfX = (rx * rx - (nearY - c.y) * (nearY - c.y)).squareRoot()
            let nearX = min(max(c.x, x0), x1)
            let halfY = (rx * rx - (nearX - c.x) * (nearX - c.x)).squareRoot()
            (x0, x1) = (max(c.x - halfX, x0), min(c.x + halfX, x1))
            (y0, y1) = (max(c.y - halfY, y0), min(c.y + halfY, y1))
            guard x1 > x0, y1 > y0 else { return MappedPlace(place: nil, clipped: true) }
        }
        return MappedPlace(
            place: .rect(Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)), clipped: !whole)
    }

    /// `place` as stored, seen.
    private func seen(_ place: Place<StoredPixels>) -> Place<ImagePixels> {
        switch place {
        case .point(let p): return .point(imagePoint(ofStored: p))
        case .rect(let r):
            let a = imagePoint(ofStored: Point(x: r.x, y: r.y))
            let b = imagePoint(ofStored: Point(x: r.maxX, y: r.maxY))
            return .rect(
                Rect(
                    x: min(a.x, b.x), y: min(a.y, b.y), width: abs(b.x - a.x),
                    height: abs(b.y - a.y)))
        case .circle(let c, let radius):
            return .circle(center: imagePoint(ofStored: c), radius: radius)
        case .polygon(let corners): return .polygon(corners.map { imagePoint(ofStored: $0) })
        }
    }

    /// A quarter turn or mirror as a map of continuous positions from an
    /// image of `stored` size to the image seen: `seen = origin + x·across +
    /// y·down`.
    private static func turn(_ orientation: EXIFOrientation, stored: PixelSize<StoredPixels>) -> (
        origin: (x: Double, y: Double), across: (x: Double, y: Double), down: (x: Double, y: Double)
    ) {
        // Pixel (0, 0) spans the unit square at the origin; where its
        // corners go fixes the map. The steps come from a size of at least
        // 2x2, the same for every size.
        let big = PixelSize<StoredPixels>(
            width: max(stored.width, 2), height: max(stored.height, 2))
        let o = orientation.orientedPoint(x: 0, y: 0, storedSize: big)
        let r = orientation.orientedPoint(x: 1, y: 0, storedSize: big)
        let d = orientation.orientedPoint(x: 0, y: 1, storedSize: big)
        let across = (x: Double(r.x - o.x), y: Double(r.y - o.y))
        let down = (x: Double(d.x - o.x), y: Double(d.y - o.y))
        // Pixel (0, 0)'s centre (½, ½) is seen at the centre of the pixel
        // the table names.
        let seen = orientation.orientedPoint(x: 0, y: 0, storedSize: stored)
        let centre = (x: Double(seen.x) + 0.5, y: Double(seen.y) + 0.5)
        return (
            (
                centre.x - 0.5 * across.x - 0.5 * down.x,
                centre.y - 0.5 * across.y - 0.5 * down.y
            ), across, down
        )
    }
}

extension Place {
    /// The place with every coordinate multiplied by `x` across and `y`
    /// down; a circle's radius by `x` (a normalized radius is relative to
    /// the width, as IPTC's relative unit is).
    fileprivate func scaled<To: CoordinateSpace>(x sx: Double, y sy: Double) -> Place<To> {
        func scaled(_ p: Point<Space>) -> Point<To> { Point(x: p.x * sx, y: p.y * sy) }
        switch self {
        case .point(let p): return .point(scaled(p))
        case .rect(let r):
            return .rect(Rect(x: r.x * sx, y: r.y * sy, width: r.width * sx, height: r.height * sy))
        case .circle(let c, let radius):
            return .circle(center: scaled(c), radius: radius * sx)
        case .polygon(let corners): return .polygon(corners.map(scaled))
        }
    }
}
