import CropGeometry
import CropImaging
import CropRecords

/// `cropkit map`: one mapping from flags.
struct MapCommand: Subcommand {
    static let name = "map"
    static let summary = "map a view selection to the exact source pixels it covers"
    static let usage = """
        Usage: cropkit map --source WxH --viewport WxH --selection X,Y,W,H [options]

        Maps a selection made in an image view (points) to the rectangle of source
        pixels it covers, exactly, by the mapping contract (MappingContract.md in
        Sources/CropGeometry/CropGeometry.docc): intersect with the visible image,
        convert to pixels, snap edges within 1e-6 px of an integer, round outward.
        Prints the rect in the image as seen and in the stored grid. A rejected
        input prints the rule it breaks and exits 1.

        --json prints the mapping as a test vector: the record's inputs and
        "expected", the contract's answer (null when it refuses, with
        "reason"), so that cropkit map ... --json >> vectors.jsonl adds a case
        that 'cropkit replay' checks (its schema: cropkit schema test-vector;
        "schemaVersion" first). In the record format "expected" is what
        the answer should be and "result" what an app computed: 'cropkit
        grade' compares the two.

        With --angle DEG (the image turned DEG degrees clockwise as seen, about
        the centre of its display rect): the output rect in the turned pixel
        frame (the selection moved into it and rounded outward, exactly), the
        four corners of that rect in the image, and the stored rect a bilinear
        decoder must read ("Straighten and resize" in the contract).

        With --companion WxH (a gain map, depth map or stereo eye of that size
        as displayed beside the photo): its cut, by the contract's companion
        rule ("Companion images"): its output size, the companion rect the
        crop covers, and whether that is an exact copy or sampled; --json adds
        "companion" to the vector and its cut under "expected".
        """
    static let options =
        MappingOptions.specs + [
            MappingOptions.sourceFileSpec,
            OptionSpec(
                name: "block-grid", value: "WxH",
                help:
                    "say whether a JPEG crop is lossless on this block grid (8x8, 16x16, ...; default: a JPEG --source-file's)"
            ),
            OptionSpec(
                name: "angle", value: "DEG",
                help: "the image turned DEG degrees clockwise: print the straightened output rect"),
            OptionSpec(
                name: "companion", value: "WxH",
                help:
                    "a companion image (gain map, depth map) of this size as displayed: print its cut"
            ),
            .json(
                "print a ready test vector: the record with the contract's answer under \"expected\" (null when refused)"
            ),
        ]

