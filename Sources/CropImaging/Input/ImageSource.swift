import CropGeometry
import Dispatch

/// An image opened once: its bytes (``ImageInput``) and what its header and
/// metadata say (``ImageHeader``), read from those bytes.
///
/// Everything a crop needs comes from here: ``CropJob/plan(for:)`` plans
/// against the header, ``CropPlan/export(to:)`` decodes from the same
/// input. The path is never opened again.
public struct ImageSource: Sendable {
    /// The bytes.
    public let input: ImageInput
    /// What the header and metadata say.
    public let header: ImageHeader
    /// The limits the header was checked against, and the decode keeps to.
    public let limits: DecodeLimits
    /// Which inflater decodes a PNG's image data (by default ISA-L where it
    /// is installed and takes the image, else libpng).
    public var inflater: Inflater = .automatic

    /// Opens the file at `path` and reads its header and metadata (no
    /// pixels).
    ///
    /// - Throws: ``ImagingError``.
    public static func open(path: String, limits: DecodeLimits = .standard) throws(ImagingError)
        -> ImageSource
    {
        try ImageSource(ImageInput(path: path), limits: limits)
    }

    /// Reads the header and metadata of `input`, by its signature.
    ///
    /// A PNG's image data CRCs are not read here: every decode checks them,
    /// on another thread while it runs (reading a 30 MB file's image data
    /// takes about 8 ms), and fails on a bad one.
    ///
    /// - Throws: ``ImagingError``, ``ImagingError/unknownFormat(path:)`` for
    ///   a signature CropKit does not read.
    public init(_ input: ImageInput, limits: DecodeLimits = .standard) throws(ImagingError) {
        var head = [UInt8](repeating: 0, count: 12)
        let got = try head.withUnsafeMutableBufferPointer { buffer throws(ImagingError) in
            try input.read(at: 0, into: buffer)
        }
        guard got > 0 else { throw .emptyFile(path: input.name) }
        switch ImageFormat(signature: head.prefix(got)) {
        case .png:
            header = .png(try PNGFileInfo.read(input, limits: limits, deferringDataCRCs: true))
        case .jpeg:
            header = .jpeg(try JPEGFileInfo.read(input, limits: limits))
        case .heif:
            header = .heif(try HEIFFileInfo.read(input, limits: limits))
        case nil:
            throw .unknownFormat(path: input.name)
        }
        self.input = input
        self.limits = limits
    }

    /// The file's format.
    public var format: ImageFormat {
        switch header {
        case .png: .png
        case .jpeg: .jpeg
        case .heif: .heif
        }
    }

    /// The size as the file declares it.
    public var storedSize: PixelSize<StoredPixels> {
        switch header {
        case .png(let info): PixelSize(width: info.width, height: info.height)
        case .jpeg(let info): PixelSize(width: info.width, height: info.height)
        case .heif(let info): PixelSize(width: info.width, height: info.height)
        }
    }

    /// The file's own orientation: a JPEG's EXIF orientation, a HEIF's
    /// `irot` and `imir` (its EXIF orientation is not applied), 1 for PNG.
    public var orientation: EXIFOrientation {
        switch header {
        case .png: .up
        case .jpeg(let info): info.orientation
        case .heif(let info): info.orientation
        }
    }

    /// The colour type and bit depth a decode of this image gives.
    public var pixelFormat: (colorType: PNGColorType, bitDepth: Int) {
        switch header {
        case .png(let info): (info.colorType, info.bitDepth)
        case .jpeg(let info): (info.components == 1 ? .gray : .rgb, 8)
        case .heif(let info): (HEIFPixelFormat(info).colorType, HEIFPixelFormat(info).bitDepth)
        }
    }

    /// Problems reading the header that did not stop it.
    public var warnings: [String] {
        switch header {
        case .png(let info): info.warnings
        case .jpeg(let info): info.warnings
        case .heif(let info): info.warnings
        }
    }
}

