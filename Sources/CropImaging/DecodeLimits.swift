/// The most a decode may take on, checked before the big allocations.
///
/// | limit | default | why |
/// | --- | --- | --- |
/// | `maxPixels` | 178,956,970 | Pillow's decompression-bomb limit (about 0.18 gigapixels) |
/// | `maxDimension` | 1,000,000 | no real photo is wider or taller |
/// | `maxChunkBytes` | 16 MiB | one metadata chunk CropKit reads (an ICC profile is at most a few MB) |
/// | `maxMetadataBytes` | 64 MiB | all metadata chunks CropKit reads together |
/// | `maxFileBytes` | 2 GiB | the input file itself |
public struct DecodeLimits: Hashable, Sendable {
    public var maxPixels: Int
    public var maxDimension: Int
    public var maxChunkBytes: Int
    public var maxMetadataBytes: Int
    public var maxFileBytes: Int

    public init(
        maxPixels: Int = 178_956_970, maxDimension: Int = 1_000_000, maxChunkBytes: Int = 16 << 20,
        maxMetadataBytes: Int = 64 << 20, maxFileBytes: Int = 2 << 30
    ) {
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
        self.maxChunkBytes = maxChunkBytes
        self.maxMetadataBytes = maxMetadataBytes
        self.maxFileBytes = maxFileBytes
    }

    /// Refuses a file larger than ``maxFileBytes``.
    func check(fileSize: Int, path: String) throws(ImagingError) {
        guard fileSize <= maxFileBytes else {
            throw ImagingError(
                .limit,
                "'\(path)' is \(describeBytes(fileSize)), over the \(describeBytes(maxFileBytes)) limit for an input file (--max-file-bytes)"
            )
        }
    }

    public static let standard = DecodeLimits()

    /// Refuses an image of `width`×`height` over these limits, naming the
    /// limit and its flag.
    ///
    /// - Parameter format: "PNG" or "JPEG", for the message.
    func check(width: Int, height: Int, format: String) throws(ImagingError) {
        guard width <= maxDimension, height <= maxDimension else {
            throw ImagingError(
                .limit,
                "\(format) image is \(width)x\(height), over the \(maxDimension)-pixel limit on a side (--max-dimension)"
            )
        }
        guard width * height <= maxPixels else {
            throw ImagingError(
                .limit,
                "\(format) image is \(width)x\(height) = \(width * height) pixels, over the \(maxPixels)-pixel limit (--max-pixels)"
            )
        }
    }
}

/// Refuses a crop that does not lie inside a `width`×`height` image.
func checkCrop(_ crop: (x: Int, y: Int, width: Int, height: Int), inside width: Int, _ height: Int)
    throws(ImagingError)
{
    guard crop.x >= 0, crop.y >= 0, crop.width > 0, crop.height > 0, crop.x + crop.width <= width,
        crop.y + crop.height <= height
    else {
        throw ImagingError(
            .invalidRequest,
            "the crop \(crop.x),\(crop.y),\(crop.width),\(crop.height) does not lie inside the \(width)x\(height) image"
        )
    }
}

/// The text of a C message buffer (a fixed array of chars, NUL-terminated).
func cMessage<Buffer>(_ buffer: Buffer) -> String {
    withUnsafeBytes(of: buffer) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
}
