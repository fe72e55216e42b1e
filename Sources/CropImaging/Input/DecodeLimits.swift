import CropGeometry

/// The most a decode may take on, checked before the big allocations.
///
/// | limit | default | why |
/// | --- | --- | --- |
/// | `maxPixels` | 178,956,970 | Pillow's decompression-bomb limit (about 0.18 gigapixels) |
/// | `maxDimension` | 1,000,000 | no real photo is wider or taller |
/// | `maxChunkBytes` | 16 MiB | one metadata chunk CropKit reads (an ICC profile is at most a few MB) |
/// | `maxMetadataBytes` | 64 MiB | all metadata chunks CropKit reads together |
/// | `maxFileBytes` | 2 GiB | the input file itself |
/// | `maxScans` | 500 | a progressive JPEG's scans (a scan bomb repeats them; encoders write about 10) |
/// | `maxMemory` | 256 MiB | the peak resident memory of one crop: what it holds at once (``MemoryNeed``) plus `programMemory`; a 48-megapixel photo's crop, turned, fits; a bomb's 13000² frame does not |
/// | `programMemory` | 30 MiB | what the process holds besides the crop, counted against `maxMemory`: the `cropkit` binary with its libraries loaded holds 19–28 MB (measured as the peak resident memory less the crop's need, on crops of every format; a 6400x6400 HEIC's JPEG: 28.3 MB), and 30 MiB leaves a margin; an app that budgets the crop alone sets 0 |
/// | `maxFrames` | 10,000 | an animation's frames (a GIF bomb repeats a 1x1 frame a hundred thousand times; a 10-minute animation at 15 fps is 9,000) |
/// | `maxAnimationPixels` | 268,435,456 | an animation's work: the sum of its frames' areas and, for every frame, the crop's (each frame is composited and cut); 7-15 ns a pixel in a release build (a GIF of 10,000 256x256 frames into APNG: 1.3 G pixels in 9 s), so about 2-4 s at the limit; 300 frames of 480x270 cropped whole are 78 M |
/// | `maxScanPasses` | 20 | how many times over a progressive JPEG's scans visit its blocks (``ScanWork``; encoders: 3 to 6) |
///
/// A limit that is exceeded throws ``ImagingError/limitExceeded(_:limit:actual:)``
/// naming it.
public struct DecodeLimits: Hashable, Sendable {
    /// The most pixels an image may have.
    public var maxPixels: Int
    /// The most pixels on either side.
    public var maxDimension: Int
    /// The most bytes of one metadata chunk or segment that is read.
    public var maxChunkBytes: Int
    /// The most bytes of metadata read in all.
    public var maxMetadataBytes: Int
    /// The largest input file.
    public var maxFileBytes: Int
    /// The most scans of a progressive JPEG.
    public var maxScans: Int
    /// The most resident memory one crop may take: what it holds at once
    /// (see ``MemoryNeed``) plus ``programMemory``, checked before decoding.
    public var maxMemory: Int
    /// The resident memory the process holds besides the crop (its code,
    /// its libraries and their tables), counted against ``maxMemory`` so
    /// that the budget bounds the peak a container or `ulimit` sees.
    public var programMemory: Int
    /// The most times over a progressive JPEG's scans may visit its blocks
    /// (``ScanWork/passes``), checked from the scan headers before decoding.
    public var maxScanPasses: Int
    /// The most frames an animation may have.
    public var maxFrames: Int
    /// The most pixels an animation's crop may visit: the sum of its
    /// frames' areas plus the crop's area once a frame, checked from the
    /// frame headers before anything is decoded.
    public var maxAnimationPixels: Int

    /// Limits with the defaults in the table above, or the values given.
    public init(
        maxPixels: Int = 178_956_970, maxDimension: Int = 1_000_000, maxChunkBytes: Int = 16 << 20,
        maxMetadataBytes: Int = 64 << 20, maxFileBytes: Int = 2 << 30, maxScans: Int = 500,
        maxScanPasses: Int = 20, maxMemory: Int = 256 << 20, programMemory: Int = 30 << 20,
        maxFrames: Int = 10_000, maxAnimationPixels: Int = 1 << 28
    ) {
        self.maxFrames = maxFrames
        self.maxAnimationPixels = maxAnimationPixels
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
        self.maxChunkBytes = maxChunkBytes
        self.maxMetadataBytes = maxMetadataBytes
        self.maxFileBytes = maxFileBytes
        self.maxScans = maxScans
        self.maxScanPasses = maxScanPasses
        self.maxMemory = maxMemory
        self.programMemory = programMemory
    }

    /// The defaults.
    public static let standard = DecodeLimits()

    /// Refuses a file larger than ``maxFileBytes``.
    func check(fileSize: Int) throws(ImagingError) {
        guard fileSize <= maxFileBytes else {
            throw .limitExceeded(.fileBytes, limit: maxFileBytes, actual: fileSize)
        }
    }

    /// Refuses an image of `width`×`height` over these limits.
    func check(width: Int, height: Int) throws(ImagingError) {
        guard width <= maxDimension, height <= maxDimension else {
            throw .limitExceeded(.dimension, limit: maxDimension, actual: max(width, height))
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw .limitExceeded(.pixels, limit: maxPixels, actual: overflow ? Int.max : pixels)
        }
    }

    /// The bytes of a `rect` crop at `bytesPerPixel`, after refusing one
    /// over ``maxPixels`` or one whose size overflows.
    package func cropBytes(_ rect: PixelRect<StoredPixels>, bytesPerPixel: Int) throws(ImagingError)
        -> Int
    {
        let (pixels, overflow) = rect.width.multipliedReportingOverflow(by: rect.height)
        let (bytes, bytesOverflow) = (overflow ? Int.max : pixels).multipliedReportingOverflow(
            by: bytesPerPixel)
        guard !overflow, !bytesOverflow, pixels <= maxPixels else {
            throw .limitExceeded(.pixels, limit: maxPixels, actual: overflow ? Int.max : pixels)
        }
        return bytes
    }
}

/// Refuses a crop that does not lie inside an image of `size`.
func checkCrop(_ crop: PixelRect<StoredPixels>, inside size: PixelSize<StoredPixels>)
    throws(ImagingError)
{
    guard crop.x >= 0, crop.y >= 0, crop.width > 0, crop.height > 0,
        crop.x <= size.width - crop.width, crop.y <= size.height - crop.height
    else {
        throw .cropOutsideImage(crop: crop, size: size)
    }
}

/// The text of a C message buffer (a fixed array of chars, NUL-terminated).
func cMessage<Buffer>(_ buffer: Buffer) -> String {
    withUnsafeBytes(of: buffer) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
}
