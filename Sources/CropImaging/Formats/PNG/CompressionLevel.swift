internal import CImagingShims

/// How hard DEFLATE searches for repeats.
public enum CompressionLevel: Hashable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// Chosen per band of rows from the filtered bytes themselves, by the
    /// order-0 entropy of the noisiest byte of the pixel: level 1 where they
    /// are noise (5.7 bits a byte or more: levels 2-12 were measured to
    /// save nothing there), level 6 where they are nearly flat (under 1
    /// bit: cheap at any level), level 2 for the rest, which is where real
    /// photographs' bands lie (level 2 kept every measured phone photo
    /// within 1.04 of Pillow's bytes; the table is in the guide, CropImaging.docc/Guide.md), or level
    /// 4 when one byte of the pixel is flat beside busy ones (an opaque
    /// alpha channel). With zlib, level 6.
    case automatic
    /// One level for every band: zlib 0-9, libdeflate 1-12.
    case fixed(Int)

    /// The smallest output: libdeflate's level 12 (zlib's 9).
    public static let best = CompressionLevel.fixed(12)

    /// A fixed level written as a number: `let level: CompressionLevel = 6`.
    public init(integerLiteral value: Int) { self = .fixed(value) }

    /// "auto" or the number.
    public var description: String {
        switch self {
        case .automatic: "auto"
        case .fixed(let level): "\(level)"
        }
    }

    /// The level zlib compresses at.
    var zlibLevel: Int {
        switch self {
        case .automatic: 6
        case .fixed(let level): Swift.min(Swift.max(level, 0), 9)
        }
    }

    /// The level ck_stream is given: 0 for automatic.
    var streamLevel: Int32 {
        switch self {
        case .automatic: 0
        case .fixed(let level): Int32(min(max(level, 1), 12))
        }
    }
}
