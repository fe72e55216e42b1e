import CropGeometry

/// How `info` lists an image a file records beside its photo: what it is,
/// its size, its grid's scale against the photo (the companion rule's
/// `sx`, `sy`), and what a crop does with it.
enum CompanionListing {
    /// "WHAT WxH, scale SX x SY: CROP" (or "not aligned …" where its aspect
    /// ratio is more than 1 % off the photo's).
    static func line(
        _ what: String, size: PixelSize<StoredPixels>, photo: PixelSize<StoredPixels>,
        crop: String
    ) -> String {
        guard let grid = CompanionGrid(imageSize: photo, companionSize: size) else {
            return "\(what) \(size): no grid beside the \(photo) photo, dropped by a crop"
        }
        func scale(_ value: Double) -> String {
            let rounded = (value * 1000).rounded() / 1000
            return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        }
        let scales = "scale \(scale(grid.scaleX)) x \(scale(grid.scaleY))"
        guard grid.isAligned else {
            let off = (grid.aspectMismatch * 1000).rounded() / 10
            return
                "\(what) \(size), \(scales): not aligned to the photo (aspect \(off) % off), dropped by a crop"
        }
        return "\(what) \(size), \(scales): \(crop)"
    }
}
