import CropGeometry

/// Where an image file says it was taken: the personal data a crop keeps by
/// default (``MetadataPolicy/stripLocation`` removes it), found by reading
/// the written file back, so that a report can say so. "leaks: clean" is
/// about pixels beyond the rect; a crop that is clean may still hold the
/// photo's location.
public enum LocationCheck {
    /// The places in `source` that hold a location: "EXIF GPS (7 tags)"
    /// (a GPS block of more than its version), "XMP exif:GPSLatitude,
    /// exif:GPSLongitude" (any location property of the schemas
    /// ``XMPLocation`` knows); empty when there are none.
    ///
    /// - Throws: ``ImagingError`` when the file cannot be read.
    public static func places(in source: ImageSource) throws(ImagingError) -> [String] {
        try source.metadata().locations
    }
}
