import CropGeometry
import CropTestKit

/// An exact rational on `Int128`, reduced after every operation; written for
/// the tests only, independently of CropGeometry's exact path. Every operation
/// reports overflow instead of trapping, so a case too large for it is skipped
/// (and counted) rather than crashing the suite.
struct Q: Equatable {
    var n: Int128
    var d: Int128

    struct Overflow: Error {}

    init(_ n: Int128, _ d: Int128 = 1) throws(Overflow) {
        precondition(d != 0)
        var (n, d) = d < 0 ? (-n, -d) : (n, d)
        let g = Q.gcd(n.magnitude, d.magnitude)
        if g > 1 {
            n /= Int128(g)
            d /= Int128(g)
        }
        self.n = n
        self.d = d
    }

    /// A `Double` that is a multiple of 1/64 (the generator only makes those).
    init(dyadic value: Double) throws(Overflow) {
        let scaled = value * 64
        guard scaled == scaled.rounded(), abs(scaled) < 0x1p62 else {
            try self.init(exactly: value)
            return
        }
        try self.init(Int128(Int64(scaled)), 64)
    }

    /// Any `Double` whose exact value fits: significand × 2^exponent.
    init(exactly value: Double) throws(Overflow) {
        if value == 0 {
            try self.init(0)
            return
        }
        let exponent = Int(value.exponent) - 52
        let significand = Int128(Int64(value.significand * 0x1p52)) * (value < 0 ? -1 : 1)
        guard exponent > -120, exponent < 60 else { throw Overflow() }
        if exponent >= 0 {
            try self.init(Q.mul(significand, Int128(1) << exponent))
        } else {
            try self.init(significand, Int128(1) << -exponent)
        }
    }

    static func gcd(_ a: UInt128, _ b: UInt128) -> UInt128 {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    static func mul(_ a: Int128, _ b: Int128) throws(Overflow) -> Int128 {
        let (r, o) = a.multipliedReportingOverflow(by: b)
        if o { throw Overflow() }
        return r
    }

    static func add(_ a: Int128, _ b: Int128) throws(Overflow) -> Int128 {
        let (r, o) = a.addingReportingOverflow(b)
        if o { throw Overflow() }
        return r
    }

    static func + (a: Q, b: Q) throws(Overflow) -> Q {
        try Q(add(mul(a.n, b.d), mul(b.n, a.d)), mul(a.d, b.d))
    }

    static func - (a: Q, b: Q) throws(Overflow) -> Q {
        try a + Q(-b.n, b.d)
    }

    static func * (a: Q, b: Q) throws(Overflow) -> Q {
        try Q(mul(a.n, b.n), mul(a.d, b.d))
    }

    static func / (a: Q, b: Q) throws(Overflow) -> Q {
        precondition(b.n != 0)
        return try Q(mul(a.n, b.d), mul(a.d, b.n))
    }

    static func less(_ a: Q, _ b: Q) throws(Overflow) -> Bool {
        try mul(a.n, b.d) < mul(b.n, a.d)
    }

    static func min(_ a: Q, _ b: Q) throws(Overflow) -> Q { try less(b, a) ? b : a }
    static func max(_ a: Q, _ b: Q) throws(Overflow) -> Q { try less(a, b) ? b : a }

    var floor: Int128 {
        let q = n / d
        return (n % d != 0 && n < 0) ? q - 1 : q
    }

    var ceiling: Int128 { -(try! Q(-n, d)).floor }
}

/// One generated mapping, in the contract's terms.
struct MappingCase: CustomStringConvertible {
    var sw, sh: Int
    var vw, vh: Double
    var x, y, w, h: Double
    var mode: ContentMode
    var imageScale: Double
    var z, ox, oy: Double
    var orientation: EXIFOrientation

    var request: CropRequest {
        CropRequest(
            sourceSize: Size(width: Double(sw), height: Double(sh)),
            viewport: Size(width: vw, height: vh),
            selection: Rect(x: x, y: y, width: w, height: h), mode: mode, imageScale: imageScale,
            zoom: Zoom(scale: z, offset: Vector(dx: ox, dy: oy)), orientation: orientation)
    }

