extension ImageFormat {
    /// HEIF with HEVC-coded images (HEIC, an iPhone's photos): the
    /// container read by CropKit, the tiles decoded by libheif.
    public static let heif = ImageFormat(rawValue: "heif")
}

extension MetadataVocabulary {
    /// A HEIF's names: its items and properties.
    static let heif = MetadataVocabulary(
        format: "HEIF", exif: "Exif item", xmp: "XMP item", iccProfile: "colr ICC")
}
