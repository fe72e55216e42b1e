import CropGeometry

/// What an image file's header says, whatever its format: the face of a
/// format's reader that the pipeline's callers see.
///
/// Each format folder under `Formats/` has one type that conforms (a PNG's
/// chunk list ``PNGFileInfo``, a JPEG's markers ``JPEGFileInfo``, a HEIF's
/// boxes ``HEIFFileInfo``), registered once in the format registry. A
/// caller that needs a format's own details asks for them by type:
/// `source.header as? JPEGFileInfo`.
public protocol ImageHeader: Sendable {
    /// The file's format.
    var format: ImageFormat { get }
    /// The size as the file declares it.
    var storedSize: PixelSize<StoredPixels> { get }
    /// The file's own orientation: a JPEG's EXIF orientation, a HEIF's
    /// `irot` and `imir` (its EXIF orientation is not applied), 1 for PNG.
    var orientation: EXIFOrientation { get }
    /// The colour type and bit depth a decode of this image gives.
    var pixelFormat: PixelFormat { get }
    /// Problems reading the header that did not stop it.
    var warnings: [String] { get }
    /// What the file is when it is an image sequence (video coded between
    /// frames: an AVIF `avis`, a HEIF `msf1`), whose primary image alone
    /// is read; `nil` for an image.
    var imageSequence: String? { get }
}

extension ImageHeader {
    /// `nil`: most formats hold no image sequence.
    public var imageSequence: String? { nil }
}

/// The colour type and bit depth of decoded pixels.
public struct PixelFormat: Hashable, Sendable {
    /// The colour type (PNG's names: gray, RGB, palette, with alpha).
    public var colorType: ColorType
    /// Bits a sample: 1, 2, 4, 8 or 16.
    public var bitDepth: Int

    /// The format of `colorType` samples of `bitDepth` bits.
    public init(colorType: ColorType, bitDepth: Int) {
        self.colorType = colorType
        self.bitDepth = bitDepth
    }
}
