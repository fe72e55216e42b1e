import CropGeometry
import CropRecords

/// A HEIF region item (`rgan`) that describes the primary image: its item
/// and its data, whole.
struct HEIFRegionItem: Sendable {
    var item: Int
    var data: [UInt8]
}

/// HEIF region items (ISO/IEC 23008-12:2022, §6.10; libheif's
/// `heif_regions.h`) carried into a crop (DESIGN.md, "Coordinates in
/// metadata"). A region item holds a reference size and a list of
/// geometries (points, rectangles, ellipses, polygons, polylines, masks)
/// in that reference space, which is scaled onto the image it describes
/// **before** its transformative properties (`clap`, `irot`, `imir`) apply:
/// the coded image's canvas, what libheif's `_transformed` calls map from.
///
/// A HEIC crop that keeps the stored tiles writes each region item again
/// with the crop's coded canvas as the reference size, every geometry
/// moved by the stored offset and cut to the crop: a rectangle or polygon
/// clipped, an ellipse the crop holds whole moved, one it cuts the
/// rectangle round its part inside; a point or polyline outside (or a
/// polyline the crop cuts) removed, and a mask (its own image item, or
/// inline bits) removed. Coordinates are whole units: a plain crop moves
/// them exactly.
enum HEIFRegions {
    /// One geometry, in the item's reference space.
    enum Geometry {
        case point(x: Int, y: Int)
        case rectangle(x: Int, y: Int, width: Int, height: Int)
        case ellipse(x: Int, y: Int, radiusX: Int, radiusY: Int)
        case polygon([(x: Int, y: Int)])
        case polyline([(x: Int, y: Int)])
        /// A referenced (type 4) or inline (type 5) mask.
        case mask(type: Int)

        /// The geometry's kind in words.
        var name: String {
            switch self {
            case .point: "a point"
            case .rectangle: "a rectangle"
            case .ellipse: "an ellipse"
            case .polygon: "a polygon"
            case .polyline: "a polyline"
            case .mask: "a mask"
            }
        }
    }

    /// A region item's contents.
    struct Item {
        var referenceWidth: Int
        var referenceHeight: Int
        var geometries: [Geometry]
    }

    /// `data` read as a region item; `nil` when it is not one (short, a
    /// count that runs past its end, an unknown geometry type).
    static func parse(_ data: [UInt8]) -> Item? {
        guard data.count >= 7 else { return nil }
        let wide = data[1] & 1 == 1
        let size = wide ? 4 : 2
        var at = 2
        func unsigned() -> Int? {
            guard at + size <= data.count else { return nil }
            let value = data[at..<at + size].reduce(0) { $0 << 8 | Int($1) }
            at += size
            return value
        }
        func signed() -> Int? {
            guard let value = unsigned() else { return nil }
            let bits = size * 8
            return value >= 1 << (bits - 1) ? value - (1 << bits) : value
        }
        guard let width = unsigned(), let height = unsigned(), at < data.count else { return nil }
        let count = Int(data[at])
        at += 1
        var geometries: [Geometry] = []
        for _ in 0..<count {
            guard at < data.count else { return nil }
            let type = Int(data[at])
            at += 1
            switch type {
            case 0:
                guard let x = signed(), let y = signed() else { return nil }
                geometries.append(.point(x: x, y: y))
            case 1, 2, 4:
                guard let x = signed(), let y = signed(), let w = unsigned(), let h = unsigned()
                else { return nil }
                geometries.append(
                    type == 1
                        ? .rectangle(x: x, y: y, width: w, height: h)
                        : type == 2 ? .ellipse(x: x, y: y, radiusX: w, radiusY: h) : .mask(type: 4))
            case 3, 6:
                // Each point takes two fields: a count beyond the data's
                // end is refused before anything is made of it.
                guard let points = unsigned(), points <= (data.count - at) / (2 * size) else {
                    return nil
                }
                var list: [(x: Int, y: Int)] = []
                for _ in 0..<points {
                    guard let x = signed(), let y = signed() else { return nil }
                    list.append((x, y))
                }
                geometries.append(type == 3 ? .polygon(list) : .polyline(list))
            case 5:
                // An inline mask's bits run to the item's end: the last
                // geometry it can hold.
                guard signed() != nil, signed() != nil, unsigned() != nil, unsigned() != nil,
                    at < data.count
                else { return nil }
                geometries.append(.mask(type: 5))
                at = data.count
            default:
                return nil
            }
        }
        return Item(referenceWidth: width, referenceHeight: height, geometries: geometries)
    }

