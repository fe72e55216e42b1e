import CropGeometry

/// A `colr` box of type `nclx`: the colour by code points (ITU-T H.273).
public struct HEIFColourDescription: Hashable, Sendable {
    /// Colour primaries (1 = BT.709, 12 = Display P3).
    public var primaries: Int
    /// Transfer characteristics (13 = sRGB).
    public var transfer: Int
    /// Matrix coefficients (0 = RGB, 6 = BT.601).
    public var matrix: Int
    /// Whether the samples use the full range.
    public var fullRange: Bool
}
