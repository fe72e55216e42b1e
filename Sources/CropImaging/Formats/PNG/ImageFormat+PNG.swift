extension ImageFormat {
    /// PNG, through libpng (and ISA-L's inflate where installed).
    public static let png = ImageFormat(rawValue: "png")
}
