import CropGeometry
import CropImaging
import CropRecords
import CropTestKit

/// `cropkit verify`: exports crops of fixtures and checks their pixels.
struct VerifyCommand: Subcommand {
    static let name = "verify"
    static let summary = "export crops of fixtures for view selections and check every pixel"
    static let usage = """
        Usage: cropkit verify --source WxH --viewport WxH --selection X,Y,W,H [--selection ...] [mapping options]

        For each selection: maps it, exports the crop from two fixtures of the
        source's size (written as PNG, cut by the same code as 'cropkit crop') and
        checks (a) the exported width and height equal the mapping's result,
        (b) each corner marker appears exactly where the crop overlaps it (a
        bottom-right crop holds no top-left marker), (c) no pixel is transparent
        (a full-image selection adds no border), and (d) on the coordinates
        fixture every output pixel is the right source pixel.

        With --format jpeg, the corners fixture is made as a JPEG (4:2:0,
        quality 95, up to 16 megapixels) and each crop written as JPEG: its
        stored size is checked, a lossless crop decoded plainly must equal the
        fixture at the rect bit for bit, a re-encoded one must reach 30 dB PSNR
        against it (reported), the markers must appear (within a JPEG's
        tolerance) only where the crop overlaps them, and 'cropkit leaks' must
        find nothing.
        With --format webp, the corners fixture is made as a lossless WebP (up to
        16 megapixels) and each crop written as WebP: its size as seen is
        checked (a WebP crop is written upright), every sample must equal the
        fixture's at the rect turned upright (VP8L, lossless), and 'cropkit
        leaks' must find nothing. With --format avif, the same for an AVIF
        fixture (up to 16 megapixels), the crop encoded from pixels: it must
        reach 30 dB PSNR against the fixture at the rect (reported).
        With --angle DEG or --size WxH, each turned or resized crop is exported
        from a 16-bit fixture whose pixels hold their own stored x and y (scaled
        into 16 bits, the scale reported) with bilinear filtering, and checked:
        its size, every interior pixel reads back the position the contract
        says it sampled (to the fixture's quantisation), and the transparent
        fill is exactly where that position leaves the image (up to 25
        megapixels).
        With --companion WxH (a gain map of that size as displayed), a JPEG
        fixture of the source's size carries an MPF gain map (a smooth wave, as
        a real one is), each selection's crop is written as JPEG, and its gain
        map is checked against the companion rule: its size, and every pixel
        the rule's bilinear sample (exact where the crop is a copy on the map's
        block grid; else mean error at most 0.6 codes, 99th percentile 3).
        With --format avif the fixture is an AVIF whose gain map is an
        auxiliary image, and each AVIF crop's map is checked the same way
        (exact where the crop copies all of it).
        A selection that covers no pixel has nothing to export and is reported as
        such. Exit 1 when any check failed.
        """
    static let options: [OptionSpec] =
        MappingOptions.specs.map { spec in
            var spec = spec
            if spec.name == "selection" {
                spec.repeatable = true
                spec.help += " (repeat for several)"
            }
            return spec
        } + [
            OptionSpec(
                name: "format", value: "FORMAT",
                help:
                    "png (default: the four checks on PNG crops), jpeg (JPEG crops of a JPEG fixture) webp (WebP crops of a lossless WebP fixture) or avif (AVIF crops of an AVIF fixture)"
            ),
            OptionSpec(
                name: "angle", value: "DEG",
                help: "check straightened crops: the image turned DEG degrees clockwise"),
            OptionSpec(
                name: "size", value: "WxH", help: "check crops resized to exactly W×H pixels"),
            OptionSpec(
                name: "companion", value: "WxH",
                help:
                    "also check a gain map of this size as displayed: a JPEG fixture carries it (an AVIF one with --format avif), each crop must cut it by the companion rule"
            ),
            .json(
                "print one JSON object per selection: each check's sentence and the values it states (cropkit schema verify-line)"
            ), .quiet,
        ]

