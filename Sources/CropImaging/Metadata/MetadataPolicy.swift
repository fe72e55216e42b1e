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
    /// Whether people are removed: the XMP regions that name or show a
    /// person (MWG regions of type Face or with a name, Microsoft's
    /// `MP:RegionInfo`) and IPTC's `PersonInImage`. Names are personal data,
    /// like a location: kept by default, and every report says so.
    public var stripPeople: Bool = false
    /// Whether all metadata is removed but the colour profile (ICC) and the
    /// Adobe colour transform, without which the colours would change.
    public var stripAll: Bool
    /// Whether the EXIF MakerNote is kept (it may hold a preview of the
    /// whole photo; a warning says so).
    public var keepMakerNote: Bool
    /// What becomes of the images a photo records beside its pixels (an
    /// HDR gain map, a depth map, a stereo eye): by default each one the
    /// output can carry is cut to the crop by the companion rule (the
    /// Companions article of CropGeometry), and the rest are dropped with a
    /// report line that says why.
    public var companions: CompanionChoice
    /// Where the places the metadata names land in the crop (set by the
    /// plan for its cleaners; `nil` outside a crop, where a field with
    /// coordinates is removed rather than kept stale).
    var places: CropPlaces?

    /// Whether an HDR gain map is cut and kept with the crop: the old name
    /// of ``companions`` `== .keep`.
    @available(*, deprecated, renamed: "companions")
    public var cropsGainMap: Bool {
        get { companions == .keep }
        set { companions = newValue ? .keep : .drop }
    }

    /// A policy; the defaults keep what stays true (the companions cut to
    /// the crop) and strip nothing more.
    public init(
        stripLocation: Bool = false, stripAll: Bool = false, keepMakerNote: Bool = false,
        companions: CompanionChoice = .keep
    ) {
        self.stripLocation = stripLocation
        self.stripAll = stripAll
        self.keepMakerNote = keepMakerNote
        self.companions = companions
    }
}

/// What a crop does with a photo's companion images.
public enum CompanionChoice: String, CaseIterable, Sendable {
    /// Cut each one the output can carry to the crop; drop the others and
    /// say why.
    case keep
    /// Drop them all: the crop shows in standard dynamic range, without
    /// depth or a second eye.
    case drop
}