    var description: String {
        "source \(sw)x\(sh) view \(vw)x\(vh) sel \(x),\(y),\(w),\(h) \(mode) s=\(imageScale) z=\(z) off=\(ox),\(oy) o=\(orientation.rawValue)"
    }
}

/// The answer the contract defines, computed straight from its steps (MappingContract.md)
/// in exact rationals: the oriented rect as (x0, y0, x1, y1), or `nil` when
/// rejected. Throws `Q.Overflow` when Int128 is too small for the case.
func referenceMapping(_ c: MappingCase) throws(Q.Overflow) -> (Int, Int, Int, Int)? {
    let (ow, oh) = c.orientation.rawValue >= 5 ? (c.sh, c.sw) : (c.sw, c.sh)
    let owQ = try Q(Int128(ow))
    let ohQ = try Q(Int128(oh))
    let vw = try Q(dyadic: c.vw)
    let vh = try Q(dyadic: c.vh)
    let two = try Q(2)
    let zero = try Q(0)
    // Step 3: the display rect.
    var dx = zero
    var dy = zero
    var dw = vw
    var dh = vh
    switch c.mode {
    case .aspectFit, .aspectFill:
        let sx = try vw / owQ
        let sy = try vh / ohQ
        let s = c.mode == .aspectFit ? try Q.min(sx, sy) : try Q.max(sx, sy)
        dw = try owQ * s
        dh = try ohQ * s
        dx = try (vw - dw) / two
        dy = try (vh - dh) / two
    case .scaleToFill:
        break
    default:
        let scale = try Q(dyadic: c.imageScale)
        dw = try owQ / scale
        dh = try ohQ / scale
        let name = c.mode.rawValue.lowercased()
        dx =
            name.contains("left")
            ? zero : name.contains("right") ? try vw - dw : try (vw - dw) / two
        dy =
            name.contains("top")
            ? zero : name.contains("bottom") ? try vh - dh : try (vh - dh) / two
    }
    // Step 4: zoom.
    let z = try Q(dyadic: c.z)
    let zx = try dx * z - Q(dyadic: c.ox)
    let zy = try dy * z - Q(dyadic: c.oy)
    let zw = try dw * z
    let zh = try dh * z
    // Step 5: visible part and clip.
    let vx0 = try Q.max(zx, zero)
    let vy0 = try Q.max(zy, zero)
    let vx1 = try Q.min(zx + zw, vw)
    let vy1 = try Q.min(zy + zh, vh)
    let sx0 = try Q(dyadic: c.x)
    let sy0 = try Q(dyadic: c.y)
    let cx0 = try Q.max(sx0, vx0)
    let cy0 = try Q.max(sy0, vy0)
    let cx1 = try Q.min(sx0 + Q(dyadic: c.w), vx1)
    let cy1 = try Q.min(sy0 + Q(dyadic: c.h), vy1)
    guard try Q.less(cx0, cx1), try Q.less(cy0, cy1) else { return nil }
    // Steps 6-8.
    let million = try Q(1_000_000)
    func pixel(_ v: Q, _ origin: Q, _ extent: Q, _ count: Q) throws(Q.Overflow) -> Q {
        try (v - origin) * count / extent
    }
    // Step 7 as written: within 1e-6 px (inclusive) of an integer is that
    // integer; then step 8 rounds left/top down and right/bottom up.
    let tolerance = try Q(1) / million
    func snapped(_ p: Q) throws(Q.Overflow) -> Q? {
        let below = try Q(p.floor)
        let above = try Q(p.ceiling)
        if try !Q.less(tolerance, p - below) { return below }
        if try !Q.less(tolerance, above - p) { return above }
        return nil
    }
    func snappedFloor(_ p: Q) throws(Q.Overflow) -> Int128 { try snapped(p)?.n ?? p.floor }
    func snappedCeiling(_ p: Q) throws(Q.Overflow) -> Int128 { try snapped(p)?.n ?? p.ceiling }
    let x0 = try snappedFloor(pixel(cx0, zx, zw, owQ))
    let y0 = try snappedFloor(pixel(cy0, zy, zh, ohQ))
    let x1 = try snappedCeiling(pixel(cx1, zx, zw, owQ))
    let y1 = try snappedCeiling(pixel(cy1, zy, zh, ohQ))
    let cl = { (v: Int128, hi: Int) in Int(Swift.min(Swift.max(v, 0), Int128(hi))) }
    let r = (cl(x0, ow), cl(y0, oh), cl(x1, ow), cl(y1, oh))
    guard r.2 > r.0, r.3 > r.1 else { return nil }
    return r
}

/// The stored pixels behind an oriented rect, by mapping every corner pixel
/// through the orientation table (independent of `storedRect`).
func referenceStoredRect(_ c: MappingCase, _ r: (Int, Int, Int, Int)) -> (Int, Int, Int, Int) {
    // Invert the table by searching the four stored corner candidates: for each
    // oriented corner pixel, find the stored pixel the orientation sends there.
    let size = PixelSize<StoredPixels>(width: c.sw, height: c.sh)
    var xs: [Int] = []
    var ys: [Int] = []
    let corners = [(r.0, r.1), (r.2 - 1, r.1), (r.0, r.3 - 1), (r.2 - 1, r.3 - 1)]
    for (X, Y) in corners {
        // The table maps stored (x, y) to oriented (X, Y); each case is a
        // bijection on coordinates, solved here directly.
        let (sw, sh) = (c.sw, c.sh)
        let (x, y): (Int, Int)
        switch c.orientation {
        case .up: (x, y) = (X, Y)
        case .upMirrored: (x, y) = (sw - 1 - X, Y)
        case .down: (x, y) = (sw - 1 - X, sh - 1 - Y)
        case .downMirrored: (x, y) = (X, sh - 1 - Y)
        case .leftMirrored: (x, y) = (Y, X)
        case .right: (x, y) = (Y, sh - 1 - X)
        case .rightMirrored: (x, y) = (sw - 1 - Y, sh - 1 - X)
        case .left: (x, y) = (sw - 1 - Y, X)
        }
        let back = c.orientation.orientedPoint(x: x, y: y, storedSize: size)
        precondition(back.x == X && back.y == Y, "orientation table inverted wrongly")
        xs.append(x)
        ys.append(y)
    }
    return (xs.min()!, ys.min()!, xs.max()! + 1, ys.max()! + 1)
}

/// The kit's SplitMix64, fixed-seed so failures reproduce.
typealias SeededGenerator = SeededRandom

extension MappingCase {
    /// A random case on multiples of 1/64, biased towards the hard ones: edges
    /// on pixel boundaries, selections at the padding's edge, zoomed views.
    static func random(using g: inout SeededGenerator) -> MappingCase {
        func sixtyFourths(_ range: ClosedRange<Int>) -> Double {
            Double(Int.random(in: range, using: &g)) / 64
        }
        let smallImage = Int.random(in: 0..<8, using: &g) == 0
        let sw =
            smallImage ? Int.random(in: 1...24, using: &g) : Int.random(in: 1...8000, using: &g)
        let sh =
            smallImage ? Int.random(in: 1...24, using: &g) : Int.random(in: 1...8000, using: &g)
        let integerView = Bool.random(using: &g)
        let vw =
            integerView ? Double(Int.random(in: 1...1200, using: &g)) : sixtyFourths(1...76_800)
        let vh =
            integerView ? Double(Int.random(in: 1...1200, using: &g)) : sixtyFourths(1...76_800)
        let mode = ContentMode.allCases.randomElement(using: &g)!
        let imageScale = [1.0, 2, 3, 0.5, 1.5, 0.25, sixtyFourths(1...256)].randomElement(
            using: &g)!
        let zoomed = Int.random(in: 0..<3, using: &g) == 0
        let z = zoomed ? sixtyFourths(16...512) : 1
        let ox = zoomed ? sixtyFourths(-64_000...64_000) : 0
        let oy = zoomed ? sixtyFourths(-64_000...64_000) : 0
        let orientation = EXIFOrientation.allCases.randomElement(using: &g)!
        var c = MappingCase(
            sw: sw, sh: sh, vw: vw, vh: vh, x: 0, y: 0, w: 1, h: 1, mode: mode,
            imageScale: imageScale,
            z: z, ox: ox, oy: oy, orientation: orientation)
        switch Int.random(in: 0..<4, using: &g) {
        case 0:  // anywhere, including outside
            c.x = sixtyFourths(-6400...Int(vw * 64) + 6400)
            c.y = sixtyFourths(-6400...Int(vh * 64) + 6400)
            c.w = sixtyFourths(1...Int(vw * 64) + 12_800)
            c.h = sixtyFourths(1...Int(vh * 64) + 12_800)
        case 1:  // whole view
            (c.x, c.y, c.w, c.h) = (0, 0, vw, vh)
        default:  // small integers and halves: edges often on exact pixel boundaries
            c.x = Double(Int.random(in: -10...Int(vw) + 10, using: &g)) / 2
            c.y = Double(Int.random(in: -10...Int(vh) + 10, using: &g)) / 2
            c.w = Double(Int.random(in: 1...Int(vw) + 20, using: &g)) / 2
            c.h = Double(Int.random(in: 1...Int(vh) + 20, using: &g)) / 2
        }
        return c
    }
}
