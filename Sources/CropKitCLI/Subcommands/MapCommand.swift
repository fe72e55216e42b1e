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
        """
    static let options =
        MappingOptions.specs + [
            MappingOptions.sourceFileSpec,
            .json("print one JSON object (a replayable record plus result)"),
        ]

    var mapping: MappingOptions
    var json: Bool
    var sourceFile: String?

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
    }

    func run(console: Console) -> Int32 {
        var mapping = mapping
        if let sourceFile {
            do throws(ImagingError) {
                try mapping.takeSource(fromFile: sourceFile)
            } catch {
                console.err.write("error: \(error.commandLineMessage)\n")
                return error.exitCode
            }
        }
        let outcome = mapping.map()
        if json {
            console.out.write(mapping.record.jsonLine(replaying: outcome) + "\n")
        } else {
            console.out.write(Self.describe(mapping.request, outcome))
        }
        if case .failure = outcome { return ExitCode.failure }
        return ExitCode.success
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
