import CropGeometry
import Foundation

/// The filter a resampled crop is made with.
///
/// Each output pixel samples the image at its position `q` (see
/// `StraightenedCrop`); the filters weigh the pixels whose centres lie near
/// `q`, in the samples as stored (gamma-encoded light, as libvips and Pillow
/// do by default).
public enum ResamplingFilter: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The pixel whose square holds `q` (a tie goes right and down). Reads
    /// ½ px around `q`.
    case nearest
    /// The four pixel centres around `q`, weighted by distance. Reads 1 px
    /// around `q`; does not widen when reducing.
    case bilinear
    /// Lanczos-3 (`sinc(x)·sinc(x/3)`, |x| < 3), normalized; when the
    /// output is smaller than the output rect its support widens by the
    /// reduction factor, as libvips and Pillow do, so it averages instead
    /// of skipping pixels.
    case lanczos3

    /// The filter's name, as the command line spells it.
    public var description: String { rawValue }

    /// The default for a crop: Lanczos-3 when the output is smaller than
    /// its rect (a reduction), bilinear otherwise (a turn, or an enlargement).
    public static func standard(for crop: StraightenedCrop) -> ResamplingFilter {
        crop.reduction.x > 1 || crop.reduction.y > 1 ? .lanczos3 : .bilinear
    }

    /// How far from `q` this filter reads, in image pixels, for a crop with
    /// these reductions: what the decoder must cover
    /// (`StraightenedCrop.readRect(support:)`).
    public func support(reduction: (x: Double, y: Double)) -> Double {
        switch self {
        case .nearest: 0.5
        case .bilinear: 1
        case .lanczos3: 3 * max(1, reduction.x, reduction.y)
        }
    }
}
