import CropGeometry

/// Pixels in a PNG's own format, unpacked: one byte per sample below 8 bits
/// (the sample's value, not scaled), two bytes big-endian at 16 bits.
///
/// Nothing is converted: a palette stays indices, 16-bit stays 16-bit, and
/// the chunks that give the samples their meaning (PLTE, tRNS, colour) travel
/// with them.
public struct RasterImage: Hashable, Sendable {
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int
    /// How the samples of a pixel are laid out.
    public var colorType: ColorType
    /// Bits per sample: 1, 2, 4, 8 or 16.
    public var bitDepth: Int
    /// `height` rows of `width × bytesPerPixel` bytes.
    public var samples: [UInt8]
    /// The ancillary and palette chunks to write with these pixels.
    public var chunks: [PNGChunk]

    /// An image of these samples (rows packed, PNG byte order), with the chunks to carry.
    public init(
        width: Int, height: Int, colorType: ColorType, bitDepth: Int, samples: [UInt8],
        chunks: [PNGChunk] = []
    ) {
        precondition(
            colorType.allowedBitDepths.contains(bitDepth),
            "bit depth \(bitDepth) is not valid for \(colorType)")
        let size = width * height * (bitDepth == 16 ? 2 : 1) * colorType.channels
        precondition(
            samples.count == size, "samples hold \(samples.count) bytes, the image needs \(size)")
        self.width = width
        self.height = height
        self.colorType = colorType
        self.bitDepth = bitDepth
        self.samples = samples
        self.chunks = chunks
    }

    /// Bytes per pixel in `samples`.
    public var bytesPerPixel: Int { colorType.channels * (bitDepth == 16 ? 2 : 1) }

    /// Bytes per row in `samples`.
    public var rowBytes: Int { width * bytesPerPixel }

    /// The sample `channel` of pixel `(x, y)`, as its integer value.
    public func sample(x: Int, y: Int, channel: Int) -> Int {
        let index = y * rowBytes + x * bytesPerPixel
        if bitDepth == 16 {
            return Int(samples[index + 2 * channel]) << 8 | Int(samples[index + 2 * channel + 1])
        }
        return Int(samples[index + channel])
    }

    /// The palette (PLTE) entries as RGB triples, if there is one.
    public var palette: [UInt8]? { chunks.first(where: { $0.type == "PLTE" })?.data }

    /// A copy of the pixels in `rect` with the same format and chunks.
    public func cropped(to rect: PixelRect<StoredPixels>) -> RasterImage {
        precondition(
            rect.width > 0 && rect.height > 0
                && rect.isInside(PixelSize(width: width, height: height)),
            "crop \(rect) is not inside \(width)x\(height)")
        var out = [UInt8]()
        out.reserveCapacity(rect.width * rect.height * bytesPerPixel)
        for y in rect.y..<rect.y + rect.height {
            let start = y * rowBytes + rect.x * bytesPerPixel
            out.append(contentsOf: samples[start..<start + rect.width * bytesPerPixel])
        }
        return RasterImage(
            width: rect.width, height: rect.height, colorType: colorType, bitDepth: bitDepth,
            samples: out,
            chunks: chunks)
    }
}
