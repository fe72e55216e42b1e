extension ImageFormat {
    /// AVIF: the HEIF container around AV1-coded images, read by CropKit's
    /// own HEIF parser, the images decoded by libheif with dav1d.
    public static let avif = ImageFormat(rawValue: "avif")
}

extension MetadataVocabulary {
    /// An AVIF's names: a HEIF's.
    static let avif: MetadataVocabulary = {
        var names = MetadataVocabulary.heif
        names.format = "AVIF"
        return names
    }()
}
