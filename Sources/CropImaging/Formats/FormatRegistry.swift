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

    /// Formats read only as animations (``AnimatedImage``), never as a
    /// still ``ImageSource``: a GIF is an animation of one frame or more.
    static let animationOnly: [ImageFormat] = [.gif]

    /// Why a still ``ImageSource`` refuses `head` when an animation reader
    /// takes it (a GIF), naming what to use instead; `nil` otherwise.
    static func stillRefusal(forSignature head: [UInt8]) -> ImagingError? {
        guard GIFContainer.matches(head) else { return nil }
        return .unsupported(
            format: .gif,
            detail:
                "a GIF is read as an animation: open it with AnimatedImage (a frame as a still: AnimatedImage.frame(_:))"
        )
    }

    /// The reader of the format whose signature `head` starts with.
    static func reader(forSignature head: [UInt8]) -> (any FormatReader.Type)? {
        readers.first { $0.matches(signature: head) }
    }
}
