import CropGeometry
import CropImaging
import CropRecords

/// `cropkit crop`: cuts the selected pixels out of an image, losslessly.
struct CropCommand: Subcommand {
    static let name = "crop"
    static let summary =
        "crop an image to a pixel rect or a view selection, losslessly, as \(formats)"
    /// The output formats, as the registry holds them: "PNG, JPEG, HEIC,
    /// WebP or AVIF".
    static let formats = ImageFormat.listing(OutputFormat.displayNames)
    static let usage = """
        Usage: cropkit crop INPUT -o \(OutputFormat.choices.map { "OUT." + ($0.extensions.first ?? $0.name) }.joined(separator: "|")) (--pixels X,Y,W,H | --viewport WxH --selection X,Y,W,H [mapping options] | --angle DEG --inside) [--angle DEG] [--size WxH | --fit WxH | --width W | --height H]

        Cuts a rectangle out of INPUT (\(formats)) and writes it as
        \(formats) (by OUT's extension, or --format). As PNG, without
        changing a pixel.
        As JPEG from a JPEG: lossless in the DCT domain when the rect's top-left
        corner lies on the source's block grid (8 or 16 px; the stored pixels
        are cut and the EXIF orientation kept), with any right or bottom edge
        block that would hide pixels beyond the rect re-encoded; elsewhere the
        exact rect re-encoded with the source's own tables. --lossless refuses
        anything less, --snap-to-blocks grows the rect to the grid. Metadata
        that stays true is kept and rewritten (EXIF dimensions, ICC, XMP); what
        shows the whole photo is removed (EXIF thumbnail, MPF gain and depth
        maps, MakerNote, previews, bytes after the image).

        From a HEIC (an iPhone photo), only the tiles the crop touches are
        decoded; its irot/imir make the orientation (the EXIF orientation inside
        a HEIF is not applied). As HEIC from a HEIC: the touched tiles are copied
        byte for byte into a smaller grid with a clean aperture (clap) cutting
        the exact rect, the orientation kept; an edge tile that would hide
        pixels beyond the rect is decoded, those pixels replaced by the rect's
        edge, and encoded again (--quality, default 80). --lossless refuses
        that, --snap-to-blocks grows the rect to the tile grid. Thumbnails,
        the HDR gain map, depth and other auxiliary images are dropped.

        An AVIF is read as a HEIC is (the same container): only the touched
        tiles are decoded (by libavif with dav1d, or libheif), and as AVIF from
        a grid AVIF the touched tiles are copied and the edge tiles encoded
        again, as above; from anything else the crop is encoded whole (aom,
        --quality, default 80). From a WebP, libwebp decodes only the rows and
        columns the crop needs, and its EXIF orientation applies as a JPEG's;
        an animation (GIF, APNG, WebP) is cut frame by frame into GIF, APNG
        (.png) or WebP, the timeline kept (--angle, --width, --fit, --circle
        make each displayed frame as they make a still, and write the frames
        losslessly), or --frame N takes one frame. As WebP: lossless (VP8L) from a lossless
        source (PNG, lossless WebP, AVIF or HEIC, as its bitstream says),
        lossy (VP8) from a lossy source at that source's quality (90 from a
        JPEG, HEIC or AVIF); --quality and --lossless choose. In every format the EXIF
        orientation is reset, the dimensions set, the ICC profile kept and
        thumbnails removed.

        As PNG from a PNG, the output keeps the colour type, bit depth (1 to 16),
        palette, tRNS and colour chunks (gAMA, cHRM, sRGB, iCCP, cICP). As PNG
        from a JPEG it holds the decoded 8-bit gray or RGB pixels, turned upright
        for the file's EXIF orientation (the crop alone is turned, never the whole
        photo), with the embedded ICC profile as iCCP. Give the rect in pixels of
        the image as seen (--pixels), or as a selection in a view, mapped exactly
        as 'cropkit map' maps it against the image as seen (the size and
        orientation are read from the file; --orientation overrides the file's).
        Only the rows and columns the crop needs are decoded.

        The output is written to a temporary file in the same folder and renamed
        into place: it is complete or absent, never half-written. With -o - the
        PNG is made in memory, then written whole to standard output (and the
        report to standard error); a failure writes nothing. An existing
        output is replaced only with --force; the input is never the output.
        Straighten and resize (\(ImageFormat.listing(OutputFormat.resampledDisplayNames)) out): --angle turns the image by DEG
        degrees, positive clockwise as seen, about its centre; the selection
        (or --pixels, then a rect of the turned frame) is the output rect, and
        where it reaches beyond the turned image the output is --fill.
        --inside crops the largest rect inside the turned image instead (of
        --aspect P:Q if given), as the Photos app does: no fill. --size, --fit,
        --width and --height resize the crop. Each output pixel samples the
        image at the position the contract gives (nearest, bilinear or
        Lanczos-3 widened by the reduction; samples as stored, not linear
        light). With no angle and a size equal to the rect's own, the crop
        stays lossless.

        Variants: -o may be given several times, each followed by its own
        region, size and format options (options before the first -o apply to
        every output): e.g. --width 1080 -o square.jpg --inside --aspect 1:1
        -o portrait.jpg --inside --aspect 4:5 (--inside without --angle is the
        largest centred rect of the ratio). The photo is decoded once, for the
        union of what the turned or resized outputs read. What governs that one
        decode or the whole run (the limits --max-pixels and the like, --inflater,
        --lenient,
        --force, --json, --quiet) goes before the first -o; after one it is a
        usage error. --max-variants (default 64) caps the outputs of one run,
        and every output's memory counts against --max-memory together.

        Exit codes: 0 written, 1 the selection covers no pixel, 2 unreadable or
        corrupt input or the output could not be written, 64 usage (including an
        existing output without --force).
        """
    static let options: [OptionSpec] =
        [
            OptionSpec(
                name: "frame", value: "N",
                help:
                    "an animation (GIF, APNG, animated WebP): crop frame N (from 0) as a still, in any output format"
            ),
            OptionSpec(
                name: "output", value: "OUT.png",
                help:
                    "the file to write (\(OutputFormat.choices.map { "." + ($0.extensions.first ?? $0.name) }.joined(separator: ", "))); - for standard output; repeat for variants",
                short: "o", repeatable: true),
            OptionSpec(
                name: "max-variants", value: "N",
                help:
                    "refuse more than N outputs (-o) in one run (default \(maxVariantsDefault))"),
            OptionSpec(
                name: "pixels", value: "X,Y,W,H",
                help: "the rect to keep, in pixels of the image as seen"),
            OptionSpec(
                name: "clamp", value: nil,
                help: "cut a --pixels rect partly outside the image to the part inside"),
        ] + MappingOptions.viewSpecs(orientationDefault: "the file's own") + [
            .force("replace OUT.png if it exists"),
            OptionSpec(
                name: "ignore-orientation", value: nil,
                help: "treat a JPEG's pixels as upright, whatever its EXIF orientation"),
        ] + ResampleOptions.specs + ImageOptions.specs + OutputOptions.specs + [
            .json("print a JSON report of the mapping and the written file"),
            .quiet,
        ]

