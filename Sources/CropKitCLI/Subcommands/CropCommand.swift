import CropGeometry
import CropImaging

/// `cropkit crop`: cuts the selected pixels out of an image, losslessly.
struct CropCommand: Subcommand {
    static let name = "crop"
    static let summary = "crop an image to a pixel rect or a view selection, losslessly, as PNG"
    static let usage = """
        Usage: cropkit crop INPUT -o OUT.png (--pixels X,Y,W,H | --viewport WxH --selection X,Y,W,H [mapping options])

        Cuts a rectangle out of INPUT (PNG or JPEG) and writes it as PNG without
        changing a pixel. From a PNG the output keeps the colour type, bit depth
        (1 to 16), palette, tRNS and colour chunks (gAMA, cHRM, sRGB, iCCP, cICP).
        From a JPEG it holds the decoded 8-bit gray or RGB pixels, turned upright
        for the file's EXIF orientation (the crop alone is turned, never the whole
        photo), with the embedded ICC profile as iCCP. Give the rect in pixels of
        the image as seen (--pixels), or as a selection in a view, mapped exactly
        as 'cropkit map' maps it against the image as seen (the size and
        orientation are read from the file; --orientation overrides the file's).
        Only the rows and columns the crop needs are decoded.

        The output is written to a temporary file in the same folder and renamed
        into place: it is complete or absent, never half-written. An existing
        output is replaced only with --force; the input is never the output.
        Exit codes: 0 written, 1 the selection covers no pixel, 2 unreadable or
        corrupt input or the output could not be written, 64 usage (including an
        existing output without --force).
        """
    static let options: [OptionSpec] =
        [
            OptionSpec(name: "output", value: "OUT.png", help: "the PNG file to write", short: "o"),
            OptionSpec(
                name: "pixels", value: "X,Y,W,H",
                help: "the rect to keep, in pixels of the image as seen"),
        ] + MappingOptions.viewSpecs + [
            OptionSpec(name: "force", value: nil, help: "replace OUT.png if it exists"),
            OptionSpec(
                name: "ignore-orientation", value: nil,
                help: "treat a JPEG's pixels as upright, whatever its EXIF orientation"),
            OptionSpec(
                name: "lenient", value: nil,
                help: "accept JPEG data libjpeg can step over (a warning), and say so"),
            OptionSpec(
                name: "max-scans", value: "N",
                help: "refuse progressive JPEGs with more scans (default 500)"),
            OptionSpec(
                name: "compressor", value: "NAME",
                help: "automatic (default: libdeflate if installed, else zlib), libdeflate or zlib"),
            OptionSpec(
                name: "level", value: "N",
                help:
                    "compression level: auto (default: 1 for noisy bands, else 6), zlib 1-9, libdeflate 1-12"
            ),
            OptionSpec(
                name: "max-pixels", value: "N",
                help: "refuse inputs of more pixels (default 178956970)"),
            OptionSpec(
                name: "max-dimension", value: "N",
                help: "refuse inputs wider or taller (default 1000000)"),
            OptionSpec(
                name: "max-chunk-bytes", value: "N",
                help: "refuse a metadata chunk larger than this (default 16777216)"),
            OptionSpec(
                name: "max-file-bytes", value: "N",
                help: "refuse input files larger than this (default 2147483648)"),
            OptionSpec(
                name: "max-metadata-bytes", value: "N",
                help: "refuse metadata chunks larger than this together (default 67108864)"),
            OptionSpec(
                name: "json", value: nil,
                help: "print a JSON report of the mapping and the written file"),
        ]

    enum Region {
        case pixels(PixelRect<ImagePixels>)
        case view(MappingOptions)
    }