    var mapping: MappingOptions
    var json: Bool
    var sourceFile: String?
    var blockGrid: PixelSize<StoredPixels>?
    /// `--angle`, when given.
    var angle: Double?
    /// `--companion`, when given.
    var companion: PixelSize<ImagePixels>?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[0])'")
        }
        sourceFile = parsed.values["source-file"]
        if sourceFile != nil && parsed.values["source"] != nil {
            throw UsageError(message: "--source and --source-file do not go together")
        }
        mapping = try MappingOptions(parsed, sourceFromFile: sourceFile != nil)
        json = parsed.flags.contains("json")
        if let text = parsed.values["angle"] {
            guard let value = Double(text), value.isFinite else {
                throw UsageError(
                    message: "--angle must be a finite number of degrees, not '\(text)'")
            }
            if parsed.values["block-grid"] != nil {
                throw UsageError(message: "--block-grid is for an unturned crop; drop --angle")
            }
            angle = value
        }
        if let size = try parsed.companionSize(maximum: CompanionGrid<ImagePixels>.maximumSide) {
            if angle != nil {
                throw UsageError(
                    message: "--companion is answered for an unturned crop; drop --angle")
            }
            companion = size
        }
        if let text = parsed.values["block-grid"] {
            let parts = text.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts.allSatisfy({ [8, 16, 24, 32].contains($0) }) else {
                throw UsageError(
                    message:
                        "--block-grid must be WxH of 8, 16, 24 or 32 pixels (e.g. 16x16), not '\(text)'"
                )
            }
            blockGrid = PixelSize(width: parts[0], height: parts[1])
        }
    }

    func run(console: Console) -> Int32 {
        var mapping = mapping
        var blockGrid = blockGrid
        if let sourceFile {
            do throws(ImagingError) {
                try mapping.takeSource(fromFile: sourceFile)
                if blockGrid == nil {
                    blockGrid = try ImageSource.open(path: sourceFile).losslessBlockGrid
                }
            } catch {
                console.err.write("error: \(field: error.commandLineMessage)\n")
                return error.exitCode
            }
        }
        if let angle {
            var request = mapping.request
            request.angle = angle
            // As a record replays it (an aspect narrows the output rect to
            // the exact ratio inside itself), so the JSON replays to it.
            let record = CropRecord(request: request, aspect: mapping.aspect, expected: nil)
            let answer = record.answer()
            if json {
                console.out.write(Self.vector(request, aspect: mapping.aspect, answer) + "\n")
            } else {
                switch answer {
                case .turned(.success(let crop)):
                    let quad = crop.quad.map { "(\(format($0.x)), \(format($0.y)))" }
                        .joined(separator: " ")
                    let read = crop.storedReadRect(support: 1).map { "\($0)" } ?? "none"
                    console.out.write(
                        """
                        output  \(crop.rect)   (x,y,width,height in the frame turned \(format(angle))°, \(crop.outputSize) pixels)
                        quad    \(quad)   (its corners in the image as seen)
                        read    \(read)   (stored pixels a bilinear decoder reads)

                        """)
                default:
                    let rejection = answer.rejection.map { "\($0.code)): \($0)" } ?? "?)"
                    console.out.write("rejected (\(rejection)\n")
                }
            }
            return answer.rejection == nil ? ExitCode.success : ExitCode.failure
        }
        let outcome = mapping.map()
        var extra: [JSONValue.Member] = []
        var line = ""
        if let blockGrid, case .success(let result) = outcome {
            let lossless = result.isLossless(blockGrid: blockGrid)
            extra.append(.init("lossless", .bool(lossless)))
            let grid = "the \(blockGrid.width)x\(blockGrid.height) block grid"
            if lossless {
                line = "jpeg    lossless on \(grid)\n"
            } else {
                let grown = result.withStored(
                    result.stored.snapped(
                        toBlocks: blockGrid, within: result.sourceSize, outward: true))
                line =
                    "jpeg    not lossless on \(grid); grown to it: \(grown.rect) (crop --snap-to-blocks)\n"
            }
        }
        if let companion, case .success(let result) = outcome {
            guard let grid = CompanionGrid(imageSize: result.orientedSize, companionSize: companion)
            else { preconditionFailure("--companion's sides were checked") }
            line += Self.describe(grid.cut(result.rect))
        }
        if json {
            console.out.write(
                MachineInterface.versioned(
                    CropRecord.vector(
                        mapping.request, aspect: mapping.aspect, answer: .mapped(outcome),
                        companion: companion, extra: extra)
                ).text + "\n")
        } else {
            console.out.write(Self.describe(mapping.request, outcome) + line)
        }
        if case .failure = outcome { return ExitCode.failure }
        return ExitCode.success
    }

    /// A companion's cut, as `map` prints it: its size, the companion rect
    /// the crop covers, and whether that is a copy.
    static func describe(_ cut: CompanionCut<ImagePixels>) -> String {
        let covered = CompanionExpectation(cut)
        let rect = [covered.x, covered.y, covered.width, covered.height].map(format)
            .joined(separator: ",")
        let how =
            cut.copyRect.map { "an exact copy of \($0)" }
            ?? "sampled (bilinear) from \(cut.readRect)"
        return
            "companion \(cut.size) of \(cut.grid.companionSize) (scale \(format(cut.grid.scaleX)) x \(format(cut.grid.scaleY))): covers \(rect), \(how)\n"
    }

    /// The mapping as a ready test vector (``CropRecord/vector(_:aspect:answer:extra:)``).
    static func vector(
        _ request: CropRequest, aspect: AspectChoice?, _ answer: CropRecord.Answer,
        extra: [JSONValue.Member] = []
    ) -> String {
        MachineInterface.versioned(
            CropRecord.vector(request, aspect: aspect, answer: answer, extra: extra)
        ).text
    }

    static func describe(_ request: CropRequest, _ outcome: Result<CropResult, CropRejection>)
        -> String
    {
        switch outcome {
        case .failure(let rejection):
            return "rejected (\(rejection.code)): \(rejection)\n"
        case .success(let result):
            let display = (try? request.displayRect()).map { "\($0)" } ?? "?"
            return """
                pixels  \(result.rect)   (x,y,width,height in the image as seen, \(result.orientedSize))
                stored  \(result.stored)   (in the file's pixel grid, \(result.sourceSize), orientation \(result.orientation.rawValue))
                display \(display)   (image drawn in the \(format(request.viewport.width))x\(format(request.viewport.height)) view, \(request.mode.rawValue))

                """
        }
    }
}

/// A number as CropKit prints it (`300`, not `300.0`).
func format(_ value: Double) -> String { numberText(value) }
