extension ImageFormat {
    /// WebP: a RIFF container read by CropKit, its VP8 (lossy) or VP8L
    /// (lossless) bitstream decoded by libwebp.
    public static let webp = ImageFormat(rawValue: "webp")
}
