/// The colour type of decoded pixels, whatever the format they came from
/// or go to: gray, RGB, a palette, with alpha or without. Its raw values are
/// PNG's IHDR codes (byte 9), which name the same five types; a PNG writer
/// writes them as they are.
public enum ColorType: UInt8, Hashable, Sendable, CaseIterable {
    /// 0: one gray sample per pixel (1 to 16 bits).
    case gray = 0
    /// 2: red, green and blue samples (8 or 16 bits).
    case rgb = 2
    /// 3: an index into the PLTE palette (1 to 8 bits).
    case palette = 3
    /// 4: gray and alpha samples (8 or 16 bits).
    case grayAlpha = 4
    /// 6: red, green, blue and alpha samples (8 or 16 bits).
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

    /// The name CropKit reports it by (`gray`, `rgb`, `palette`, `gray+alpha`, `rgba`).
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

/// The colour type's name before it was the pixel model's own.
@available(*, deprecated, renamed: "ColorType")
public typealias PNGColorType = ColorType
