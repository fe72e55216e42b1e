import CropImaging

/// The options that choose and tune the output format, shared by the
/// commands that write crops (`crop`, `batch`): the format by the output's
/// extension or `--format`, the PNG compression, and the JPEG rules.
enum OutputOptions {
    static let specs: [OptionSpec] =
        [
            OptionSpec(
                name: "format", value: "FORMAT",
                help: "png, jpeg, heic or webp (default: from OUT's extension; required with -o -)"),
            OptionSpec(
                name: "lossless", value: nil,
                help:
                    "JPEG from JPEG, HEIC from HEIC: refuse a crop that is not lossless in full (exit 1, naming the nearest lossless rects); WebP: lossless VP8L whatever the source"
            ),
            OptionSpec(
                name: "snap-to-blocks", value: nil,
                help:
                    "JPEG from JPEG, HEIC from HEIC: grow the rect outward to the source's block (HEIC: tile) grid, so the crop is lossless"
            ),
            OptionSpec(
                name: "quality", value: "Q",
                help:
                    "JPEG: re-encode at quality 1-100 (default: a JPEG's own tables; 92 otherwise); HEIC: the edge tiles' quality (default 80); WebP: lossy VP8 at Q (default: lossless from a lossless source, a lossy WebP's own quality, 90 otherwise)"
            ),
            OptionSpec(
                name: "strip", value: "WHAT",
                help:
                    "location (GPS), people (face regions and the names of people) or all (every tag but the colour profile); repeatable",
                repeatable: true),
            OptionSpec(
                name: "companions", value: "WHAT",
                help:
                    "keep (default): cut the images recorded beside the photo (HDR gain maps, depth, mattes, the other eye) to the crop, each on its own grid, where the output carries them (HEIC from HEIC; AVIF from AVIF, resampled with a resized or straightened crop; JPEG: a gain map, a depth map, the other eye), dropping the rest with a line saying why; drop: drop them all"
            ),
            OptionSpec(
                name: "gain-map", value: "WHAT",
                help: "the old name of --companions: crop is keep, drop is drop"),
            OptionSpec(
                name: "keep-makernote", value: nil,
                help:
                    "JPEG, HEIC, WebP: keep the EXIF MakerNote (it may hold a preview of the whole photo)"
            ),
        ] + CompressionOptions.specs

