/// What a test vector exercises: the article's six input categories, and the
/// cases that break real crop code.
public enum VectorCategory: String, CaseIterable, Hashable, Sendable {
    /// A landscape photo, a selection inside it.
    case landscape
    /// A portrait photo, a selection inside it.
    case portrait
    /// The selection is the whole visible image.
    case fullImage = "full-image"
    /// The selection lies wholly in the padding beside the image (or, where
    /// the mode leaves none, wholly off the image): refused.
    case paddingOnly = "padding-only"
    /// The selection runs past an edge of the image.
    case pastAnEdge = "past-an-edge"
    /// Edges on fractions of a point.
    case fractionalEdges = "fractional-edges"
    /// Edges on a pixel boundary that `Double` cannot represent, where plain
    /// floating-point code (the article's own) adds or loses a pixel.
    case doubleBoundary = "double-boundary"
    /// A photo or a view of an extreme aspect ratio (a panorama, a strip).
    case extremeAspect = "extreme-aspect"
    /// A photo of one pixel, or one pixel wide or high.
    case onePixel = "one-pixel"
    /// A zoomed and panned view (with ``VectorOptions/zoom``).
    case zoomAndPan = "zoom-and-pan"
    /// A photo with an EXIF orientation other than 1 (with
    /// ``VectorOptions/orientations`` beyond `up`).
    case orientation
    /// A photo with a companion image on its own grid (a gain map, a depth
    /// map, a stereo eye), whose cut the answer gives (with
    /// ``VectorOptions/companions``).
    case companion
    /// A face box as Apple's Vision framework gives one (normalized, origin
    /// at the bottom-left), whose place in the crop the answer gives (with
    /// ``VectorOptions/faces``): inside, cut by an edge, or outside.
    case faceBox = "face-box"

    /// What the category holds, in a sentence (help and reports).
    public var summary: String {
        switch self {
        case .landscape: "a landscape photo, a selection inside it"
        case .portrait: "a portrait photo, a selection inside it"
        case .fullImage: "the whole visible image selected"
        case .paddingOnly: "a selection wholly in the padding or off the image"
        case .pastAnEdge: "a selection running past an edge of the image"
        case .fractionalEdges: "edges on fractions of a point"
        case .doubleBoundary: "edges on pixel boundaries Double cannot represent"
        case .extremeAspect: "a panorama, a strip or a very narrow view"
        case .onePixel: "a photo one pixel wide or high"
        case .zoomAndPan: "a zoomed and panned view"
        case .orientation: "a photo with an EXIF orientation other than 1"
        case .companion: "a photo with a gain map, depth map or stereo eye on its own grid"
        case .faceBox: "a face box, as Vision gives it, to place in the crop"
        }
    }
}
