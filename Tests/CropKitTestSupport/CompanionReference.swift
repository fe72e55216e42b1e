import CropGeometry

/// A source companion as a reader gave it (as displayed), and the companion
/// rule's reference for a turned or resized crop of its photo: each output
/// pixel the bilinear sample, edges clamped, at the crop's own sample
/// position (the crop at the companion's output size) scaled by the
/// companion's scale against the photo (DESIGN.md, "Companion images":
/// straighten and resize apply to companions the same way).
public struct CompanionReference: Sendable {
    /// The companion's size, as displayed.
    public let width: Int
    /// The companion's height, as displayed.
    public let height: Int
    /// Samples a pixel.
    public let bands: Int
    /// Its samples, row by row, `bands` a pixel.
    public let samples: [UInt8]

    /// The companion `width`×`height` with `bands` samples a pixel.
    public init(width: Int, height: Int, bands: Int, samples: [UInt8]) {
        self.width = width
        self.height = height
        self.bands = bands
        self.samples = samples
    }

    /// The reference sample of `band` at output pixel `(column, row)` of
    /// `crop`, a crop of the photo (its frame's image size) at the
    /// companion's output size.
    public func sample(_ crop: StraightenedCrop, column: Int, row: Int, band: Int = 0) -> Double {
        let photo = crop.frame.imageSize
        let q = crop.samplePosition(column: column, row: row)
        let x = q.x * Double(width) / Double(photo.width) - 0.5
        let y = q.y * Double(height) / Double(photo.height) - 0.5
        let (fx, fy) = (x.rounded(.down), y.rounded(.down))
        let (tx, ty) = (x - fx, y - fy)
        func at(_ x: Int, _ y: Int) -> Double {
            let cx = min(max(x, 0), width - 1)
            let cy = min(max(y, 0), height - 1)
            return Double(samples[(cy * width + cx) * bands + band])
        }
        let (x0, y0) = (Int(fx), Int(fy))
        return (at(x0, y0) * (1 - tx) + at(x0 + 1, y0) * tx) * (1 - ty)
            + (at(x0, y0 + 1) * (1 - tx) + at(x0 + 1, y0 + 1) * tx) * ty
    }

    /// `crop` (of the photo, any output size) at the size of `cut`.
    public static func atSize(_ crop: StraightenedCrop, of cut: (width: Int, height: Int))
        throws -> StraightenedCrop
    {
        try StraightenedCrop(
            frame: crop.frame, rect: crop.rect,
            outputSize: PixelSize(width: cut.width, height: cut.height))
    }

    /// The differences of every sample of `cut` (`bands` samples a pixel,
    /// `band` of them compared, or all when `nil`) from the reference for
    /// `crop` at the cut's size, sorted; `shift` compares each pixel with
    /// the reference that many columns to the right (clamped): a misplaced
    /// cut is nearer a shifted reference.
    public func differences(
        of cut: (width: Int, height: Int, samples: [UInt8]), bands: Int, band: Int? = nil,
        crop: StraightenedCrop, shift: Int = 0
    ) throws -> [Double] {
        let scaled = try Self.atSize(crop, of: (cut.width, cut.height))
        var found: [Double] = []
        found.reserveCapacity(cut.width * cut.height * bands)
        for j in 0..<cut.height {
            for i in 0..<cut.width {
                let column = min(i + shift, cut.width - 1)
                for b in band.map({ [$0] }) ?? Array(0..<bands) {
                    let reference = sample(
                        scaled, column: column, row: j, band: min(b, self.bands - 1))
                    found.append(
                        abs(Double(cut.samples[(j * cut.width + i) * bands + b]) - reference))
                }
            }
        }
        return found.sorted()
    }
}
