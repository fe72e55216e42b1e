import CropRecords

/// C2PA content credentials (a manifest store in JUMBF): a signed claim
/// whose hard binding hashes the original file's bytes. A crop changes
/// those bytes, so a carried manifest would read as tampered, and those
/// made by cameras and editors hold a thumbnail of the whole photo: a crop
/// removes it, and its report names it for what it is (DESIGN.md,
/// "Output formats and metadata").
///
/// Where each format keeps it (C2PA 2.x, appendix A; c2pa-rs's asset
/// handlers): JPEG APP11 segments (JPEG XT JUMBF, `JP`), PNG's `caBX`
/// chunk, WebP's `C2PA` chunk, and in HEIF and AVIF a top-level `uuid`
/// box of ``bmffUUID``.
enum ContentCredentials {
    /// What a report says of a removed manifest.
    static let reason =
        "C2PA content credentials: their signature binds the uncropped pixels, so they cannot stay true (and may hold a thumbnail of the whole photo)"

    /// How a report names the removed manifest: "APP11 C2PA", "caBX chunk
    /// (C2PA)".
    static func segment(_ place: String) -> String { "\(place) (C2PA)" }

    /// The JUMBF description box's UUID of a C2PA manifest store
    /// (`63327061-0011-0010-8000-00AA00389B71`, "c2pa" then the ISO suffix).
    static let storeUUID: [UInt8] = [
        0x63, 0x32, 0x70, 0x61, 0x00, 0x11, 0x00, 0x10, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B,
        0x71,
    ]

    /// The user type of the top-level `uuid` box that holds a HEIF's or
    /// AVIF's manifest (`D8FEC3D6-1B0E-483C-9297-5828877EC481`).
    static let bmffUUID: [UInt8] = [
        0xD8, 0xFE, 0xC3, 0xD6, 0x1B, 0x0E, 0x48, 0x3C, 0x92, 0x97, 0x58, 0x28, 0x87, 0x7E, 0xC4,
        0x81,
    ]

    /// Whether `bytes` (a segment's or chunk's first bytes) hold a C2PA
    /// manifest store: the store's UUID within them.
    static func holdsManifest(_ bytes: some Collection<UInt8>) -> Bool {
        Array(bytes.prefix(4096)).firstRange(of: storeUUID) != nil
    }

    /// `info`'s line for a manifest found at `place`: what it is and what a
    /// crop does with it; for `--json`, `{container, count, bytes, crop,
    /// summary}`: the container's name ("APP11", "C2PA chunk", "caBX
    /// chunk", "uuid box"), how many of them and their bytes (`null` where
    /// not measured), and `"removed"`.
    static func detail(
        _ place: String, container: String, count: Int = 1, bytes: Int?
    ) -> ImageFileSummary.Detail {
        let text =
            "content credentials (\(place)): removed by a crop, whose pixels they cannot bind"
        return .init(
            "contentCredentials", label: "C2PA",
            .typed(
                .object([
                    .init("container", .string(container)), .init("count", .number(count)),
                    .init("bytes", bytes.map { .number($0) } ?? .null),
                    .init("crop", .string("removed")), .init("summary", .string(text)),
                ]), text: text))
    }
}