    /// The most outputs one run writes unless --max-variants says more (a
    /// batch line's variants are held to the same).
    static let maxVariantsDefault = BatchOptions.defaultMaxVariants

    var input: String
    var output: String
    var job: CropJob
    var force: Bool
    var json: Bool
    var image: ImageOptions
    /// With several `-o`: every output and its job (the first is
    /// ``output`` and ``job``); empty for one output.
    var variants: [(output: String, job: CropJob)] = []
    /// `--frame N`: one frame of an animation, as a still.
    var frame: Int?
    /// Whether the output is a GIF (written by the animation path).
    var gifOutput = false

    init(_ parsed: ParsedArguments) throws(UsageError) {
        let outputs = parsed.repeated["output"] ?? []
        let maxVariants = try positiveInteger(parsed, "max-variants") ?? Self.maxVariantsDefault
        guard outputs.count <= maxVariants else {
            throw UsageError(
                message:
                    "\(outputs.count) outputs (-o) are more than --max-variants \(maxVariants): each holds its file, encoder and rows at once; raise --max-variants or split the run"
            )
        }
        if outputs.count > 1 {
            // Variants: options before the first -o apply to every output;
            // those after an -o, to that output (and replace a shared one).
            var shared: [(name: String, value: String?)] = []
            var groups: [[(name: String, value: String?)]] = []
            for option in parsed.ordered {
                if option.name == "output" {
                    groups.append([option])
                } else if groups.isEmpty {
                    shared.append(option)
                } else {
                    groups[groups.count - 1].append(option)
                }
            }
            // What the one decode of INPUT and the run as a whole take:
            // never one output's own (given after an -o it would silently
            // apply to none, or to the first alone).
            let perOutputOnly =
                Set(["force", "json", "quiet", "max-variants"]).union(
                    ImageOptions.specs.map(\.name))
            var made: [(output: String, job: CropJob)] = []
            var first: CropCommand?
            for group in groups {
                if let flag = group.first(where: { perOutputOnly.contains($0.name) }) {
                    throw UsageError(
                        message:
                            "--\(flag.name) applies to the run and the one decode of INPUT, not to one output: give it before the first -o"
                    )
                }
                let names = Set(group.map(\.name))
                var tokens: [String] = []
                for option in shared where !names.contains(option.name) {
                    tokens += ["--" + option.name] + (option.value.map { [$0] } ?? [])
                }
                for option in group {
                    tokens += ["--" + option.name] + (option.value.map { [$0] } ?? [])
                }
                let one = try CropCommand(
                    ParsedArguments(tokens + ["--"] + parsed.positionals, specs: Self.options))
                if first == nil { first = one }
                made.append((one.output, one.job))
            }
            let paths = made.map(\.output)
            let twice = paths.first { path in paths.filter { $0 == path }.count > 1 }
            if let repeatedPath = twice {
                throw UsageError(message: "-o \(repeatedPath) is given for two variants")
            }
            if paths.contains("-") {
                throw UsageError(message: "variants are written to files: -o - is for one output")
            }
            guard let first else { throw UsageError(message: "missing -o OUT.png") }
            self = first
            variants = made
            return
        }
        guard parsed.positionals.count == 1 else {
            throw UsageError(
                message: parsed.positionals.isEmpty ? "missing INPUT" : "expected one INPUT file")
        }
        input = parsed.positionals[0]
        guard let output = parsed.values["output"] else {
            throw UsageError(message: "missing -o OUT.png")
        }
        self.output = output
        if let text = parsed.values["frame"] {
            guard let value = Int(text), value >= 0 else {
                throw UsageError(message: "--frame must be a whole number from 0, not '\(text)'")
            }
            frame = value
        }
        let lowered = output.lowercased()
        gifOutput = lowered.hasSuffix(".gif") || parsed.values["format"]?.lowercased() == "gif"
        let viewFlags = [
            "viewport", "selection", "mode", "image-scale", "zoom", "offset", "aspect",
        ]
        var region: CropJob.Region
        var orientation: EXIFOrientation?
        let resampling = try ResampleOptions.resampling(parsed)
        if parsed.flags.contains("inside") {
            if let flag = (["pixels"] + viewFlags.filter { $0 != "aspect" }).first(where: {
                parsed.values[$0] != nil
            }) {
                throw UsageError(
                    message:
                        "--inside and --\(flag) do not go together: --inside chooses the rect itself"
                )
            }
            var aspect: AspectChoice?
            if let text = parsed.values["aspect"] {
                guard let parsedAspect = AspectChoice(parsing: text) else {
                    throw UsageError(
                        message:
                            "--aspect must be P:Q with positive whole numbers or source, not '\(text)'"
                    )
                }
                aspect = parsedAspect
            }
            region = .largestInside(aspect: aspect)
        } else if let pixels = parsed.values["pixels"] {
            if let flag = viewFlags.first(where: { parsed.values[$0] != nil }) {
                throw UsageError(
                    message:
                        "--pixels and --\(flag) do not go together: give a pixel rect or a view selection"
                )
            }
            let p = try numbers(
                pixels, separator: ",", count: 4, option: "pixels", shape: "X,Y,W,H")
            // One rule for every malformed rect, whichever number is wrong:
            // whole numbers, x and y from 0 (negative ones only with
            // --clamp), a positive width and height.
            let clamp = parsed.flags.contains("clamp")
            // A rect of the turned frame may start left of or above it.
            let turned = resampling.angle != 0
            guard p.allSatisfy({ $0 == $0.rounded() && abs($0) < 1e9 }), p[2] > 0, p[3] > 0,
                clamp || turned || (p[0] >= 0 && p[1] >= 0)
            else {
                throw UsageError(
                    message:
                        "--pixels must be whole numbers X,Y,W,H with x and y from 0 (negative only with --clamp) and a positive width and height, not '\(pixels)'"
                )
            }
            region = .pixels(
                PixelRect(x: Int(p[0]), y: Int(p[1]), width: Int(p[2]), height: Int(p[3])))
            if let text = parsed.values["orientation"] {
                guard let value = Int(text), let given = EXIFOrientation(rawValue: value) else {
                    throw UsageError(
                        message: "--orientation must be a whole number from 1 to 8, not '\(text)'")
                }
                orientation = given
            }
        } else if parsed.values["selection"] != nil || parsed.values["viewport"] != nil {
            if parsed.flags.contains("clamp") {
                throw UsageError(
                    message:
                        "--clamp is for --pixels; a view selection is always clipped to the image")
            }
            let mapping = try MappingOptions(parsed, sourceFromFile: true)
            region = .view(mapping.request, aspect: mapping.aspect)
            if mapping.orientationGiven { orientation = mapping.request.orientation }
        } else {
            throw UsageError(
                message:
                    "give --pixels X,Y,W,H, --viewport WxH --selection X,Y,W,H, or --angle DEG --inside"
            )
        }
        if parsed.flags.contains("ignore-orientation") {
            guard orientation == nil else {
                throw UsageError(
                    message: "--ignore-orientation and --orientation do not go together")
            }
            orientation = .up
        }
        force = parsed.flags.contains("force")
        json = parsed.flags.contains("json")
        image = try ImageOptions(parsed)
        var formatArguments = parsed
        if gifOutput {
            // A GIF is written by the animation path; the plan is made as for PNG.
            formatArguments.values["format"] = nil
        }
        job = CropJob(
            region: region, orientation: orientation,
            format: try OutputOptions.format(
                for: gifOutput || lowered.hasSuffix(".apng")
                    ? String(output.dropLast(lowered.hasSuffix(".apng") ? 5 : 4)) + ".png" : output,
                formatArguments),
            lenient: image.lenient)
        job.clampsToImage = parsed.flags.contains("clamp")
        job.resampling = resampling
        if resampling.angle != 0 || resampling.size != nil || parsed.flags.contains("inside")
            || resampling.ellipse
        {
            if !job.format.writesResampledCrops {
                throw UsageError(
                    message:
                        "a turned or resized crop is written as \(ImageFormat.listing(OutputFormat.resampledDisplayNames)), not \(job.format.displayName) (every tile would be encoded again); use -o \(OutputFormat.choices.filter { OutputFormat.resampledDisplayNames.contains(OutputFormat.displayName(of: $0.name)) }.map { "OUT." + ($0.extensions.first ?? $0.name) }.joined(separator: ", "))"
                )
            }
            if let flag = ["lossless", "snap-to-blocks", "clamp"].first(where: {
                parsed.flags.contains($0)
            }), resampling.angle != 0 || parsed.flags.contains("inside") {
                throw UsageError(
                    message: "--\(flag) is for an unturned crop; a turned crop is resampled")
            }
        }
    }