extension ImageSource {
    /// Decodes `rect` of the stored grid (by default the whole image).
    ///
    /// Only what the rect needs is decoded: rows below it are never read;
    /// a JPEG decodes only the MCU columns it needs. The whole rect is held
    /// in memory, with what the format forces (``MemoryNeed``): over
    /// ``DecodeLimits/maxMemory`` it is refused before anything is
    /// allocated.
    ///
    /// - Parameters:
    ///   - rect: The pixels to keep, in the stored grid.
    ///   - lenient: Whether damaged JPEG data the decoder can step over is
    ///     accepted (a warning); by default it is an error.
    /// - Throws: ``ImagingError``.
    public func decode(_ rect: PixelRect<StoredPixels>? = nil, lenient: Bool = false)
        throws(ImagingError) -> DecodedImage
    {
        let rect = rect ?? PixelRect(size: storedSize)
        try checkCrop(rect, inside: storedSize)
        try decodeMemory(rect, streamed: false).check(limits)
        return try decode(rect, lenient: lenient, rows: nil)
    }

    /// A JPEG's pixels at `rect` with chroma upsampled by plain replication
    /// and the integer IDCT: how a DCT-domain crop is compared with its
    /// source, bit for bit (each pixel depends on its own blocks alone).
    package func decodePlainJPEG(_ rect: PixelRect<StoredPixels>? = nil) throws(ImagingError)
        -> DecodedImage
    {
        let rect = rect ?? PixelRect(size: storedSize)
        try checkCrop(rect, inside: storedSize)
        guard case .jpeg(let info) = header else {
            throw .unsupported(format: format, detail: "'\(input.name)' is not a JPEG file")
        }
        return try JPEGDecoder.decode(
            input, info: info, rect: rect, limits: limits, lenient: false, rows: nil,
            plainUpsampling: true)
    }

    /// ``decode(_:lenient:)``, reporting each finished row to `rows` while
    /// it decodes: how a decoder feeds an encoder.
    func decode(_ rect: PixelRect<StoredPixels>, lenient: Bool, rows: (any RowConsumer)?)
        throws(ImagingError) -> DecodedImage
    {
        try checkCrop(rect, inside: storedSize)
        switch header {
        case .png(let info):
            return try whileCheckingCRCs(of: info) { () throws(ImagingError) in
                try PNGDecoder.decode(
                    input, info: info, rect: rect, limits: limits, inflater: inflater, rows: rows)
            }
        case .jpeg(let info):
            return try JPEGDecoder.decode(
                input, info: info, rect: rect, limits: limits, lenient: lenient, rows: rows)
        case .heif(let info):
            return try HEIFDecoder.decode(input, info: info, rect: rect, limits: limits, rows: rows)
        }
    }

    /// Runs `body` while another thread checks the image data CRCs that
    /// the header read deferred. A bad CRC is thrown in preference to
    /// `body`'s own error, as a full read would have met it first; the
    /// caller commits its output only after this returns.
    private func whileCheckingCRCs<T>(
        of info: PNGFileInfo, _ body: () throws(ImagingError) -> T
    ) throws(ImagingError) -> T {
        guard !info.deferredCRCs.isEmpty else { return try body() }
        let outcome = CRCOutcome()
        let done = DispatchSemaphore(value: 0)
        let input = input
        DispatchQueue.global().async {
            do throws(ImagingError) {
                try info.checkDeferredCRCs(in: input)
            } catch {
                outcome.failure = error
            }
            done.signal()
        }
        let result: Result<T, ImagingError>
        do throws(ImagingError) {
            result = .success(try body())
        } catch {
            result = .failure(error)
        }
        done.wait()
        if let failure = outcome.failure { throw failure }
        return try result.get()
    }
}

/// What the CRC thread found; written before its semaphore is signalled and
/// read only after the wait, so no lock is needed.
private final class CRCOutcome: @unchecked Sendable {
    var failure: ImagingError?
}