    var input: String
    var output: String
    var region: Region
    var force: Bool
    var json: Bool
    var encoder: PNGEncoder
    var limits: DecodeLimits
    var ignoreOrientation: Bool
    var lenient: Bool
    var maxScans: Int

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.count == 1 else {
            throw UsageError(
                message: parsed.positionals.isEmpty ? "missing INPUT" : "expected one INPUT file")
        }
        input = parsed.positionals[0]
        guard let output = parsed.values["output"] else {
            throw UsageError(message: "missing -o OUT.png")
        }
        self.output = output
        let viewFlags = [
            "viewport", "selection", "mode", "image-scale", "zoom", "offset", "aspect",
        ]
        if let pixels = parsed.values["pixels"] {
            if let flag = viewFlags.first(where: { parsed.values[$0] != nil }) {
                throw UsageError(
                    message:
                        "--pixels and --\(flag) do not go together: give a pixel rect or a view selection"
                )
            }
            let p = try numbers(
                pixels, separator: ",", count: 4, option: "pixels", shape: "X,Y,W,H")
            guard p.allSatisfy({ $0 == $0.rounded() && abs($0) < 1e9 }), p[2] > 0, p[3] > 0 else {
                throw UsageError(
                    message:
                        "--pixels must be whole numbers with a positive width and height, not '\(pixels)'"
                )
            }
            region = .pixels(
                PixelRect(x: Int(p[0]), y: Int(p[1]), width: Int(p[2]), height: Int(p[3])))
        } else if parsed.values["selection"] != nil || parsed.values["viewport"] != nil {
            region = .view(try MappingOptions(parsed, sourceFromFile: true))
        } else {
            throw UsageError(message: "give --pixels X,Y,W,H or --viewport WxH --selection X,Y,W,H")
        }
        force = parsed.flags.contains("force")
        json = parsed.flags.contains("json")
        let compressorName = parsed.values["compressor"] ?? "automatic"
        guard let compressor = Compressor(rawValue: compressorName) else {
            throw UsageError(
                message:
                    "unknown --compressor '\(compressorName)'; use automatic, libdeflate or zlib")
        }
        let level =
            try parsed.values["level"].map { text throws(UsageError) -> CompressionLevel in
                if text == "auto" { return .automatic }
                guard let level = Int(text), (1...12).contains(level),
                    compressor != .zlib || level <= 9
                else {
                    throw UsageError(
                        message:
                            "--level must be auto, 1-9 for zlib or 1-12 for libdeflate, not '\(text)'"
                    )
                }
                return .fixed(level)
            } ?? .automatic
        encoder = PNGEncoder(compressor: compressor, level: level)
        ignoreOrientation = parsed.flags.contains("ignore-orientation")
        lenient = parsed.flags.contains("lenient")
        maxScans = JPEGDecoder.defaultMaxScans
        if let text = parsed.values["max-scans"] {
            guard let value = Int(text), value > 0 else {
                throw UsageError(
                    message: "--max-scans must be a positive whole number, not '\(text)'")
            }
            maxScans = value
        }
        limits = DecodeLimits()
        for (flag, path) in [
            ("max-pixels", \DecodeLimits.maxPixels), ("max-dimension", \DecodeLimits.maxDimension),
            ("max-chunk-bytes", \DecodeLimits.maxChunkBytes),
            ("max-file-bytes", \DecodeLimits.maxFileBytes),
            ("max-metadata-bytes", \DecodeLimits.maxMetadataBytes),
        ] {
            guard let text = parsed.values[flag] else { continue }
            guard let value = Int(text), value > 0 else {
                throw UsageError(
                    message: "--\(flag) must be a positive whole number, not '\(text)'")
            }
            limits[keyPath: path] = value
        }
    }

    func run(console: Console) -> Int32 {
        do throws(ImagingError) {
            // A PNG's image data CRCs are checked while the crop decodes.
            let file = try ImageSource.read(path: input, limits: limits, deferringDataCRCs: true)
            let stored = file.storedSize
            let fileOrientation = ignoreOrientation ? .up : file.orientation
            var source: [JSONValue.Member] = [.init("format", .string(file.format.rawValue))]
            if case .jpeg(let info) = file {
                source.append(.init("orientation", .number(info.orientation.rawValue)))
                if let profile = info.iccProfile {
                    source.append(
                        .init(
                            "profile",
                            .string(ICCProfile.description(of: profile) ?? "(no description)")))
                }
            }
            source += [
                .init("width", .number(stored.width)), .init("height", .number(stored.height)),
            ]
            var mappingJSON: JSONValue = .null
            let result: CropResult
            switch region {
            case .pixels(let rect):
                let oriented = fileOrientation.orientedSize(stored)
                guard rect.isInside(oriented) else {
                    console.err.write(
                        "error: --pixels \(rect) is not inside the \(oriented) image (as seen)\n")
                    return ExitCode.failure
                }
                result = CropResult(rect: rect, orientation: fileOrientation, sourceSize: stored)
                mappingJSON = .object([.init("pixels", result.json)])
            case .view(var mapping):
                mapping.request.sourceSize = Size(
                    width: Double(stored.width), height: Double(stored.height))
                if !mapping.orientationGiven { mapping.request.orientation = fileOrientation }
                switch mapping.map() {
                case .failure(let rejection):
                    console.err.write("rejected (\(rejection.code)): \(rejection)\n")
                    if json {
                        console.out.write(
                            CropRecord(request: mapping.request, expected: nil).jsonLine(
                                replaying: .failure(rejection))
                                + "\n")
                    }
                    return ExitCode.failure
                case .success(let mapped):
                    result = mapped
                    mappingJSON =
                        (try? JSONValue(
                            parsing: CropRecord(request: mapping.request, expected: nil).jsonLine(
                                replaying: .success(mapped)))) ?? .null
                }
            }
            let report = try CropExport.crop(
                file, input: input, stored: result.stored, orientation: result.orientation,
                output: output,
                encoder: encoder, replacing: force, limits: limits, maxScans: maxScans,
                lenient: lenient)
            if json {
                var object = Self.reportJSON(input: input, mapping: mappingJSON, report: report)
                if case .object(var members) = object {
                    members.insert(.init("source", .object(source)), at: 1)
                    object = .object(members)
                }
                console.out.write(object.text + "\n")
            } else {
                console.out.write(
                    "wrote \(output): \(report.width)x\(report.height) \(report.colorType.name) \(report.bitDepth)-bit PNG, \(report.bytes) bytes (pixels \(result.rect) of \(input) as seen)\n"
                )
            }
            for warning in report.warnings { console.err.write("warning: \(warning)\n") }
            return ExitCode.success
        } catch {
            console.err.write("error: \(error.message)\n")
            return error.code == .outputRefused ? ExitCode.usage : ExitCode.badInput
        }
    }

    static func reportJSON(input: String, mapping: JSONValue, report: CropExport.Report)
        -> JSONValue
    {
        .object([
            .init("input", .string(input)),
            .init("mapping", mapping),
            .init(
                "written",
                .object([
                    .init("path", .string(report.output)), .init("bytes", .number(report.bytes)),
                    .init("format", .string("png")), .init("width", .number(report.width)),
                    .init("height", .number(report.height)),
                    .init("colorType", .string(report.colorType.name)),
                    .init("bitDepth", .number(report.bitDepth)),
                    .init("chunks", .array(report.keptChunks.map { .string($0) })),
                    .init("droppedChunks", .array(report.droppedChunks.map { .string($0) })),
                    .init("compressor", .string(report.compressor.rawValue)),
                    .init("level", .string(report.level.description)),
                    .init(
                        "bandLevels",
                        .object(
                            report.bandLevels.sorted { $0.key < $1.key }.map {
                                .init("\($0.key)", .number($0.value))
                            })),
                ])),
            .init("warnings", .array(report.warnings.map { .string($0) })),
        ])
    }
}