    var mappings: [MappingOptions]
    var json: Bool
    /// The verifier of a format other than PNG, or `nil` for PNG.
    var format: (any FormatExportVerifier.Type)?
    /// The turn and size to check (`--angle`, `--size`), if any.
    var resampling: CropJob.Resampling?
    /// `--companion`: the gain map's size as displayed, if any.
    var companion: PixelSize<ImagePixels>?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[0])'")
        }
        guard let selections = parsed.repeated["selection"], !selections.isEmpty else {
            throw UsageError(message: "missing --selection X,Y,W,H")
        }
        mappings = try selections.map { text throws(UsageError) in
            try MappingOptions(parsed, selectionText: text)
        }
        json = parsed.flags.contains("json")
        format = try ExportFormatOption.verifier(parsed.values["format"]?.lowercased() ?? "png")
        if parsed.values["angle"] != nil || parsed.values["size"] != nil {
            if let format {
                throw UsageError(
                    message:
                        "--angle and --size check PNG crops of the 16-bit fixture; drop --format \(format.fileExtension)"
                )
            }
            resampling = try ResampleOptions.resampling(parsed)
        }
        // The gain map is checked as a JPEG: 65535 a side.
        if let size = try parsed.companionSize(maximum: 65535) {
            if resampling != nil {
                throw UsageError(
                    message: "--companion checks unturned, unresized crops; drop --angle and --size"
                )
            }
            companion = size
        }
    }

    func run(console: Console) -> Int32 {
        if let resampling { return runTurned(resampling, console: console) }
        var failed = 0
        var passed = 0
        var verifier: ExportVerifier?
        var formatVerifier: (any FormatExportVerifier)?
        var companionVerifier: CompanionExportVerifier?
        for mapping in mappings {
            let selection = mapping.request.selection
            let result: CropResult
            switch mapping.map() {
            case .failure(let rejection):
                if json {
                    console.out.write(
                        MachineInterface.versioned(
                            mapping.record.replayed(
                                .failure(rejection), extra: [.init("checks", .array([]))])
                        ).text + "\n")
                } else {
                    console.out.write(
                        "selection \(selection): no pixels (\(rejection.code)), nothing to export\n"
                    )
                }
                continue
            case .success(let mapped):
                result = mapped
            }
            do throws(ImagingError) {
                var checks: [ExportCheck]
                if let format {
                    let current: any FormatExportVerifier
                    if let formatVerifier {
                        current = formatVerifier
                    } else {
                        current = try format.init(sourceSize: result.sourceSize)
                    }
                    formatVerifier = current
                    checks = try current.check(result, writingTo: nil)
                } else {
                    let current: ExportVerifier
                    if let verifier {
                        current = verifier
                    } else {
                        current = try ExportVerifier(sourceSize: result.sourceSize)
                    }
                    verifier = current
                    checks = try current.check(result)
                }
                if let companion {
                    let stored = result.orientation.storedSize(companion)
                    let current: CompanionExportVerifier
                    if let companionVerifier, companionVerifier.sourceSize == result.sourceSize {
                        current = companionVerifier
                    } else {
                        current = try CompanionExportVerifier(
                            sourceSize: result.sourceSize,
                            companionSize: PixelSize(width: stored.width, height: stored.height),
                            format: format?.companionFormat ?? .jpeg)
                    }
                    companionVerifier = current
                    checks += try current.check(result)
                }
                let ok = checks.allSatisfy(\.passed)
                if ok { passed += 1 } else { failed += 1 }
                if json {
                    console.out.write(
                        MachineInterface.versioned(
                            mapping.record.replayed(
                                .success(result),
                                extra: [.init("checks", .array(checks.map(\.json)))])
                        ).text + "\n")
                } else {
                    console.out.write(
                        "selection \(selection) -> pixels \(result.rect): \(ok ? "passed" : "FAILED")\n"
                    )
                    for check in checks {
                        console.out.write(
                            "  \(check.passed ? "ok  " : "FAIL") \(check.name): \(check.detail)\n")
                    }
                }
            } catch {
                console.err.write("error: \(field: error.commandLineMessage)\n")
                return ExitCode.badInput
            }
        }
        console.err.write("\(passed) passed, \(failed) failed\n")
        return failed > 0 ? ExitCode.failure : ExitCode.success
    }

    /// `--angle`, `--size`: each selection's turned or resized crop of the
    /// scaled coordinates fixture, checked.
    func runTurned(_ resampling: CropJob.Resampling, console: Console) -> Int32 {
        var failed = 0
        var passed = 0
        var verifier: TurnedExportVerifier?
        for mapping in mappings {
            var request = mapping.request
            request.angle = resampling.angle
            let selection = request.selection
            do throws(ImagingError) {
                let source = PixelSize<StoredPixels>(
                    width: Int(request.sourceSize.width), height: Int(request.sourceSize.height))
                let current: TurnedExportVerifier
                if let verifier {
                    current = verifier
                } else {
                    current = try TurnedExportVerifier(sourceSize: source)
                }
                verifier = current
                guard let (crop, checks) = try current.check(request, size: resampling.size) else {
                    let reason =
                        (try? request.straightened(size: resampling.size)).map { _ in
                            "unturned at its own size: lossless, checked without --angle"
                        } ?? "no pixels"
                    if json {
                        console.out.write(
                            MachineInterface.versioned(
                                .object([
                                    .init("selection", selection.json),
                                    .init("angle", .number(resampling.angle)),
                                    .init("checked", .bool(false)),
                                    .init("reason", .string(reason)),
                                    .init("checks", .array([])),
                                ])
                            ).text + "\n")
                    } else {
                        console.out.write("selection \(selection): \(reason), nothing to check\n")
                    }
                    continue
                }
                let ok = checks.allSatisfy(\.passed)
                if ok { passed += 1 } else { failed += 1 }
                if json {
                    let r = crop.rect
                    console.out.write(
                        MachineInterface.versioned(
                            .object([
                                .init("selection", selection.json),
                                .init("angle", .number(crop.frame.angle)),
                                .init("checked", .bool(true)),
                                .init("outputRect", r.json),
                                .init(
                                    "outputSize",
                                    ExportCheck.size(crop.outputSize.width, crop.outputSize.height)),
                                .init("fixtureScale", .number(current.scale)),
                                .init("checks", .array(checks.map(\.json))),
                            ])
                        ).text + "\n")
                } else {
                    console.out.write(
                        "selection \(selection) -> output rect \(crop.rect) turned \(numberText(crop.frame.angle))°, \(crop.outputSize): \(ok ? "passed" : "FAILED")\n"
                    )
                    for check in checks {
                        console.out.write(
                            "  \(check.passed ? "ok  " : "FAIL") \(check.name): \(check.detail)\n")
                    }
                }
            } catch {
                console.err.write("error: \(field: error.commandLineMessage)\n")
                return ExitCode.badInput
            }
        }
        console.err.write("\(passed) passed, \(failed) failed\n")
        return failed > 0 ? ExitCode.failure : ExitCode.success
    }
}
