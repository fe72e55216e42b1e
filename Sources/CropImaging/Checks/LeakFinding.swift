import CropGeometry
import CropRecords
import Foundation

/// One thing in an image file that shows more than its own pixels.
public struct LeakFinding: Hashable, Sendable, CustomStringConvertible {
    /// Where it is: "APP1 EXIF", "bytes after EOI", ...
    public var place: String
    /// What it is.
    public var detail: String

    /// "APP1 EXIF: a second IFD (IFD1, ...)".
    public var description: String { "\(place): \(detail)" }

    /// `{"place","detail"}`, as `leaks --json` and the export checks give it.
    public var json: JSONValue {
        .object([.init("place", .string(place)), .init("detail", .string(detail))])
    }
}
