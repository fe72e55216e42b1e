import CropRecords

/// How `info` lists a place the metadata names in the picture (DESIGN.md,
/// "Coordinates in metadata"): a phrase for people and, for `--json`,
/// `{field, name, shape, values, space, crop, summary}`.
enum MetadataPlace {
    /// The entry of a place: `field` the tag or property family ("EXIF
    /// SubjectArea", "XMP MWG region"); `name` a region's name; `shape`
    /// `point`, `circle`, `rectangle` or `polygon` (`nil` where it cannot
    /// be read); `values` as stored (EXIF's centre and size; XMP's
    /// top-left and size, a circle's centre and radius, a polygon's
    /// vertices x, y in turn); `space` `storedPixels`, `normalized` or
    /// `relative`; `crop` `mapped` or `removed`.
    static func entry(
        _ text: String, field: String, name: String? = nil, shape: String?, values: [Double],
        space: String?, crop: String
    ) -> ImageFileSummary.Detail.Entry {
        .init(
            text,
            .object([
                .init("field", .string(field)), .init("name", name.map { .string($0) } ?? .null),
                .init("shape", shape.map { .string($0) } ?? .null),
                .init("values", .array(values.map { .number($0) })),
                .init("space", space.map { .string($0) } ?? .null),
                .init("crop", .string(crop)), .init("summary", .string(text)),
            ]))
    }
}
