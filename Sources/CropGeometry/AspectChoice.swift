/// The aspect ratio a crop is snapped to: a fixed ratio, or the image's
/// own ratio as the person sees it.
///
/// One rule for every caller: ``CropRequest/map(aspect:)``.
public enum AspectChoice: Hashable, Sendable, CustomStringConvertible {
    /// Exactly this ratio, e.g. 1:1, 4:5, 16:9.
    case ratio(AspectRatio)
    /// The ratio of the image as seen: its oriented size, after the EXIF
    /// orientation of the request.
    case source

    /// Reads `"source"` or `"P:Q"` (positive whole numbers).
    public init?(parsing text: String) {
        if text == "source" {
            self = .source
        } else if let ratio = AspectRatio(parsing: text) {
            self = .ratio(ratio)
        } else {
            return nil
        }
    }

    /// `"source"` or `"P:Q"`, as records and flags spell it.
    public var description: String {
        switch self {
        case .source: "source"
        case .ratio(let ratio): ratio.description
        }
    }
}

extension CropRequest {
    /// ``map()``, then snapped to `aspect` (nothing when `nil`): the ratio
    /// given, or for ``AspectChoice/source`` the image's as seen (its size
    /// turned by this request's orientation).
    ///
    /// - Throws: ``CropRejection``, including
    ///   ``CropRejection/aspectRatioDoesNotFit(_:)``.
    public func map(aspect: AspectChoice?) throws(CropRejection) -> CropResult {
        switch aspect {
        case nil:
            return try map()
        case .ratio(let ratio):
            return try map(aspectRatio: ratio)
        case .source:
            let mapped = try map()
            let seen = mapped.orientedSize
            guard let ratio = AspectRatio(width: seen.width, height: seen.height) else {
                return mapped
            }
            return try map(aspectRatio: ratio)
        }
    }
}
