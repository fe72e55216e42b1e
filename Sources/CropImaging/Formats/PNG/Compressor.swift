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
    public static var isLibdeflateAvailable: Bool { RuntimeLibrary.libdeflate.isAvailable }

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