    func run(console: Console) -> Int32 {
        if !variants.isEmpty { return runVariants(console: console) }
        do throws(ImagingError) {
            var source: ImageSource
            // The animation and frame a still comes from, for the report.
            var frameOf: (format: String, frame: Int)?
            if var animated = try AnimatedImage.open(path: input, limits: image.limits) {
                animated.inflater = image.inflater
                // The animation format the output names, if it holds one.
                let animatedFormat = AnimatedImage.outputFormat(
                    named: gifOutput ? "gif" : job.format.name)
                if frame == nil && animatedFormat == nil && animated.animation.frames.count > 1 {
                    console.err.write(
                        "error: \(field: input) is an animation of \(animated.animation.frames.count) frames and \(job.format.displayName) holds one image: add --frame N (0 to \(animated.animation.frames.count - 1)) for a still of one frame, or write GIF, APNG (.png) or WebP\n"
                    )
                    return ExitCode.usage
                }
                if let frame {
                    if gifOutput {
                        console.err.write(
                            "error: a still frame is written as PNG, JPEG, HEIC, WebP or AVIF, not GIF\n"
                        )
                        return ExitCode.usage
                    }
                    source = try animated.frame(frame)
                    frameOf = (animated.formatName, frame)
                } else if let animatedFormat {
                    return runAnimation(animated, as: animatedFormat, console: console)
                } else {
                    source = try animated.frame(0)
                    frameOf = (animated.formatName, 0)
                }
            } else {
                let opened = try image.open(input)
                if let sequence = opened.imageSequence {
                    // Video coded between frames: its primary image only,
                    // and only when asked for by --frame 0.
                    if let refusal = ImageSource.sequenceRefusal(
                        sequence, frame: frame, input: "\(field: input)")
                    {
                        console.err.write("error: \(refusal)\n")
                        return frame == nil ? ExitCode.usage : ExitCode.badInput
                    }
                } else if let frame {
                    console.err.write(
                        "error: --frame \(frame) is for an animation; \(field: input) is a still image\n"
                    )
                    return ExitCode.usage
                }
                if gifOutput {
                    console.err.write(
                        "error: GIF is written from an animation (GIF, APNG, animated WebP); write a still as \(Self.formats)\n"
                    )
                    return ExitCode.usage
                }
                source = opened
            }
            source.inflater = image.inflater
            let plan: CropPlan
            do throws(CropPlanError) {
                plan = try job.plan(for: source)
            } catch {
                return Self.refused(error, console: console, json: json)
            }
            if output == "-" {
                // The image is standard output: the report goes to standard error.
                guard let sink = console.binaryOut() else {
                    console.err.write("error: no standard output to write the image to\n")
                    return ExitCode.badInput
                }
                // Made in memory first, so a failure writes nothing at all.
                let memory = MemorySink()
                let report = try plan.export(to: memory)
                console.flush()
                try sink.write(memory.bytes[...])
                let (location, people) =
                    try ImageSource(ImageInput(bytes: memory.bytes, name: "standard output"))
                    .keptPersonalData()
                console.err.write(
                    json
                        ? Self.reportJSON(
                            input: input, plan: plan, report: report, location: location,
                            people: people, frameOf: frameOf
                        ).text + "\n"
                        : "wrote the crop to standard output: \(report.size.width)x\(report.size.height) \(report.summary), \(report.bytes) bytes\n"
                            + Self.locationNote(location) + Self.peopleNote(people)
                )
                for warning in report.warnings { console.err.write("warning: \(field: warning)\n") }
                return ExitCode.success
            }
            let report = try plan.write(to: output, replacing: force)
            if case .pixels(let asked) = job.region, asked != plan.result.rect,
                plan.resampling == nil, job.resampling.angle == 0, job.resampling.size == nil
            {
                console.err.write(
                    job.clampsToImage && !asked.isInside(plan.result.orientedSize)
                        ? "warning: --clamp: wrote pixels \(field: plan.result.rect), the part of \(field: asked) inside the image\n"
                        : "warning: --snap-to-blocks: wrote pixels \(field: plan.result.rect), \(field: asked) grown to the block grid\n"
                )
            }
            let written = try ImageSource.open(path: output)
            let (location, people) = written.keptPersonalData()
            if json {
                console.out.write(
                    Self.reportJSON(
                        input: input, plan: plan, report: report, location: location,
                        people: people, frameOf: frameOf
                    ).text + "\n")
            } else {
                if let resampling = plan.resampling {
                    let crop = resampling.crop
                    console.out.write(
                        "wrote \(field: output): \(report.size.width)x\(report.size.height) \(report.summary), \(report.bytes) bytes (output rect \(crop.rect) of \(field: input) turned \(numberText(crop.frame.angle))°, \(resampling.resampler.filter), read pixels \(plan.result.rect) as seen)\n"
                    )
                } else {
                    console.out.write(
                        "wrote \(field: output): \(report.size.width)x\(report.size.height) \(report.summary), \(report.bytes) bytes (pixels \(plan.result.rect) of \(field: input) as seen)\n"
                    )
                }
                for entry in report.metadata where entry.action != .kept {
                    console.out.write(
                        "  \(entry.action.rawValue) \(field: entry.segment): \(field: entry.reason)\n"
                    )
                }
                console.out.write(Self.locationNote(location) + Self.peopleNote(people))
            }
            for warning in report.warnings { console.err.write("warning: \(field: warning)\n") }
            return ExitCode.success
        } catch {
            console.err.write("error: \(field: error.commandLineMessage)\n")
            return error.exitCode
        }
    }

