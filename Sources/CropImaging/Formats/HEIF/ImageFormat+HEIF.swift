extension ImageFormat {
    /// HEIF with HEVC-coded images (HEIC, an iPhone's photos): the
    /// container read by CropKit, the tiles decoded by libheif.
    public static let heif = ImageFormat(rawValue: "heif")
}
