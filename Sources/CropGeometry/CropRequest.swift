/// Everything the mapping needs: the source, the view, the selection, and how
/// the image is laid out.
///
/// All values are kept exactly as given; ``map()`` validates them (rule 1 of
/// the contract) and says which rule rejected them.
public struct CropRequest: Hashable, Sendable {
    /// The stored size `sw×sh` as the file's header declares it. Must hold
    /// positive integers of at most 2⁵³ (so every pixel edge is an exact `Int`).
    public var sourceSize: Size<StoredPixels>
    /// The image container, in points.
    public var viewport: Size<ViewPoints>
    /// The person's selection, in points of the same container. Not normalized:
    /// a zero or negative width or height is rejected.
    public var selection: Rect<ViewPoints>
    /// How the image is laid out in the view (UIKit's content modes).
    public var mode: ContentMode
    /// Pixels per point of natural size (`UIImage.scale`); only the unscaled
    /// modes use it.
    public var imageScale: Double
    /// The scroll view's zoom scale and content offset.
    public var zoom: Zoom
    /// The EXIF orientation: the image is seen turned by it, and ``sourceSize`` is its stored size.
    public var orientation: EXIFOrientation
    /// The straighten angle θ in degrees, positive clockwise as seen on
    /// screen; the displayed image turns about the centre of the zoomed
    /// display rect. 0 (the default) is the lossless mapping contract;
    /// any other angle is answered by ``straightened(size:)``.
    public var angle: Double

    /// A request, every value kept as given; the defaults are UIKit's (aspect-fit, scale 1, no zoom, upright).
    public init(
        sourceSize: Size<StoredPixels>,
        viewport: Size<ViewPoints>,
        selection: Rect<ViewPoints>,
        mode: ContentMode = .aspectFit,
        imageScale: Double = 1,
        zoom: Zoom = .identity,
        orientation: EXIFOrientation = .up,
        angle: Double = 0
    ) {
        self.sourceSize = sourceSize
        self.viewport = viewport
        self.selection = selection
        self.mode = mode
        self.imageScale = imageScale
        self.zoom = zoom
        self.orientation = orientation
        self.angle = angle
    }

    /// The largest source width or height accepted: 2⁵³, so that every pixel
    /// edge and every result is an exact integer in both `Int` and `Double`.
    /// Where `Int` has 32 bits (the browser playground's WebAssembly) it is
    /// 2²⁹, so that a sum of two edges, and a turned image's bounds, still
    /// fit; a larger source is refused there as too large.
    public static let maximumSourceDimension: Double =
        intHas64Bits ? 9_007_199_254_740_992 : 536_870_912
}

/// Whether `Int` has 64 bits, as on every platform but the browser
/// playground's wasm32, where the contract's limits are narrower. A
/// function rather than a literal test, so that a 64-bit build has no
/// never-executed branch to warn about.
package var intHas64Bits: Bool { Int.bitWidth == 64 }
