internal import CImagingShims

/// A C library CropKit opens at run time with `dlopen`, by its versioned
/// soname, through the C layer's one loader: none is needed to build, and
/// a machine without one still runs everything else.
///
/// Each is looked for once, on first use. Without it, what needs it is
/// refused with ``missing`` (naming the Debian package to install) or, for
/// a faster path with a fallback, not taken.
public enum RuntimeLibrary: String, Hashable, Sendable, CaseIterable {
    /// libdeflate: whole-buffer DEFLATE for PNG output (zlib otherwise).
    case libdeflate
    /// Intel's ISA-L: PNG inflate (libpng's zlib otherwise).
    case isal
    /// libheif with libde265 and x265: HEVC tiles of HEIF files.
    case libheif
    /// libwebp: WebP's VP8 and VP8L bitstreams, in and out.
    case libwebp
    /// libavif 0.11 with dav1d: AV1 images of AVIF files, decoded (libheif
    /// decodes them where it is absent).
    case libavif

    /// The name in messages: "libdeflate", "ISA-L", "libheif.so.1".
    public var name: String {
        switch self {
        case .libdeflate: "libdeflate"
        case .isal: "ISA-L"
        case .libheif: "libheif.so.1"
        case .libwebp: "libwebp.so.7"
        case .libavif: "libavif.so.15"
        }
    }

    /// The soname the loader tries first on Linux.
    public var soname: String {
        switch self {
        case .libdeflate: "libdeflate.so.0"
        case .isal: "libisal.so.2"
        case .libheif: "libheif.so.1"
        case .libwebp: "libwebp.so.7"
        case .libavif: "libavif.so.15"
        }
    }

    /// The Debian package that installs it.
    public var debianPackage: String {
        switch self {
        case .libdeflate: "libdeflate0"
        case .isal: "libisal2"
        case .libheif: "libheif1"
        case .libwebp: "libwebp7"
        case .libavif: "libavif15"
        }
    }

    /// Whether it is installed here (loads it on the first call).
    public var isAvailable: Bool {
        switch self {
        case .libdeflate: ck_libdeflate_available() != 0
        case .isal: ck_isal_available() != 0
        case .libheif: ck_heif_available() != 0
        case .libwebp: ck_webp_available() != 0
        case .libavif: ck_avif_available() != 0
        }
    }

    /// The error that refuses what needs it:
    /// ``ImagingError/libraryMissing(library:package:)``.
    public var missing: ImagingError {
        .libraryMissing(library: name, package: debianPackage)
    }

    /// Throws ``missing`` unless it is installed.
    ///
    /// - Throws: ``ImagingError/libraryMissing(library:package:)``.
    public func require() throws(ImagingError) {
        guard isAvailable else { throw missing }
    }

    /// What the one loader made of a library: ``probe(soname:required:optional:)``.
    package enum ProbeOutcome: Hashable, Sendable {
        /// Absent, or without the required function; nothing points into it.
        case absent
        /// Not loaded, yet a function pointer into it was left (a defect).
        case leftPointer
        /// Loaded; whether the optional function was found.
        case loaded(optionalFound: Bool)
    }

    /// What the one loader makes of `soname` with a `required` and an
    /// `optional` function (tests of the loader itself).
    package static func probe(soname: String, required: String, optional: String)
        -> ProbeOutcome
    {
        switch ck_library_probe(soname, required, optional) {
        case 1: .loaded(optionalFound: false)
        case 3: .loaded(optionalFound: true)
        case -1: .absent
        default: .leftPointer
        }
    }
}
