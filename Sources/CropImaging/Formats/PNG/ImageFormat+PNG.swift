extension ImageFormat {
    /// PNG, through libpng (and ISA-L's inflate where installed).
    public static let png = ImageFormat(rawValue: "png")
}

extension MetadataVocabulary {
    /// A PNG's names: its chunks.
    static let png = MetadataVocabulary(
        format: "PNG", exif: "eXIf chunk", xmp: "iTXt XMP chunk", iccProfile: "iCCP chunk")
}