    /// `item` as a region item's data, with 16-bit fields where every value
    /// fits them, else 32-bit ones. Masks are not written (a crop removes
    /// them).
    static func encode(_ item: Item) -> [UInt8] {
        var values = [item.referenceWidth, item.referenceHeight]
        for geometry in item.geometries {
            switch geometry {
            case .point(let x, let y): values += [x, y]
            case .rectangle(let x, let y, let w, let h), .ellipse(let x, let y, let w, let h):
                values += [x, y, w, h]
            case .polygon(let p), .polyline(let p):
                values += [p.count] + p.flatMap { [$0.x, $0.y] }
            case .mask: break
            }
        }
        let wide = values.contains { $0 < -32768 || $0 > 65535 }
        let size = wide ? 4 : 2
        var out: [UInt8] = [0, wide ? 1 : 0]
        func field(_ v: Int) {
            let bits = UInt32(truncatingIfNeeded: v)
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: bits >> UInt32(shift)))
            }
        }
        field(item.referenceWidth)
        field(item.referenceHeight)
        let kept = item.geometries.filter { if case .mask = $0 { false } else { true } }
        out.append(UInt8(min(kept.count, 255)))
        for geometry in kept.prefix(255) {
            switch geometry {
            case .point(let x, let y):
                out.append(0)
                field(x)
                field(y)
            case .rectangle(let x, let y, let w, let h), .ellipse(let x, let y, let w, let h):
                if case .rectangle = geometry { out.append(1) } else { out.append(2) }
                for v in [x, y, w, h] { field(v) }
            case .polygon(let p), .polyline(let p):
                if case .polygon = geometry { out.append(3) } else { out.append(6) }
                field(p.count)
                for point in p {
                    field(point.x)
                    field(point.y)
                }
            case .mask: break
            }
        }
        return out
    }

    /// A region item for `info`: "rgan item 7: a point 500,400, a rectangle
    /// 300x200 at 100,100 (reference 1001x777 on the canvas, before
    /// clap and turns; mapped by a HEIC crop)".
    static func describe(_ region: HEIFRegionItem) -> String { entry(region).text }

    /// ``describe(_:)``'s phrase, and for `--json` `{item, reference,
    /// shapes, crop, summary}`: the reference space's size (`null` when
    /// the item cannot be read), each geometry as `{shape, values}`
    /// (`point` x, y; `rectangle` x, y, width, height; `ellipse` x, y,
    /// radii; `polygon` and `polyline` their points' x, y in turn; `mask`
    /// none) and `"mapped"` or `"removed"`.
    static func entry(_ region: HEIFRegionItem) -> ImageFileSummary.Detail.Entry {
        guard let item = parse(region.data) else {
            let text =
                "rgan item \(region.item): not a region item CropKit can read (removed by a crop)"
            return .init(
                text,
                .object([
                    .init("item", .number(region.item)), .init("reference", .null),
                    .init("shapes", .array([])), .init("crop", .string("removed")),
                    .init("summary", .string(text)),
                ]))
        }
        var shapes: [String] = []
        var objects: [JSONValue] = []
        for geometry in item.geometries {
            let (name, values, words) = shape(of: geometry)
            shapes.append(words)
            objects.append(
                .object([
                    .init("shape", .string(name)),
                    .init("values", .array(values.map { .number($0) })),
                ]))
        }
        let text =
            "rgan item \(region.item): \(shapes.isEmpty ? "no region" : shapes.joined(separator: ", ")) (reference \(item.referenceWidth)x\(item.referenceHeight) on the canvas, before clap and turns; mapped by a HEIC crop)"
        return .init(
            text,
            .object([
                .init("item", .number(region.item)),
                .init("reference", .size(width: item.referenceWidth, height: item.referenceHeight)),
                .init("shapes", .array(objects)), .init("crop", .string("mapped")),
                .init("summary", .string(text)),
            ]))
    }

    /// A geometry's shape (`point`, `rectangle`, `ellipse`, `polygon`,
    /// `polyline`, `mask`), its values (a point's x, y; a rectangle's x, y,
    /// width, height; an ellipse's x, y and radii; a polygon's or
    /// polyline's points' x, y in turn) and how `info` says it.
    static func shape(of geometry: Geometry) -> (name: String, values: [Int], words: String) {
        switch geometry {
        case .point(let x, let y): ("point", [x, y], "a point \(x),\(y)")
        case .rectangle(let x, let y, let w, let h):
            ("rectangle", [x, y, w, h], "a rectangle \(w)x\(h) at \(x),\(y)")
        case .ellipse(let x, let y, let rx, let ry):
            ("ellipse", [x, y, rx, ry], "an ellipse of radii \(rx),\(ry) by its centre \(x),\(y)")
        case .polygon(let p):
            ("polygon", p.flatMap { [$0.x, $0.y] }, "a polygon of \(p.count) vertices")
        case .polyline(let p):
            ("polyline", p.flatMap { [$0.x, $0.y] }, "a polyline of \(p.count) points")
        case .mask(let type): ("mask", [], type == 4 ? "a mask image" : "an inline mask")
        }
    }

    /// Where the crop's regions are written: the source's canvas (the coded
    /// image the reference space is scaled onto) and its clean aperture's
    /// origin, and the output's coded canvas and its aperture's origin.
    struct Frames {
        var sourceCanvas: (width: Int, height: Int)
        var sourceOrigin: (x: Int, y: Int)
        var outputCanvas: (width: Int, height: Int)
        var outputOrigin: (x: Int, y: Int)
    }

    /// `item` mapped into a crop of the stored pixels by `places` (moved by
    /// the stored offset: a HEIC crop keeps its stored grid), written in
    /// the output's canvas as the reference space; `nil` data when nothing
    /// is left, the report's words, and each region's outcome as a field
    /// (where it went on the output's canvas, or why it went).
    static func map(_ region: HEIFRegionItem, places: CropPlaces?, frames: Frames) -> (
        data: [UInt8]?, said: String, changes: [MetadataChange]
    ) {
        func removedWhole(_ why: String) -> ([UInt8]?, String, [MetadataChange]) {
            (nil, why, [.init("rgan item \(region.item)", .removed, summary: why)])
        }
        guard let item = parse(region.data) else {
            return removedWhole("it cannot be read as a region item: removed, not kept stale")
        }
        guard let places, places.isPlain else {
            return removedWhole("a resized or straightened crop's regions are not mapped: removed")
        }
        guard item.referenceWidth > 0, item.referenceHeight > 0 else {
            return removedWhole("its reference size is 0: removed")
        }
        // Reference units to stored pixels of the source: scaled onto the
        // canvas, less the aperture's origin.
        let sx = Double(frames.sourceCanvas.width) / Double(item.referenceWidth)
        let sy = Double(frames.sourceCanvas.height) / Double(item.referenceHeight)
        func stored(_ x: Double, _ y: Double) -> Point<StoredPixels> {
            Point(
                x: x * sx - Double(frames.sourceOrigin.x), y: y * sy - Double(frames.sourceOrigin.y)
            )
        }
        // Output pixels (the crop's stored rect) to the output's canvas.
        func canvas(_ p: Point<OutputPixels>) -> (x: Int, y: Int) {
            (
                Int((p.x + Double(frames.outputOrigin.x)).rounded()),
                Int((p.y + Double(frames.outputOrigin.y)).rounded())
            )
        }
        let size = places.outputSize(keepsStoredGrid: true)
        let (w, h) = (Double(size.width), Double(size.height))
        // A plain crop of the stored grid moves every point by its offset.
        func moved(_ p: Point<StoredPixels>) -> Point<OutputPixels> {
            places.asStored.outputPoint(of: places.asStored.imagePoint(ofStored: p))
        }
        var kept: [Geometry] = []
        var removed: [String] = []
        var clipped = 0
        for geometry in item.geometries {
            switch geometry {
            case .point(let x, let y):
                // A pixel index: its centre.
                let p = moved(stored(Double(x) + 0.5, Double(y) + 0.5))
                guard p.x >= 0, p.y >= 0, p.x < w, p.y < h else {
                    removed.append("a point outside the crop")
                    continue
                }
                let c = canvas(Point(x: p.x.rounded(.down), y: p.y.rounded(.down)))
                kept.append(.point(x: c.x, y: c.y))
            case .rectangle(let x, let y, let rw, let rh):
                let a = stored(Double(x), Double(y))
                let b = stored(Double(x + rw), Double(y + rh))
                let result = places.map(
                    stored: .rect(Rect(x: a.x, y: a.y, width: b.x - a.x, height: b.y - a.y)),
                    keepsStoredGrid: true)
                guard let box = result.place?.boundingBox else {
                    removed.append("a rectangle outside the crop")
                    continue
                }
                let (p, q) = (
                    canvas(Point(x: box.x, y: box.y)), canvas(Point(x: box.maxX, y: box.maxY))
                )
                kept.append(.rectangle(x: p.x, y: p.y, width: q.x - p.x, height: q.y - p.y))
                if result.clipped { clipped += 1 }
            case .ellipse(let x, let y, let rx, let ry):
                let c = moved(stored(Double(x), Double(y)))
                let (ex, ey) = (Double(rx) * sx, Double(ry) * sy)
                if c.x - ex >= 0, c.y - ey >= 0, c.x + ex <= w, c.y + ey <= h {
                    let at = canvas(c)
                    kept.append(
                        .ellipse(
                            x: at.x, y: at.y, radiusX: Int(ex.rounded()), radiusY: Int(ey.rounded())
                        ))
                    continue
                }
                guard let box = ellipseBox(centre: c, rx: ex, ry: ey, width: w, height: h) else {
                    removed.append("an ellipse outside the crop")
                    continue
                }
                let (p, q) = (
                    canvas(Point(x: box.x0, y: box.y0)), canvas(Point(x: box.x1, y: box.y1))
                )
                kept.append(.rectangle(x: p.x, y: p.y, width: q.x - p.x, height: q.y - p.y))
                clipped += 1
            case .polygon(let points):
                let result = places.map(
                    stored: .polygon(points.map { stored(Double($0.x), Double($0.y)) }),
                    keepsStoredGrid: true)
                guard case .polygon(let corners)? = result.place else {
                    removed.append("a polygon outside the crop")
                    continue
                }
                kept.append(.polygon(corners.map(canvas)))
                if result.clipped { clipped += 1 }
            case .polyline(let points):
                let mapped = points.map { moved(stored(Double($0.x), Double($0.y))) }
                guard mapped.allSatisfy({ $0.x >= 0 && $0.y >= 0 && $0.x <= w && $0.y <= h })
                else {
                    removed.append("a polyline the crop cuts or leaves out")
                    continue
                }
                kept.append(.polyline(mapped.map(canvas)))
            case .mask:
                removed.append("a mask, which is not cut yet")
            }
        }
        var words: [String] = []
        if !kept.isEmpty {
            words.append(
                "mapped \(kept.count) region(s)"
                    + (clipped > 0 ? ", \(clipped) clipped to the crop" : "")
                    + "; reference size set to \(frames.outputCanvas.width)x\(frames.outputCanvas.height)"
            )
        }
        if !removed.isEmpty {
            words.append("removed \(removed.count): \(removed.joined(separator: ", "))")
        }
        // Each region kept, where it is on the output's canvas; each
        // removed, why; the reference size set.
        var changes: [MetadataChange] = kept.map { geometry in
            let (name, values, words) = shape(of: geometry)
            return .init(name, .mapped, values: values, summary: "\(words) on the output's canvas")
        }
        changes += removed.map { .init("region", .removed, summary: "\($0): removed") }
        guard !kept.isEmpty else {
            return (
                nil, words.joined(separator: "; ") + " (the item is removed: no region left)",
                changes
            )
        }
        changes.append(
            .init(
                "reference", .set, values: [frames.outputCanvas.width, frames.outputCanvas.height],
                summary:
                    "reference size set to \(frames.outputCanvas.width)x\(frames.outputCanvas.height)"
            ))
        let data = encode(
            Item(
                referenceWidth: frames.outputCanvas.width,
                referenceHeight: frames.outputCanvas.height, geometries: kept))
        return (data, words.joined(separator: "; "), changes)
    }

    /// The box of the part of the ellipse at `c` with radii `rx`, `ry`
    /// inside `[0, width] × [0, height]`: from its extremes inside, the
    /// corners inside it and where the edges cross it; `nil` for none.
    static func ellipseBox(
        centre c: Point<OutputPixels>, rx: Double, ry: Double, width: Double, height: Double
    ) -> (x0: Double, y0: Double, x1: Double, y1: Double)? {
        guard rx > 0, ry > 0 else { return nil }
        var xs: [Double] = []
        var ys: [Double] = []
        func add(_ x: Double, _ y: Double) {
            guard x >= 0, x <= width, y >= 0, y <= height else { return }
            xs.append(x)
            ys.append(y)
        }
        for (x, y) in [(c.x - rx, c.y), (c.x + rx, c.y), (c.x, c.y - ry), (c.x, c.y + ry)] {
            add(x, y)
        }
        for (x, y) in [(0, 0), (width, 0), (0, height), (width, height)]
        where ((x - c.x) / rx) * ((x - c.x) / rx) + ((y - c.y) / ry) * ((y - c.y) / ry) <= 1 {
            add(x, y)
        }
        for x in [0, width] where abs(x - c.x) <= rx {
            let d = ry * (1 - ((x - c.x) / rx) * ((x - c.x) / rx)).squareRoot()
            add(x, c.y - d)
            add(x, c.y + d)
        }
        for y in [0, height] where abs(y - c.y) <= ry {
            let d = rx * (1 - ((y - c.y) / ry) * ((y - c.y) / ry)).squareRoot()
            add(c.x - d, y)
            add(c.x + d, y)
        }
        guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max(),
            x1 > x0, y1 > y0
        else { return nil }
        return (x0, y0, x1, y1)
    }
}