    /// An animation crop's `--json` report, in a still's shape: the
    /// source's format, canvas and frames; the rect read (`mapping.pixels`,
    /// canvas pixels); the strategy (`frames`: every frame cut, or
    /// resampled as a still would be); what was written, with the timeline
    /// and how the frames were made under the output's name (`gif`,
    /// `apng`, `webp`) and each piece of metadata not carried as a dropped
    /// entry.
    static func animationReportJSON(
        input: String, source: AnimatedImage, rect: PixelRect<StoredPixels>, resampled: Bool,
        report: AnimationCropReport
    ) -> JSONValue {
        let summary =
            resampled
            ? "every frame turned or resized as a still would be" : "every frame cut to the rect"
        let facts: [(String, Int)] = [
            ("frames", report.frames), ("plays", report.plays),
            ("durationMs", report.totalMilliseconds), ("copied", report.copied),
            ("encodedLosslessly", report.losslessAgain), ("encodedLossy", report.lossyAgain),
            ("fromCanvas", report.fromCanvas),
        ]
        return MachineInterface.versioned(
            .object([
                .init("input", .string(input)),
                .init(
                    "source",
                    .object([
                        .init("format", .string(source.formatName)),
                        .init("width", .number(source.size.width)),
                        .init("height", .number(source.size.height)),
                        .init("frames", .number(source.animation.frames.count)),
                    ])),
                .init("mapping", .object([.init("pixels", rect.json)])),
                .init(
                    "strategy",
                    .object([
                        .init("kind", .string("frames")), .init("grid", .null),
                        .init("stages", .array([])), .init("summary", .string(summary)),
                    ])),
                .init(
                    "written",
                    .object([
                        .init("path", report.output.map { .string($0) } ?? .null),
                        .init("bytes", .number(report.bytes)),
                        .init("format", .string(report.formatName)),
                        .init("width", .number(report.size.width)),
                        .init("height", .number(report.size.height)),
                        .init("how", .string(report.summary)),
                        .init(
                            "metadata",
                            metadataJSON(report.droppedMetadata)),
                        .init(
                            report.formatName,
                            .object(
                                facts.map { .init($0.0, .number($0.1)) } + [
                                    .init("coding", .string(report.coding))
                                ])),
                    ])),
                .init("keptLocation", .array([])), .init("keptPeople", .array([])),
                .init("warnings", .array(report.warnings.map { .string($0) })),
            ]))
    }

