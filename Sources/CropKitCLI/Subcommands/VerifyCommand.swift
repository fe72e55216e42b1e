import CropGeometry
import CropImaging
import CropRecords

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
                    "png (default: the four checks on PNG crops) or jpeg (JPEG crops of a JPEG fixture)"
            ),
            .json("print one JSON object per selection"), .quiet,
        ]

    var mappings: [MappingOptions]
    var json: Bool
    var jpeg: Bool

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
        switch parsed.values["format"]?.lowercased() ?? "png" {
        case "png": jpeg = false
        case "jpeg", "jpg": jpeg = true
        case let other: throw UsageError(message: "unknown --format '\(other)'; use png or jpeg")
        }
    }

    func run(console: Console) -> Int32 {
        var failed = 0
        var passed = 0
        var verifier: ExportVerifier?
        var jpegVerifier: JPEGExportVerifier?
        for mapping in mappings {
            let selection = mapping.request.selection
            let result: CropResult
            switch mapping.map() {
            case .failure(let rejection):
                if json {
                    console.out.write(
                        mapping.record.jsonLine(
                            replaying: .failure(rejection), extra: [.init("checks", .array([]))])
                            + "\n")
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
                let checks: [ExportCheck]
                if jpeg {
                    let current: JPEGExportVerifier
                    if let jpegVerifier {
                        current = jpegVerifier
                    } else {
                        current = try JPEGExportVerifier(sourceSize: result.sourceSize)
                    }
                    jpegVerifier = current
                    checks = try current.check(result)
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
                let ok = checks.allSatisfy(\.passed)
                if ok { passed += 1 } else { failed += 1 }
                if json {
                    console.out.write(
                        mapping.record.jsonLine(
                            replaying: .success(result),
                            extra: [.init("checks", .array(checks.map(\.json)))]) + "\n")
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
                console.err.write("error: \(error.commandLineMessage)\n")
                return ExitCode.badInput
            }
        }
        console.err.write("\(passed) passed, \(failed) failed\n")
        return failed > 0 ? ExitCode.failure : ExitCode.success
    }
}
