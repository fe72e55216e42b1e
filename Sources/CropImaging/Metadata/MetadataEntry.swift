import CropGeometry
import Foundation

/// What became of one piece of the source's metadata in a crop.
public struct MetadataEntry: Hashable, Sendable {
    /// Kept as it was, rewritten to stay true, or dropped.
    public enum Action: String, Sendable {
        /// Copied unchanged.
        case kept
        /// Copied with changes (listed in the reason).
        case rewritten
        /// Not carried.
        case dropped
    }

    /// The segment: "APP1 EXIF", "APP2 ICC_PROFILE", "APP2 MPF", ...
    public var segment: String
    /// What was done with it.
    public var action: Action
    /// Why, in words.
    public var reason: String
}
