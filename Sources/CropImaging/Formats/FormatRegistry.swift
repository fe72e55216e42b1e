/// The one place a format is registered: adding a format adds its folder
/// under `Formats/` and its reader and writer here.
enum FormatRegistry {
    /// Every format's writer, in the order `--format` lists them.
    static let writers: [any FormatWriter.Type] = [
        PNGEncoder.self,
        JPEGEncoder.self,
        HEIFEncoder.self,
        WebPEncoder.self,
        AVIFEncoder.self,
    ]

    /// Every format's reader, in the order signatures are tried.
    static let readers: [any FormatReader.Type] = [
        PNGFileInfo.self,
        JPEGFileInfo.self,
        // Before HEIF: the same container, told apart by its major brand.
        AVIFFileInfo.self,
        HEIFFileInfo.self,
        WebPFileInfo.self,
    ]

    /// The most bytes any reader's signature needs.
    static let signatureLength = readers.map { $0.signatureLength }.max() ?? 0

    /// The reader of the format whose signature `head` starts with.
    static func reader(forSignature head: [UInt8]) -> (any FormatReader.Type)? {
        readers.first { $0.matches(signature: head) }
    }
}
