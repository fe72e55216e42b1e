import CropGeometry
import Foundation

/// What a crop keeps of its source's metadata.
///
/// By default everything that stays true is kept and rewritten to stay true
/// (EXIF with the crop's dimensions, the ICC profile, XMP, JFIF, Adobe,
/// comments), and everything that shows the uncropped photo is removed (the
/// EXIF thumbnail, MPF secondary images such as gain and depth maps, the
/// MakerNote, embedded previews, extended XMP, bytes after the image).
public struct MetadataPolicy: Hashable, Sendable {
    /// Whether location is removed: the EXIF GPS IFD, and every location
    /// property of XMP's known schemas (EXIF GPS, DJI, Google, Apple, IPTC
    /// and Photoshop location; ``XMPLocation``).
    public var stripLocation: Bool
    /// Whether all metadata is removed but the colour profile (ICC) and the
    /// Adobe colour transform, without which the colours would change.
    public var stripAll: Bool
    /// Whether the EXIF MakerNote is kept (it may hold a preview of the
    /// whole photo; a warning says so).
    public var keepMakerNote: Bool
    /// Whether an HDR gain map (Apple's, or Ultra HDR's, found through the
    /// MPF index) is cropped by the same rect, scaled to its size, and kept
    /// with a new MPF index; by default it is dropped, and the crop shows
    /// in standard dynamic range only.
    public var cropsGainMap: Bool

    /// A policy; the defaults keep what stays true and strip nothing more.
    public init(
        stripLocation: Bool = false, stripAll: Bool = false, keepMakerNote: Bool = false,
        cropsGainMap: Bool = false
    ) {
        self.stripLocation = stripLocation
        self.stripAll = stripAll
        self.keepMakerNote = keepMakerNote
        self.cropsGainMap = cropsGainMap
    }
}