    /// Every frame of an animation cut to the rect, written as GIF, APNG or
    /// WebP with the same timeline.
    func runAnimation(_ animated: AnimatedImage, as format: ImageFormat, console: Console)
        -> Int32
    {
        let rect: PixelRect<StoredPixels>
        var resampling: AnimationResampling?
        do throws(CropPlanError) {
            if job.isResampled {
                resampling = try animated.resampling(for: job)
                rect = resampling?.read ?? PixelRect(size: animated.size)
            } else {
                rect = try animated.rect(for: job)
            }
        } catch {
            return Self.refused(error, console: console, json: json)
        }
        do throws(ImagingError) {
            if output == "-" {
                console.err.write(
                    "error: an animation is written to a file, not to standard output\n")
                return ExitCode.usage
            }
            let report: AnimationCropReport
            if let resampling {
                report = try animated.write(resampling, as: format, to: output, replacing: force)
            } else {
                report = try animated.write(rect, as: format, to: output, replacing: force)
            }
            if json {
                console.out.write(
                    Self.animationReportJSON(
                        input: input, source: animated, rect: rect, resampled: resampling != nil,
                        report: report
                    ).text + "\n")
            } else {
                let how =
                    resampling == nil
                    ? "pixels \(rect) of \(field: input)'s canvas, every frame"
                    : "every frame turned or resized as a still would be, reading pixels \(rect) of \(field: input)'s canvas"
                console.out.write(
                    "wrote \(field: output): \(report.size.width)x\(report.size.height) \(report.summary), \(report.bytes) bytes (\(how))\n"
                )
                for entry in report.dropped { console.out.write("  dropped \(field: entry)\n") }
            }
            for warning in report.warnings { console.err.write("warning: \(field: warning)\n") }
            return ExitCode.success
        } catch {
            console.err.write("error: \(field: error.commandLineMessage)\n")
            return error.exitCode
        }
    }

