import CropGeometry
import Foundation

/// Test vectors for crop code: seeded, categorised, each with the contract's
/// answer.
///
/// ```swift
/// let vectors = CropVectors.generate(VectorOptions(count: 200, seed: 7))
/// print(vectors[0].category, vectors[0].jsonLine)
/// ```
public enum CropVectors {
    /// `options.count` vectors, the categories taken in turn (so each has
    /// about the same number), every number drawn from `options.seed`:
    /// sizes in whole pixels, views and selections on multiples of 1/64 of
    /// a point except where a category needs other values (a whole visible
    /// image, an edge on a pixel boundary).
    public static func generate(_ options: VectorOptions) -> [CropVector] {
        var vectors: [CropVector] = []
        vectors.reserveCapacity(max(options.count, 0))
        generate(options) { vectors.append($0) }
        return vectors
    }

    /// The same vectors as ``generate(_:)``, handed to `body` one at a time
    /// (a million need not be held at once).
    public static func generate(_ options: VectorOptions, _ body: (CropVector) -> Void) {
        var random = SeededRandom(seed: options.seed)
        let categories = options.categories
        for index in 0..<max(options.count, 0) {
            let category = categories[index % categories.count]
            let request = request(category, options, &random)
            let companion =
                category == .companion ? companionSize(beside: request, &random) : nil
            let face = category == .faceBox ? faceBox(around: request, &random) : nil
            body(
                CropVector(category: category, request: request, companion: companion, face: face))
        }
    }

    /// A companion's size as displayed beside `request`'s photo, as phones
    /// record them: a quarter or a half each way (HDR gain maps), the same
    /// size (a stereo eye), a depth map's odd fraction, or a size no
    /// simpler than the photo's, within 1 % of its aspect ratio.
    static func companionSize(beside request: CropRequest, _ random: inout SeededRandom)
        -> PixelSize<ImagePixels>
    {
        let stored = PixelSize<StoredPixels>(
            width: Int(request.sourceSize.width), height: Int(request.sourceSize.height))
        let seen = request.orientation.orientedSize(stored)
        let (w, h) = (seen.width, seen.height)
        func scaled(_ n: Int, _ d: Int) -> PixelSize<ImagePixels> {
            PixelSize(width: max(1, w * n / d), height: max(1, h * n / d))
        }
        switch random.int(0...4) {
        case 0: return scaled(1, 4)
        case 1: return scaled(1, 2)
        case 2: return scaled(1, 1)
        case 3: return scaled(768, 4032)
        default:
            let width = random.int(max(1, w / 9)...max(1, w))
            let height = max(1, (width * h + w / 2) / w + random.int(-1...1))
            return PixelSize(width: width, height: height)
        }
    }

    /// A face box as Vision gives one (normalized to the photo as seen,
    /// origin at the bottom-left), on multiples of 1/1024 of the crop's
    /// span: by turns inside the crop, across one of its edges, and
    /// anywhere on the photo (mostly outside a small crop).
    static func faceBox(around request: CropRequest, _ random: inout SeededRandom)
        -> Rect<ImagePixels>
    {
        // The crop as a Vision box of the photo (the whole photo when the
        // mapping refuses).
        var crop = Rect<ImagePixels>(x: 0, y: 0, width: 1, height: 1)
        if case .success(let result) = request.result() {
            let seen = result.orientedSize
            let (w, h) = (Double(seen.width), Double(seen.height))
            let r = result.rect
            crop = Rect(
                x: Double(r.x) / w, y: 1 - Double(r.y + r.height) / h,
                width: Double(r.width) / w, height: Double(r.height) / h)
        }
        func fraction(_ range: ClosedRange<Int>) -> Double { Double(random.int(range)) / 1024 }
        switch random.int(0...2) {
        case 0:
            // Inside: a part of the crop.
            let (fx, fy) = (fraction(0...700), fraction(0...700))
            let (fw, fh) = (
                fraction(64...(1024 - Int(fx * 1024))), fraction(64...(1024 - Int(fy * 1024)))
            )
            return Rect(
                x: crop.x + fx * crop.width, y: crop.y + fy * crop.height,
                width: fw * crop.width, height: fh * crop.height)
        case 1:
            // Across an edge: half in, half out, of the crop's scale.
            let (fw, fh) = (fraction(128...512), fraction(128...512))
            let across = random.int(0...3)
            let x = across == 0 ? -fw / 2 : across == 1 ? 1 - fw / 2 : fraction(0...512)
            let y = across == 2 ? -fh / 2 : across == 3 ? 1 - fh / 2 : fraction(0...512)
            return Rect(
                x: crop.x + x * crop.width, y: crop.y + y * crop.height,
                width: fw * crop.width, height: fh * crop.height)
        default:
            return Rect(
                x: fraction(-40...1000), y: fraction(-40...1000), width: fraction(51...341),
                height: fraction(51...341))
        }
    }

