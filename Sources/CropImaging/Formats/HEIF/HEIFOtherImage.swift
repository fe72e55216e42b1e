import CropGeometry

/// An image of a HEIF other than the primary: a thumbnail, an auxiliary
/// image or another top-level image.
public struct HEIFOtherImage: Hashable, Sendable {
    /// Its item ID.
    public var item: Int
    /// Its item type ("hvc1", "grid", …).
    public var type: String
    /// What it is: the `auxC` type of an auxiliary image (e.g.
    /// "urn:com:apple:photo:2020:aux:hdrgainmap"), else empty.
    public var role: String
    /// Its width (`ispe`), 0 if it declares none.
    public var width: Int
    /// Its height.
    public var height: Int
}