    /// Several outputs of one photo: every plan made first (a refused one
    /// writes nothing), then written with one decode of the union of what
    /// the resampled ones read.
    func runVariants(console: Console) -> Int32 {
        do throws(ImagingError) {
            let source = try image.open(input)
            var plans: [CropPlan] = []
            for variant in variants {
                do throws(CropPlanError) {
                    plans.append(try variant.job.plan(for: source))
                } catch {
                    console.err.write("\(field: variant.output): ")
                    return Self.refused(error, console: console, json: json)
                }
            }
            let reports = try CropPlan.writeVariants(
                plans, to: variants.map(\.output), replacing: force)
            var lines: [JSONValue] = []
            for (plan, report) in zip(plans, reports) {
                let written = try ImageSource.open(path: report.output ?? "")
                let (location, people) = written.keptPersonalData()
                if json {
                    lines.append(
                        Self.reportJSON(
                            input: input, plan: plan, report: report, location: location,
                            people: people))
                } else {
                    let what =
                        plan.resampling.map {
                            "output rect \($0.crop.rect) turned \(numberText($0.crop.frame.angle))°, \($0.resampler.filter)"
                        } ?? "pixels \(plan.result.rect) as seen"
                    console.out.write(
                        "wrote \(field: report.output ?? "?"): \(report.size.width)x\(report.size.height) \(report.summary), \(report.bytes) bytes (\(what))\n"
                            + Self.locationNote(location) + Self.peopleNote(people))
                }
                for warning in report.warnings {
                    console.err.write("warning: \(field: report.output ?? ""): \(field: warning)\n")
                }
            }
            if json { console.out.write(JSONValue.array(lines).text + "\n") }
            return ExitCode.success
        } catch {
            console.err.write("error: \(field: error.commandLineMessage)\n")
            return error.exitCode
        }
    }

