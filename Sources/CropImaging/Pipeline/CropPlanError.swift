import CropGeometry

/// Why a job has no plan for an image.
public enum CropPlanError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The view selection, mapped against the image (`request`, with the
    /// image's size and orientation), covers no pixel or breaks a rule.
    case rejected(CropRejection, request: CropRequest)
    /// The turned or resized crop has no answer: a rule of "Straighten and
    /// resize" rejected it.
    case straightenRejected(CropRejection)
    /// The pixel rect does not lie inside the image as seen.
    case notInsideImage(PixelRect<ImagePixels>, image: PixelSize<ImagePixels>)
    /// The crop was to be grown to the block grid keeping an exact aspect
    /// ratio, and no rect of that ratio on the grid fits in the photo.
    case ratioNotOnBlockGrid(
        PixelRect<ImagePixels>, aspect: AspectChoice, blockGrid: PixelSize<StoredPixels>)
    /// A lossless JPEG crop was required, and the rect (as seen) has an edge
    /// off the source's block grid: the nearest lossless rects are the rect
    /// grown outward and, unless empty, shrunk inward.
    case notLossless(
        PixelRect<ImagePixels>, grownOutward: PixelRect<ImagePixels>,
        shrunkInward: PixelRect<ImagePixels>?, blockGrid: PixelSize<StoredPixels>)
    /// The output format cannot hold this crop of this source (HEIC output
    /// of a turned or resized crop, of another format, or with alpha): the
    /// sentence says which, and what to write instead.
    case unsupportedOutput(String)

    /// A sentence for a person.
    public var description: String {
        switch self {
        case .ratioNotOnBlockGrid(let rect, let aspect, let grid):
            "the rect \(rect) cannot grow to the source's \(grid.width)x\(grid.height) block grid and keep the ratio \(aspect): no such rect fits in the photo; drop --aspect or --snap-to-blocks"
        case .notLossless(let rect, let grown, let shrunk, let grid):
            "the rect \(rect) is not lossless: its edges are not all on the source's \(grid.width)x\(grid.height) block grid (or the photo's edge); the nearest lossless rects are \(grown) (grown outward)"
                + (shrunk.map { " and \($0) (shrunk inward)" } ?? "")
        case .unsupportedOutput(let reason): reason
        case .rejected(let rejection, _): "rejected (\(rejection.code)): \(rejection)"
        case .straightenRejected(let rejection):
            "the turned or resized crop is rejected (\(rejection.code)): \(rejection)"
        case .notInsideImage(let rect, let image):
            rect.maxX <= 0 || rect.maxY <= 0 || rect.x >= image.width || rect.y >= image.height
                ? "the rect \(rect) lies wholly outside the \(image) image (as seen): x from 0 to \(image.width - 1), y from 0 to \(image.height - 1)"
                : "the rect \(rect) is not inside the \(image) image (as seen): x and y from 0, x + width up to \(image.width), y + height up to \(image.height); --clamp keeps the part inside"
        }
    }
}
