import CropGeometry
import CropRecords

/// How `info` lists an image a file records beside its photo: what it is,
/// its size, its grid's scale against the photo (the companion rule's
/// `sx`, `sy`), and what a crop does with it.
enum CompanionListing {
    /// What a crop into one output format does with a companion, as
    /// `info --json` gives it in `outputs`.
    enum Action: String {
        /// Cut on its own grid (the companion rule).
        case cut
        /// Cut on its own grid and carried in the output's own container
        /// (a HEIC's gain map into a JPEG's MPF).
        case carried
        /// Not written.
        case dropped
        /// Removed: an image of the whole photo, which no crop may carry.
        case removed
    }

    /// A companion's `kind` by its `auxC` role: `gainMap`, `depthMap`,
    /// `matte` or `auxiliary`.
    static func kind(ofRole role: String) -> String {
        let lower = role.lowercased()
        if lower.hasSuffix("hdrgainmap") { return "gainMap" }
        if lower.contains("depth") || lower.hasSuffix("auxid:2") { return "depthMap" }
        if lower.contains("matte") { return "matte" }
        return "auxiliary"
    }

    /// The output formats in the order `outputs` lists them.
    static let outputFormats = ["heic", "avif", "jpeg", "png", "webp"]

    /// "WHAT WxH, scale SX x SY: CROP" (or "not aligned …" where its aspect
    /// ratio is more than 1 % off the photo's) for people, and for programs
    /// `{kind, type, item, size, scale, aligned, outputs, resampled,
    /// problem, summary}`: `outputs` names what each output format does
    /// with it (``Action``), `resampled` whether a turned, resized or
    /// straightened crop resamples it rather than drops it. One with a
    /// `problem`, or off the photo's grid, is `otherwise` in every output.
    static func entry(
        _ what: String, kind: String, type: String, item: Int? = nil,
        size: PixelSize<StoredPixels>, photo: PixelSize<StoredPixels>,
        outputs: [String: Action], resampled: Bool = false, problem: String? = nil,
        otherwise: Action = .dropped, crop: String
    ) -> ImageFileSummary.Detail.Entry {
        let grid = CompanionGrid(imageSize: photo, companionSize: size)
        let aligned = grid?.isAligned == true
        let problem =
            problem
            ?? (grid == nil
                ? "no grid beside the photo" : aligned ? nil : "not aligned to the photo")
        var members: [JSONValue.Member] = [
            .init("kind", .string(kind)), .init("type", .string(type)),
            .init("item", item.map { .number($0) } ?? .null),
            .init(
                "size",
                .object([
                    .init("width", .number(size.width)), .init("height", .number(size.height)),
                ])),
            .init(
                "scale",
                grid.map {
                    .object([
                        .init("x", .number(($0.scaleX * 1000).rounded() / 1000)),
                        .init("y", .number(($0.scaleY * 1000).rounded() / 1000)),
                    ])
                } ?? .null),
            .init("aligned", .bool(aligned)),
        ]
        let kept = aligned && problem == nil
        members.append(
            .init(
                "outputs",
                .object(
                    outputFormats.map {
                        .init($0, .string((kept ? outputs[$0] ?? .dropped : otherwise).rawValue))
                    })))
        members.append(.init("resampled", .bool(kept && resampled)))
        members.append(.init("problem", problem.map { .string($0) } ?? .null))
        let text = line(what, size: size, photo: photo, crop: crop)
        members.append(.init("summary", .string(text)))
        return .init(text, .object(members))
    }

    /// The entry of a companion said as `text` whose size is not read
    /// (a stereo pair's other eye, a tone-mapped rendition): `outputs` as
    /// in the other entry, every output `dropped` when it has a `problem`.
    static func entry(
        _ text: String, kind: String, type: String, item: Int?, outputs: [String: Action],
        problem: String? = nil
    ) -> ImageFileSummary.Detail.Entry {
        .init(
            text,
            .object([
                .init("kind", .string(kind)), .init("type", .string(type)),
                .init("item", item.map { .number($0) } ?? .null), .init("size", .null),
                .init("scale", .null), .init("aligned", .bool(problem == nil)),
                .init(
                    "outputs",
                    .object(
                        outputFormats.map {
                            .init(
                                $0,
                                .string(
                                    (problem == nil ? outputs[$0] ?? .dropped : .dropped)
                                        .rawValue))
                        })),
                .init("resampled", .bool(false)),
                .init("problem", problem.map { .string($0) } ?? .null),
                .init("summary", .string(text)),
            ]))
    }

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