    /// The report's line for a kept location (nothing when there is none):
    /// "leaks: clean" speaks of pixels, and a newcomer took it to mean that
    /// nothing private remained.
    static func locationNote(_ places: [ImageFileSummary.Detail.Entry]) -> String {
        places.isEmpty
            ? ""
            : "  kept the photo's location (\(field: places.map(\.text).joined(separator: "; "))); --strip location removes it\n"
    }

    /// The report's line for kept names of people (nothing when there are
    /// none), as for a location.
    static func peopleNote(_ names: [String]) -> String {
        names.isEmpty
            ? ""
            : "  kept the names of \(names.count) people (\(field: names.joined(separator: ", "))); --strip people removes them\n"
    }

    /// Says why a job has no plan: exit 1, the selection covers no pixel
    /// (exit 2 when the output format cannot hold the crop).
    static func refused(_ error: CropPlanError, console: Console, json: Bool) -> Int32 {
        switch error {
        case .rejected(let rejection, let request):
            console.err.write("rejected (\(rejection.code)): \(rejection)\n")
            if json {
                console.out.write(
                    CropRecord(request: request, expected: nil).jsonLine(
                        replaying: .failure(rejection)) + "\n")
            }
        case .notInsideImage:
            console.err.write("error: --pixels: \(field: error)\n")
        case .notLossless:
            console.err.write("error: --lossless: \(field: error)\n")
        case .ratioNotOnBlockGrid:
            console.err.write("error: --snap-to-blocks: \(field: error)\n")
        case .straightenRejected(let rejection):
            console.err.write("rejected (\(rejection.code)): \(rejection)\n")
        case .unsupportedOutput:
            // The input cannot be written so: exit 2, as when it was found
            // while writing.
            console.err.write("error: \(field: error)\n")
            return ExitCode.badInput
        }
        return ExitCode.failure
    }

