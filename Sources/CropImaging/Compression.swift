internal import CImagingShims

/// Which DEFLATE implementation compresses the image data.
public enum Compressor: String, Hashable, Sendable, CaseIterable {
    /// libdeflate when its shared library loads, zlib otherwise.
    case automatic
    /// libdeflate (whole-buffer, several times faster than zlib at the same
    /// level); fails when the library is absent.
    case libdeflate
    /// zlib, always present.
    case zlib

    /// Whether libdeflate's shared library is present on this machine.
    public static var isLibdeflateAvailable: Bool { ck_libdeflate_available() != 0 }

    /// The implementation `.automatic` resolves to here.
    public var resolved: Compressor {
        self == .automatic ? (Self.isLibdeflateAvailable ? .libdeflate : .zlib) : self
    }

    /// A zlib stream of `data`, compressed by zlib at `level` (0–9). (With
    /// libdeflate, ``PNGEncoder`` compresses in bands through the C layer's
    /// `ck_stream` instead.)
    ///
    /// - Throws: ``ImagingError/outOfMemory(detail:)`` when compression fails.
    static func zlibStream(_ data: UnsafeBufferPointer<UInt8>, level: Int) throws(ImagingError)
        -> [UInt8]
    {
        let bound = ck_zlib_compress_bound(data.count)
        // Uninitialised: pages past the compressed size are never touched, so
        // the worst-case bound costs address space, not memory.
        var written = 0
        let out = [UInt8](unsafeUninitializedCapacity: max(bound, 64)) { buffer, count in
            written = ck_zlib_compress(
                data.baseAddress, data.count, buffer.baseAddress, buffer.count,
                Int32(min(max(level, 0), 9)))
            count = written
        }
        guard written > 0 else {
            throw .outOfMemory(detail: "zlib could not compress the image data")
        }
        return out
    }
}

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
    public static var isISALAvailable: Bool { ck_isal_available() != 0 }
}

/// How hard DEFLATE searches for repeats.
public enum CompressionLevel: Hashable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// Chosen per band of rows from the filtered bytes themselves, by the
    /// order-0 entropy of the noisiest byte of the pixel: level 1 where they
    /// are noise (5.7 bits a byte or more: levels 2-12 were measured to
    /// save nothing there), level 6 where they are nearly flat (under 1
    /// bit: cheap at any level), level 2 for the rest, which is where real
    /// photographs' bands lie (level 2 kept every measured phone photo
    /// within 1.04 of Pillow's bytes; the table is in the guide, CropImaging.docc/Guide.md), or level
    /// 4 when one byte of the pixel is flat beside busy ones (an opaque
    /// alpha channel). With zlib, level 6.
    case automatic
    /// One level for every band: zlib 0-9, libdeflate 1-12.
    case fixed(Int)

    /// The smallest output: libdeflate's level 12 (zlib's 9).
    public static let best = CompressionLevel.fixed(12)

    public init(integerLiteral value: Int) { self = .fixed(value) }

    /// "auto" or the number.
    public var description: String {
        switch self {
        case .automatic: "auto"
        case .fixed(let level): "\(level)"
        }
    }

    /// The level zlib compresses at.
    var zlibLevel: Int {
        switch self {
        case .automatic: 6
        case .fixed(let level): Swift.min(Swift.max(level, 0), 9)
        }
    }

    /// The level ck_stream is given: 0 for automatic.
    var streamLevel: Int32 {
        switch self {
        case .automatic: 0
        case .fixed(let level): Int32(min(max(level, 1), 12))
        }
    }
}
