import CropGeometry

/// Where the places a photo's metadata names (DESIGN.md, "Coordinates in
/// metadata") land in a crop's output, in the output's own stored grid:
/// an output written upright (its pixels encoded again, orientation 1)
/// takes them through the crop's whole transform (``PlaceMapping``); one
/// that keeps the source's stored pixels and orientation (a lossless JPEG
/// crop, a HEIF crop of copied tiles) moves them by the stored rect's
/// offset.
struct CropPlaces: Hashable, Sendable {
    /// The photo as seen into the upright output.
    let upright: PlaceMapping
    /// The stored photo into the stored rect, as stored.
    let asStored: PlaceMapping
    /// Whether the crop is plain (neither resized nor straightened): its
    /// places move by whole pixels.
    let isPlain: Bool
    /// The crop's stored rect in the photo's stored pixels.
    let storedRect: PixelRect<StoredPixels>

    /// The places of `plan`'s crop.
    init(_ plan: CropPlan) {
        self.init(result: plan.result, resampling: plan.resampling?.crop)
    }

    /// The places of the crop `result`, resampled by `resampling` if given.
    init(result: CropResult, resampling: StraightenedCrop?) {
        upright = resampling.map { PlaceMapping($0) } ?? PlaceMapping(result)
        isPlain = resampling == nil
        let stored = result.stored
        storedRect = stored
        asStored = PlaceMapping(
            CropResult(
                rect: PixelRect(
                    x: stored.x, y: stored.y, width: stored.width, height: stored.height),
                orientation: .up, sourceSize: result.sourceSize))
    }

    /// The places of a plain crop `rect` of an upright photo of `photo`
    /// stored pixels: for tests of the cleaners.
    static func forTesting(photo: PixelSize<StoredPixels>, rect: PixelRect<ImagePixels>)
        -> CropPlaces
    {
        CropPlaces(
            result: CropResult(rect: rect, orientation: .up, sourceSize: photo), resampling: nil)
    }

    /// `place`, in the source's stored pixels, in the output's stored
    /// pixels: through the orientation into the upright output, or (the
    /// output keeping the stored grid, `keepsStoredGrid`) by the offset.
    func map(stored place: Place<StoredPixels>, keepsStoredGrid: Bool) -> MappedPlace {
        keepsStoredGrid ? asStored.map(stored: place) : upright.map(stored: place)
    }

    /// The output's stored size.
    func outputSize(keepsStoredGrid: Bool) -> PixelSize<OutputPixels> {
        keepsStoredGrid ? asStored.outputSize : upright.outputSize
    }
}

extension CropPlan {
    /// `policy` with this crop's places, so that the metadata cleaners map
    /// the coordinates a photo's metadata names (``CropPlaces``).
    func placing(_ policy: MetadataPolicy) -> MetadataPolicy {
        var placed = policy
        placed.places = CropPlaces(self)
        return placed
    }
}
