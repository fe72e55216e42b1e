extension ImageFormat {
    /// JPEG (JFIF, EXIF), through libjpeg-turbo.
    public static let jpeg = ImageFormat(rawValue: "jpeg")
}
