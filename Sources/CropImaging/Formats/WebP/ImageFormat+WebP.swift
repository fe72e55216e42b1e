extension ImageFormat {
    /// WebP: a RIFF container read by CropKit, its VP8 (lossy) or VP8L
    /// (lossless) bitstream decoded by libwebp.
    public static let webp = ImageFormat(rawValue: "webp")
}

extension MetadataVocabulary {
    /// A WebP's names: its RIFF chunks.
    static let webp = MetadataVocabulary(
        format: "WebP", exif: "EXIF chunk", xmp: "XMP chunk", iccProfile: "ICCP chunk")
}
