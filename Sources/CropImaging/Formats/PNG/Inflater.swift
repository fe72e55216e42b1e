internal import CImagingShims

/// Which DEFLATE implementation inflates a PNG's image data.
public enum Inflater: String, Hashable, Sendable, CaseIterable {
    /// ISA-L when its shared library (libisal.so.2) loads and the image is
    /// non-interlaced with 8 or 16 bits a sample; libpng (zlib) otherwise.
    case automatic
    /// Intel's ISA-L, about three times zlib's speed; fails when the
    /// library is absent (images it does not take still go to libpng).
    case isal
    /// libpng with zlib, always present.
    case zlib

    /// Whether ISA-L's shared library is present on this machine.
    public static var isISALAvailable: Bool { RuntimeLibrary.isal.isAvailable }
}