    /// The format for `output` (a path, or `-`) from its extension and the
    /// flags; a mismatch, an unknown extension, or `-` without `--format`
    /// is a usage error naming the choices.
    ///
    /// With `mixed` (a batch, whose lines write both formats), a flag for
    /// the other format is not an error: it applies to the lines it fits.
    static func format(
        for output: String, _ parsed: ParsedArguments, threads: Int? = nil, mixed: Bool = false
    )
        throws(UsageError) -> OutputFormat
    {
        // The registered formats, as the messages name them.
        let choices = ImageFormat.listing(
            OutputFormat.choices.map { format in
                "\(format.name) (\(format.extensions.map { "." + $0 }.joined(separator: ", ")))"
            })
        var name = parsed.values["format"]?.lowercased()
        if let given = name, OutputFormat(name: given) == nil {
            throw UsageError(message: "unknown --format '\(given)'; use \(choices)")
        }
        name = name.flatMap { OutputFormat(name: $0)?.name }
        if output == "-" {
            guard name != nil else {
                throw UsageError(
                    message: "-o - needs "
                        + ImageFormat.listing(OutputFormat.names.map { "--format \($0)" }))
            }
        } else {
            let pathExtension = try checkOutputPath(
                output, extensions: OutputFormat.extensions,
                format: ImageFormat.listing(
                    OutputFormat.names.map { OutputFormat.displayName(of: $0) }))
            let byExtension = OutputFormat(name: pathExtension)?.name
            if let name, let byExtension, name != byExtension {
                throw UsageError(
                    message:
                        "--format \(name) does not match -o \(output) (a .\(pathExtension) file is \(byExtension)); use \(choices)"
                )
            }
            name = name ?? byExtension
        }
        var settings = EncoderSettings()
        settings.compression = try CompressionOptions.encoder(parsed, threads: threads)
        settings.metadata = try metadataPolicy(parsed)
        guard let name, let chosen = OutputFormat(name: name, settings: EncoderSettings()) else {
            preconditionFailure("a checked output has a format")
        }
        // A flag for a format this output is not is a usage error (a batch,
        // whose lines write several formats, applies it where it fits).
        let given: [(flag: String, setting: EncoderSetting)] =
            [
                ("lossless", .lossless), ("snap-to-blocks", .snapsToBlocks),
                ("keep-makernote", .keepMakerNote),
            ].filter { parsed.flags.contains($0.0) }
            + [("quality", .quality), ("compressor", .compression), ("level", .compression)]
            .filter { parsed.values[$0.0] != nil }
        if !mixed, let wrong = given.first(where: { !chosen.accepts.contains($0.setting) }) {
            let takers = OutputFormat.names(accepting: wrong.setting).map {
                OutputFormat.displayName(of: $0)
            }
            throw UsageError(
                message:
                    "--\(wrong.flag) is for \(ImageFormat.listing(takers)) output; this output is \(chosen.displayName)"
            )
        }
        if parsed.flags.contains("lossless") && parsed.flags.contains("snap-to-blocks") {
            throw UsageError(
                message:
                    "--lossless and --snap-to-blocks do not go together: one refuses, the other grows the rect"
            )
        }
        if let text = parsed.values["quality"] {
            guard let value = Int(text), (1...100).contains(value) else {
                throw UsageError(
                    message: "--quality must be a whole number from 1 to 100, not '\(text)'")
            }
            if parsed.flags.contains("lossless") {
                throw UsageError(message: "--quality re-encodes; it does not go with --lossless")
            }
            settings.quality = value
        }
        settings.lossless = parsed.flags.contains("lossless")
        settings.snapsToBlocks = parsed.flags.contains("snap-to-blocks")
        guard let format = OutputFormat(name: name, settings: settings) else {
            preconditionFailure("a checked output has a format")
        }
        return format
    }

    /// The metadata policy of `--strip` and `--keep-makernote`.
    static func metadataPolicy(_ parsed: ParsedArguments) throws(UsageError) -> MetadataPolicy {
        var policy = MetadataPolicy(keepMakerNote: parsed.flags.contains("keep-makernote"))
        if parsed.values["gain-map"] != nil && parsed.values["companions"] != nil {
            throw UsageError(
                message: "--gain-map is the old name of --companions: give --companions alone")
        }
        switch (parsed.values["companions"], parsed.values["gain-map"]) {
        case (nil, nil): break
        case ("keep"?, _), (_, "crop"?): policy.companions = .keep
        case ("drop"?, _), (_, "drop"?): policy.companions = .drop
        case (let other?, _):
            throw UsageError(message: "unknown --companions '\(other)'; use keep or drop")
        case (_, let other?):
            throw UsageError(
                message:
                    "unknown --gain-map '\(other)'; use crop or drop (or --companions keep or drop)"
            )
        }
        for what in parsed.repeated["strip"] ?? [] {
            switch what {
            case "location", "gps": policy.stripLocation = true
            case "people": policy.stripPeople = true
            case "all": policy.stripAll = true
            default:
                throw UsageError(message: "unknown --strip '\(what)'; use location, people or all")
            }
        }
        return policy
    }
}

/// `--format` of `verify` and `replay --export`: the format the checked
/// crops are made in.
enum ExportFormatOption {
    /// The verifier of `name` ("png", "jpeg", "jpg", "webp", "avif"): `nil`
    /// for PNG (the two PNG fixtures); the list is the library's
    /// (``FormatExportVerifiers``).
    static func verifier(_ name: String) throws(UsageError) -> (any FormatExportVerifier.Type)? {
        if FormatExportVerifiers.checksFixturesThemselves(name) { return nil }
        guard let verifier = FormatExportVerifiers.verifier(named: name) else {
            throw UsageError(
                message:
                    "unknown --format '\(name)'; use \(ImageFormat.listing(FormatExportVerifiers.names))"
            )
        }
        return verifier
    }
}
