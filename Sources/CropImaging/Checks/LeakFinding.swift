import CropGeometry
import CropRecords
import Foundation

/// One thing in an image file that shows more than its own pixels.
public struct LeakFinding: Hashable, Sendable, CustomStringConvertible {
    /// What kind of thing shows more than the pixels.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// An image other than the primary one: a thumbnail, a preview, a
        /// secondary, auxiliary or container image, image data embedded in
        /// a value, a box or a profile.
        case embeddedImage
        /// An index of secondary images (MPF).
        case imageIndex
        /// Bytes after the end of the image (the aCropalypse leak).
        case trailingBytes
        /// A dimension that is not the pixels' (EXIF `PixelXDimension`,
        /// XMP's `exif:PixelXDimension`, a region list's
        /// `AppliedToDimensions`): metadata of the uncropped photo.
        case staleDimensions
        /// A place in the picture that lies outside it (EXIF's
        /// `SubjectArea`): metadata of the uncropped photo.
        case staleCoordinates
        /// Pixels the file codes but no viewer shows: beyond a HEIF's
        /// clean aperture, an animation frame beyond its canvas, APNG
        /// frames in a still PNG.
        case hiddenPixels
        /// Metadata that cannot be read, so cannot be checked.
        case unreadable
    }

    /// A finding's kind, words and values before its place is known: what
    /// the checks of a block (an EXIF block, an XMP packet) return.
    struct Found: Hashable, Sendable {
        var kind: Kind
        var detail: String
        var measured: [JSONValue.Member] = []

        init(_ kind: Kind, _ detail: String, measured: [JSONValue.Member] = []) {
            self.kind = kind
            self.detail = detail
            self.measured = measured
        }
    }

    /// Where it is: "APP1 EXIF", "bytes after EOI", ...
    public var place: String
    /// What kind of thing it is.
    public var kind: Kind
    /// What it is, in words.
    public var detail: String
    /// The values the words state, where they are numbers: a trailing
    /// finding's `bytes`; a stale dimension's `value` and `expected`.
    public var measured: [JSONValue.Member]

    /// A finding of `kind` at `place`, said as `detail`.
    public init(
        place: String, kind: Kind, detail: String, measured: [JSONValue.Member] = []
    ) {
        self.place = place
        self.kind = kind
        self.detail = detail
        self.measured = measured
    }

    /// `found` at `place`.
    init(place: String, _ found: Found) {
        self.init(place: place, kind: found.kind, detail: found.detail, measured: found.measured)
    }

    /// "APP1 EXIF: a second IFD (IFD1, ...)".
    public var description: String { "\(place): \(detail)" }

    /// `{"place","kind","detail","measured"}`, as `leaks --json`, `info`'s
    /// `embedded` and the export checks give it.
    public var json: JSONValue {
        .object([
            .init("place", .string(place)), .init("kind", .string(kind.rawValue)),
            .init("detail", .string(detail)), .init("measured", .object(measured)),
        ])
    }
}
