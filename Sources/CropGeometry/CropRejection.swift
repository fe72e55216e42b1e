/// Why a mapping has no answer: the rule of the contract that rejected it.
///
/// Rules are checked in the contract's order, so the first broken one is reported.
public enum CropRejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// A number that is NaN or infinite; names the field.
    case nonFinite(field: String)
    /// `sw` or `sh` is not a positive integer.
    case sourceNotPositiveInteger(width: Double, height: Double)
    /// `sw` or `sh` is larger than ``CropRequest/maximumSourceDimension``.
    case sourceTooLarge(width: Double, height: Double)
    /// `vw` or `vh` is zero or negative.
    case viewportNotPositive(width: Double, height: Double)
    /// The selection's width or height is zero or negative.
    case selectionSizeNotPositive(width: Double, height: Double)
    /// The zoom scale is zero or negative.
    case zoomNotPositive(Double)
    /// `imageScale` is zero or negative.
    case imageScaleNotPositive(Double)
    /// The orientation is not one of 1...8.
    case orientationOutOfRange(Double)
    /// The selection covers no image pixel: it misses the visible image, touches
    /// it only along an edge, or covers less than 1e-6 px of it.
    case noImagePixels
    /// No rectangle of the requested aspect ratio fits in the image.
    case aspectRatioDoesNotFit(AspectRatio)
    /// The request turns the image by a non-zero angle: ``CropRequest/map()``
    /// answers only unturned requests; ``CropRequest/straightened(size:)`` answers this one.
    case turned(angle: Double)
    /// The image is drawn with a different scale across and down (scaleToFill
    /// with another aspect), and such a display cannot be turned.
    case nonUniformScaleCannotTurn
    /// The straightened output rect, or the output size, is too large to be
    /// counted in whole pixels (beyond 2⁵³ on a side, or 2⁶² pixels).
    case outputTooLarge

    /// A stable name for the rule, for JSON and scripts.
    public var code: String {
        switch self {
        case .nonFinite: "nonFinite"
        case .sourceNotPositiveInteger: "sourceNotPositiveInteger"
        case .sourceTooLarge: "sourceTooLarge"
        case .viewportNotPositive: "viewportNotPositive"
        case .selectionSizeNotPositive: "selectionSizeNotPositive"
        case .zoomNotPositive: "zoomNotPositive"
        case .imageScaleNotPositive: "imageScaleNotPositive"
        case .orientationOutOfRange: "orientationOutOfRange"
        case .noImagePixels: "noImagePixels"
        case .aspectRatioDoesNotFit: "aspectRatioDoesNotFit"
        case .turned: "turned"
        case .nonUniformScaleCannotTurn: "nonUniformScaleCannotTurn"
        case .outputTooLarge: "outputTooLarge"
        }
    }

    /// What went wrong, for a person.
    public var description: String {
        switch self {
        case .nonFinite(let field):
            "\(field) is not a finite number"
        case .sourceNotPositiveInteger(let w, let h):
            "source size \(numberText(w))x\(numberText(h)) is not a positive whole number of pixels"
        case .sourceTooLarge(let w, let h):
            "source size \(numberText(w))x\(numberText(h)) exceeds \(intHas64Bits ? "2^53" : "2^29 (the limit where Int has 32 bits)") pixels on a side"
        case .viewportNotPositive(let w, let h):
            "viewport \(numberText(w))x\(numberText(h)) must have a positive width and height"
        case .selectionSizeNotPositive(let w, let h):
            "selection size \(numberText(w))x\(numberText(h)) must have a positive width and height"
                + " (a negative size is rejected, not flipped)"
        case .zoomNotPositive(let z):
            "zoom scale \(numberText(z)) must be positive"
        case .imageScaleNotPositive(let s):
            "image scale \(numberText(s)) must be positive"
        case .orientationOutOfRange(let o):
            "orientation \(numberText(o)) is not an EXIF orientation (1 to 8)"
        case .noImagePixels:
            "the selection covers no image pixel (it lies outside the visible image,"
                + " in the padding, or along an edge)"
        case .aspectRatioDoesNotFit(let ratio):
            "no rectangle with aspect ratio \(ratio) fits in the image"
        case .turned(let angle):
            "the image is turned by \(numberText(angle))°: a turned crop resamples, so it is"
                + " answered by straightened(), not map()"
        case .nonUniformScaleCannotTurn:
            "the image is drawn with different scales across and down (scaleToFill with"
                + " another aspect ratio), which cannot be turned: use aspectFit or aspectFill"
        case .outputTooLarge:
            "the straightened output is too large to count in whole pixels"
        }
    }
}

/// The shortest text that reads back as `value`: whole numbers without a
/// fraction (`300`, not `300.0`), others as Swift prints them, non-finite
/// ones as `nan`, `inf`, `-inf`. Used wherever CropKit prints a number.
package func numberText(_ value: Double) -> String {
    if value.isNaN { return "nan" }
    if value.isInfinite { return value < 0 ? "-inf" : "inf" }
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}
