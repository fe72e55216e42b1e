/// A PNG colour type (IHDR byte 9) and what its samples are.
public enum PNGColorType: UInt8, Hashable, Sendable, CaseIterable {
    case gray = 0
    case rgb = 2
    case palette = 3
    case grayAlpha = 4
    case rgba = 6

    /// Samples per pixel.
    public var channels: Int {
        switch self {
        case .gray, .palette: 1
        case .grayAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }

    /// The bit depths the PNG specification allows for this colour type.
    public var allowedBitDepths: [Int] {
        switch self {
        case .gray: [1, 2, 4, 8, 16]
        case .palette: [1, 2, 4, 8]
        case .rgb, .grayAlpha, .rgba: [8, 16]
        }
    }

    public var name: String {
        switch self {
        case .gray: "gray"
        case .rgb: "rgb"
        case .palette: "palette"
        case .grayAlpha: "gray+alpha"
        case .rgba: "rgba"
        }
    }
}
