import CropGeometry

extension ImageSource {
    /// A JPEG's pixels at `rect` with chroma upsampled by plain replication
    /// and the integer IDCT: how a DCT-domain crop is compared with its
    /// source, bit for bit (each pixel depends on its own blocks alone).
    package func decodePlainJPEG(_ rect: PixelRect<StoredPixels>? = nil) throws(ImagingError)
        -> DecodedImage
    {
        let rect = rect ?? PixelRect(size: storedSize)
        try checkCrop(rect, inside: storedSize)
        guard let info = reader as? JPEGFileInfo else {
            throw .unsupported(format: format, detail: "'\(input.name)' is not a JPEG file")
        }
        return try JPEGDecoder.decode(
            input, info: info, rect: rect, limits: limits, lenient: false, rows: nil,
            plainUpsampling: true)
    }
}