    /// One request of `category`.
    static func request(
        _ category: VectorCategory, _ options: VectorOptions, _ random: inout SeededRandom
    ) -> CropRequest {
        let mode = random.pick(options.modes)
        var orientation = random.pick(options.orientations)
        if category == .orientation {
            orientation = random.pick(options.orientations.filter { $0 != .up })
        }
        var (width, height) = (random.int(640...8000), 0)
        switch category {
        case .portrait: (width, height) = (random.int(480...6000), random.int(6001...8064))
        case .extremeAspect:
            let long = random.int(6000...30000)
            let short = random.int(1...40)
            (width, height) = random.oneIn(2) ? (long, short) : (short, long)
        case .onePixel:
            let other = random.int(1...5)
            (width, height) = random.pick([(1, 1), (1, other), (other, 1)])
        default: height = random.int(480...max(480, width * 9 / 10))
        }
        // The stored size: swapped where the orientation turns the image,
        // so "landscape" and "portrait" hold as seen.
        if orientation.swapsAxes { swap(&width, &height) }
        let view =
            category == .extremeAspect && random.oneIn(2)
            ? (random.sixtyFourths(600...1400), random.sixtyFourths(8...40))
            : (random.sixtyFourths(120...1200), random.sixtyFourths(120...1200))
        var zoom = Zoom.identity
        if category == .zoomAndPan {
            let scale = random.pick([1.25, 1.5, 2, 2.75, 4])
            zoom = Zoom(
                scale: scale,
                offset: Vector(
                    dx: random.sixtyFourths(0...view.0 * (scale - 1)),
                    dy: random.sixtyFourths(0...view.1 * (scale - 1))))
        }
        var request = CropRequest(
            sourceSize: Size(width: Double(width), height: Double(height)),
            viewport: Size(width: view.0, height: view.1),
            selection: Rect(x: 0, y: 0, width: view.0, height: view.1), mode: mode, zoom: zoom,
            orientation: orientation)
        guard let display = try? request.displayRect() else { return request }
        // The part of the image the view shows.
        let visible = display.intersection(Rect(x: 0, y: 0, width: view.0, height: view.1))
        request.selection = selection(category, display, visible, request, &random)
        return request
    }

    /// The selection for `category` over an image drawn at `display`, of
    /// which `visible` shows in the view.
    static func selection(
        _ category: VectorCategory, _ display: Rect<ViewPoints>, _ visible: Rect<ViewPoints>?,
        _ request: CropRequest, _ random: inout SeededRandom
    ) -> Rect<ViewPoints> {
        let view = Rect<ViewPoints>(
            x: 0, y: 0, width: request.viewport.width, height: request.viewport.height)
        let inside = visible ?? view
        switch category {
        case .fullImage:
            return inside
        case .paddingOnly:
            // Beside the image where the view pads it, else off it entirely.
            if display.y >= 1 / 64 {
                return Rect(x: 0, y: 0, width: view.width, height: floor64(display.y))
            }
            if display.x >= 1 / 64 {
                return Rect(x: 0, y: 0, width: floor64(display.x), height: view.height)
            }
            return Rect(x: floor64(display.maxX) + 1, y: 0, width: 40, height: view.height)
        case .pastAnEdge:
            let part = within(inside, &random)
            return random.oneIn(2)
                ? Rect(
                    x: part.x, y: part.y, width: ceil64(inside.maxX - part.x) + 24,
                    height: part.height)
                : Rect(
                    x: floor64(inside.x) - 24, y: part.y, width: ceil64(part.maxX - inside.x) + 24,
                    height: ceil64(inside.maxY - part.y) + 10)
        case .doubleBoundary:
            return boundarySelection(display, request, &random) ?? within(inside, &random)
        default:
            return within(inside, &random)
        }
    }

    /// A rect inside `area` on multiples of 1/64 (at least 1/64 wide and
    /// high), its edges off the integers for fractional edges.
    static func within(_ area: Rect<ViewPoints>, _ random: inout SeededRandom) -> Rect<ViewPoints> {
        let x0 = ceil64(area.x)
        let y0 = ceil64(area.y)
        let x1 = max(floor64(area.maxX), x0 + 1 / 64)
        let y1 = max(floor64(area.maxY), y0 + 1 / 64)
        let left = random.sixtyFourths(x0...max(x0, x1 - 1 / 64))
        let top = random.sixtyFourths(y0...max(y0, y1 - 1 / 64))
        let right = random.sixtyFourths(min(left + 1 / 64, x1)...x1)
        let bottom = random.sixtyFourths(min(top + 1 / 64, y1)...y1)
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// A selection whose edges are where pixel boundaries fall in the view,
    /// computed in `Double` as an app computes them (`origin + p * scale`):
    /// the first of 32 tries on which the article's plain-`Double` recipe
    /// gives a different rect than the contract, or `nil`.
    static func boundarySelection(
        _ display: Rect<ViewPoints>, _ request: CropRequest, _ random: inout SeededRandom
    ) -> Rect<ViewPoints>? {
        let seen = request.orientation.orientedSize(
            PixelSize<StoredPixels>(
                width: Int(request.sourceSize.width), height: Int(request.sourceSize.height)))
        let (sx, sy) = (display.width / Double(seen.width), display.height / Double(seen.height))
        for _ in 0..<32 {
            let p0 = random.int(0...max(0, seen.width - 2))
            let p1 = random.int(p0 + 1...seen.width)
            let q0 = random.int(0...max(0, seen.height - 2))
            let q1 = random.int(q0 + 1...seen.height)
            let left = display.x + Double(p0) * sx
            let top = display.y + Double(q0) * sy
            let candidate = Rect<ViewPoints>(
                x: left, y: top, width: display.x + Double(p1) * sx - left,
                height: display.y + Double(q1) * sy - top)
            var trial = request
            trial.selection = candidate
            let article = articleCropPixels(
                source: CGSize(width: seen.width, height: seen.height),
                viewport: request.viewport.cgSize, selection: candidate.cgRect)
            let contract = try? trial.map().rect
            let agree =
                article.map {
                    [Int($0.minX), Int($0.minY), Int($0.width), Int($0.height)]
                } == contract.map { [$0.x, $0.y, $0.width, $0.height] }
            if !agree || request.mode != .aspectFit { return candidate }
        }
        return nil
    }

    static func floor64(_ value: Double) -> Double { (value * 64).rounded(.down) / 64 }
    static func ceil64(_ value: Double) -> Double { (value * 64).rounded(.up) / 64 }
}
