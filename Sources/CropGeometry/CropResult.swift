/// The pixels a selection covers, in the grid the person sees and in the grid
/// the decoder cuts.
public struct CropResult: Hashable, Sendable {
    /// The crop in the oriented image grid (what the person sees).
    public var rect: PixelRect<ImagePixels>
    /// The same pixels in the stored grid (what a decoder cuts); equal to
    /// `rect` when the orientation is 1.
    public var stored: PixelRect<StoredPixels>
    /// The EXIF orientation that relates the two grids.
    public var orientation: EXIFOrientation
    /// The validated stored size `sw×sh`.
    public var sourceSize: PixelSize<StoredPixels>

    /// The result `rect` in the image as seen; the stored rect is derived from it through `orientation`.
    public init(
        rect: PixelRect<ImagePixels>, orientation: EXIFOrientation,
        sourceSize: PixelSize<StoredPixels>
    ) {
        self.rect = rect
        self.orientation = orientation
        self.sourceSize = sourceSize
        self.stored = orientation.storedRect(rect, storedSize: sourceSize)
    }

    /// The oriented size `ow×oh` of the whole image.
    public var orientedSize: PixelSize<ImagePixels> { orientation.orientedSize(sourceSize) }
}
