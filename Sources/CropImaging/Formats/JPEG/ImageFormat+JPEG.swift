extension ImageFormat {
    /// JPEG (JFIF, EXIF), through libjpeg-turbo.
    public static let jpeg = ImageFormat(rawValue: "jpeg")
}

extension MetadataVocabulary {
    /// A JPEG's names: its APP segments.
    static let jpeg = MetadataVocabulary(
        format: "JPEG", exif: "APP1 EXIF", xmp: "APP1 XMP", iccProfile: "APP2 ICC_PROFILE")
}
