import CropGeometry
import Foundation

/// What an output pixel shows where its position `q` lies outside the image.
public enum FillColor: Hashable, Sendable, CustomStringConvertible {
    /// Transparent: the output gets an alpha channel (PNG); a JPEG output
    /// has none, and shows white there.
    case transparent
    /// This opaque colour, 8-bit sRGB.
    case rgb(UInt8, UInt8, UInt8)

    /// `transparent`, or `#rrggbb`.
    public var description: String {
        switch self {
        case .transparent: "transparent"
        case .rgb(let r, let g, let b):
            "#" + [r, g, b].map { String(format: "%02x", Int($0)) }.joined()
        }
    }

    /// Parses `transparent`, `#rrggbb`, `rrggbb`, `white` or `black`;
    /// `nil` otherwise.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "transparent", "none": self = .transparent
        case "white": self = .rgb(255, 255, 255)
        case "black": self = .rgb(0, 0, 0)
        default:
            let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
            guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
            self = .rgb(UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
        }
    }
}