    /// The `--json` report: the input, the source, the mapping, the file
    /// written; for a still of an animation's frame (`frameOf`), the
    /// animation's format and the frame as the source's.
    static func reportJSON(
        input: String, plan: CropPlan, report: CropReport,
        location: [ImageFileSummary.Detail.Entry] = [],
        people: [String] = [], frameOf: (format: String, frame: Int)? = nil
    ) -> JSONValue {
        let source = plan.source
        // A still of an animation's frame names the animation's format
        // and the frame, not the image it was decoded into.
        var sourceMembers: [JSONValue.Member] = [
            .init("format", .string(frameOf?.format ?? source.format.rawValue))
        ]
        if let frameOf { sourceMembers.append(.init("frame", .number(frameOf.frame))) }
        sourceMembers += source.reportDetails.map { .init($0.key, $0.json) }
        sourceMembers += [
            .init("width", .number(source.storedSize.width)),
            .init("height", .number(source.storedSize.height)),
        ]
        if let checksum = report.checksum {
            // A PNG's Adler-32: "verified", "not-reached" (the crop ends
            // above the last row) or "extra-data-not-inflated".
            sourceMembers.append(.init("checksum", .string(checksum.rawValue)))
        }
        let mapping: JSONValue
        if let resampling = plan.resampling {
            var members: [JSONValue.Member] = [
                .init("angle", .number(resampling.crop.frame.angle)),
                .init("filter", .string(resampling.resampler.filter.rawValue)),
                .init("fill", .string(resampling.resampler.fill.description)),
                .init("read", plan.result.json),
                .init("shrinkOnLoad", .number(resampling.shrink)),
            ]
            if let request = plan.request {
                members.append(
                    .init(
                        "record",
                        CropRecord(request: request, aspect: plan.aspect, expected: nil).replayed(
                            answer: .turned(.success(resampling.crop)))))
            } else {
                let r = resampling.crop.rect
                members.append(
                    .init("outputRect", r.json))
            }
            mapping = .object(members)
        } else if let request = plan.request {
            mapping = CropRecord(request: request, aspect: plan.aspect, expected: nil).replayed(
                .success(plan.result))
        } else {
            mapping = .object([.init("pixels", plan.result.json)])
        }
        return .object([
            .init("schemaVersion", .number(MachineInterface.schemaVersion)),
            .init("input", .string(input)),
            .init("source", .object(sourceMembers)),
            .init("mapping", mapping),
            // How the writer made it: a copy of the coded data, or pixels
            // through stages.
            .init("strategy", plan.strategy.json),
            .init("written", writtenJSON(report)),
            // Where the written file says the photo was taken (read back):
            // empty when it says nothing; --strip location empties it.
            .init("keptLocation", .array(location.map(\.json))),
            // The names of people it holds (read back); --strip people
            // empties it.
            .init("keptPeople", .array(people.map { .string($0) })),
            .init(
                "memory",
                .object([
                    // What the plan said the crop would hold at once, and
                    // the process's measured peak (null where unknown).
                    .init("need", .number(plan.memoryNeed.bytes)),
                    .init("peakResident", peakResidentBytes().map { .number($0) } ?? .null),
                ])),
            .init("warnings", .array(report.warnings.map { .string($0) })),
        ])
    }

    /// The fate of each piece of a source's metadata.
    static func metadataJSON(_ entries: [MetadataEntry]) -> JSONValue {
        .array(
            entries.map { entry in
                .object([
                    .init("segment", .string(entry.segment)),
                    .init("action", .string(entry.action.rawValue)),
                    .init("kind", .string(entry.kind.rawValue)),
                    .init("reason", .string(entry.reason)),
                    .init("changes", .array(entry.changes.map(\.json))),
                ])
            })
    }

    /// What a report says of the file written, in one shape for every
    /// format: its path, size, format and dimensions, how it was written
    /// (the writer's summary), what became of the source's metadata, named
    /// as the output holds it, and the format's own facts under the
    /// format's name.
    static func writtenJSON(_ report: CropReport) -> JSONValue {
        .object([
            .init("path", report.output.map { .string($0) } ?? .null),
            .init("bytes", .number(report.bytes)),
            .init("format", .string(report.format)), .init("width", .number(report.size.width)),
            .init("height", .number(report.size.height)),
            .init("how", .string(report.summary)),
            .init("metadata", metadataJSON(report.metadata)),
            .init(
                report.format,
                .object(report.details.facts.map { .init($0.key, $0.json) })),
        ])
    }
}
