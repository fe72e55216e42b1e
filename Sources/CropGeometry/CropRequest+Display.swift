/// The arithmetic the mapping contract is written in once: `Double` for the
/// fast path and the inverse, ``ExactRational`` for the exact path.
protocol MappingArithmetic {
    init(_ value: Int)
    init(_ value: Double)
    static func + (lhs: Self, rhs: Self) -> Self
    static func - (lhs: Self, rhs: Self) -> Self
    static func * (lhs: Self, rhs: Self) -> Self
    static func / (lhs: Self, rhs: Self) -> Self
    /// Whether `lhs <= rhs`.
    static func isAtMost(_ lhs: Self, _ rhs: Self) -> Bool
}

extension Double: MappingArithmetic {
    @inline(__always)
    static func isAtMost(_ lhs: Double, _ rhs: Double) -> Bool { lhs <= rhs }
}

extension ExactRational: MappingArithmetic {
    static func isAtMost(_ lhs: ExactRational, _ rhs: ExactRational) -> Bool {
        compare(lhs, rhs) <= 0
    }
}

/// A rectangle in the view, in one of the mapping's arithmetics.
struct DisplayRect<N: MappingArithmetic> {
    var x: N
    var y: N
    var width: N
    var height: N
}

/// The snap of step 7: an edge within 10⁻⁶ px of an integer is that integer.
/// The one constant; ``snapTolerance`` is its nearest `Double` (the fast
/// path's error bound covers the difference), the exact path divides by
/// ``snapDenominator`` exactly.
let snapDenominator = 1_000_000
/// 10⁻⁶ as the nearest `Double`.
let snapTolerance = 1.0 / Double(snapDenominator)

extension CropRequest {
    /// Steps 3 and 4 of the contract: where an image of `ow`×`oh` oriented
    /// pixels is drawn in the view, after zoom (`D'`), in the arithmetic
    /// `N`. The one place the content modes and the zoom are written.
    @inline(__always)
    func zoomedDisplayRect<N: MappingArithmetic>(ow: N, oh: N, as _: N.Type = N.self)
        -> DisplayRect<N>
    {
        let vw = N(viewport.width)
        let vh = N(viewport.height)
        let two = N(2)
        let zero = N(0)
        let d: DisplayRect<N>
        switch mode {
        case .aspectFit, .aspectFill:
            // Width-limited when vw/ow is the chosen ratio.
            let widthRatioIsSmaller = N.isAtMost(vw * oh, vh * ow)
            if widthRatioIsSmaller == (mode == .aspectFit) {
                let height = oh * vw / ow
                d = DisplayRect(x: zero, y: (vh - height) / two, width: vw, height: height)
            } else {
                let width = ow * vh / oh
                d = DisplayRect(x: (vw - width) / two, y: zero, width: width, height: vh)
            }
        case .scaleToFill:
            d = DisplayRect(x: zero, y: zero, width: vw, height: vh)
        default:
            let scale = N(imageScale)
            let (nw, nh) = (ow / scale, oh / scale)
            func placed(_ natural: N, in view: N, _ placement: ContentMode.Placement) -> N {
                switch placement {
                case .start: zero
                case .middle: (view - natural) / two
                case .end: view - natural
                }
            }
            d = DisplayRect(
                x: placed(nw, in: vw, mode.horizontalPlacement),
                y: placed(nh, in: vh, mode.verticalPlacement), width: nw, height: nh)
        }
        let z = N(zoom.scale)
        return DisplayRect(
            x: d.x * z - N(zoom.offset.dx), y: d.y * z - N(zoom.offset.dy), width: d.width * z,
            height: d.height * z)
    }
}
