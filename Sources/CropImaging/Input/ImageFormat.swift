/// The image formats CropKit reads, recognised by their first bytes.
public enum ImageFormat: String, Hashable, Sendable, CaseIterable {
    /// PNG, through libpng.
    case png
    /// JPEG (JFIF, EXIF), through libjpeg-turbo.
    case jpeg
    /// HEIF with HEVC-coded images (HEIC, an iPhone's photos): the
    /// container read by CropKit, the tiles decoded by libheif.
    case heif

    /// The format's name in messages: "PNG", "JPEG".
    public var name: String { rawValue.uppercased() }

    /// The format whose signature `head` (the file's first bytes) starts
    /// with, if any.
    public init?(signature head: some Collection<UInt8>) {
        if head.starts(with: [137, 80, 78, 71]) {
            self = .png
        } else if head.starts(with: [0xFF, 0xD8]) {
            self = .jpeg
        } else if head.count >= 8, Array(head.dropFirst(4).prefix(4)) == Array("ftyp".utf8) {
            self = .heif
        } else {
            return nil
        }
    }
}
