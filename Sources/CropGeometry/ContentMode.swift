/// How the image is laid out in its container, with UIKit's `UIView.ContentMode`
/// semantics.
///
/// | mode | display rect of an `ow×oh` image in a `vw×vh` view |
/// | --- | --- |
/// | aspectFit | scale `min(vw/ow, vh/oh)`, centred |
/// | aspectFill | scale `max(vw/ow, vh/oh)`, centred |
/// | scaleToFill | the whole view |
/// | center | natural size `ow/imageScale × oh/imageScale`, centred |
/// | top, bottom | natural size, centred horizontally, at the top / bottom edge |
/// | left, right | natural size, centred vertically, at the left / right edge |
/// | topLeft, topRight, bottomLeft, bottomRight | natural size, in that corner |
///
/// `imageScale` (pixels per point of natural size, like `UIImage.scale`) is
/// used only by the unscaled modes (center and the edges and corners).
public enum ContentMode: String, CaseIterable, Hashable, Sendable {
    /// Scaled by `min(vw/ow, vh/oh)` to fit the view whole, centred; the rest is padding (the default).
    case aspectFit
    /// Scaled by `max(vw/ow, vh/oh)` to fill the view, centred; the rest of the image is cut off.
    case aspectFill
    /// Stretched to the view's exact size, each axis by its own scale.
    case scaleToFill
    /// At its natural size, centred.
    case center
    /// At its natural size, centred horizontally, against the top edge.
    case top
    /// At its natural size, centred horizontally, against the bottom edge.
    case bottom
    /// At its natural size, centred vertically, against the left edge.
    case left
    /// At its natural size, centred vertically, against the right edge.
    case right
    /// At its natural size, in the top-left corner.
    case topLeft
    /// At its natural size, in the top-right corner.
    case topRight
    /// At its natural size, in the bottom-left corner.
    case bottomLeft
    /// At its natural size, in the bottom-right corner.
    case bottomRight

    /// Whether the image is drawn at its natural size (`ow/imageScale` points).
    public var isUnscaled: Bool {
        switch self {
        case .aspectFit, .aspectFill, .scaleToFill: false
        default: true
        }
    }

    /// Where an unscaled image sits along one axis: at the start, centred, or at the end.
    enum Placement {
        case start
        case middle
        case end
    }

    var horizontalPlacement: Placement {
        switch self {
        case .left, .topLeft, .bottomLeft: .start
        case .right, .topRight, .bottomRight: .end
        default: .middle
        }
    }

    var verticalPlacement: Placement {
        switch self {
        case .top, .topLeft, .topRight: .start
        case .bottom, .bottomLeft, .bottomRight: .end
        default: .middle
        }
    }
}
