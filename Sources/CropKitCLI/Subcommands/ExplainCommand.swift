import CropGeometry
import CropImaging
import CropRecords

/// `cropkit explain`: an SVG picture of one mapping.
struct ExplainCommand: Subcommand {
    static let name = "explain"
    static let summary = "draw a mapping as SVG: view, padding, image, selection, clip and pixels"
    static let usage = """
        Usage: cropkit explain (--source WxH --viewport WxH --selection X,Y,W,H [options] | --record FILE:LINE) [-o OUT.svg]

        Draws one mapping as an SVG picture: the viewport (gray where it shows
        padding), the image as displayed (dashed where zoom pushes it past the
        view), the selection, the part of it that covers the visible image, and the
        pixel rect the mapping gives, drawn back in the view, with the numbers.
        Every rectangle carries its numbers as data- attributes. Takes the same
        flags as 'cropkit map' (--aspect and --source-file included), or one
        record of a JSON Lines file (FILE:LINE, counting from 1). Writes to
        OUT.svg (atomically), or to standard output.
        """
    static let options: [OptionSpec] =
        MappingOptions.specs + [
            MappingOptions.sourceFileSpec,
            OptionSpec(
                name: "record", value: "FILE:LINE", help: "draw this record of a JSON Lines file"),
            OptionSpec(
                name: "output", value: "OUT.svg",
                help: "write the SVG here instead of standard output", short: "o"),
            .force("replace OUT.svg if it exists"),
        ]

    enum Input {
        case flags(MappingOptions)
        case record(path: String, line: Int)
    }

    var input: Input
    var output: String?
    var force: Bool
    var sourceFile: String?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[0])'")
        }
        sourceFile = parsed.values["source-file"]
        if sourceFile != nil && parsed.values["source"] != nil {
            throw UsageError(message: "--source and --source-file do not go together")
        }
        if let output = parsed.values["output"] {
            try checkOutputPath(output, extensions: ["svg"], format: "SVG")
        }
        if let record = parsed.values["record"] {
            if let flag = MappingOptions.specs.first(where: { parsed.values[$0.name] != nil }) {
                throw UsageError(
                    message:
                        "--record and --\(flag.name) do not go together: the record holds the mapping"
                )
            }
            guard let colon = record.lastIndex(of: ":"),
                let line = Int(record[record.index(after: colon)...]), line >= 1
            else {
                throw UsageError(
                    message: "--record must be FILE:LINE with a line number from 1, not '\(record)'"
                )
            }
            input = .record(path: String(record[..<colon]), line: line)
        } else {
            input = .flags(try MappingOptions(parsed, sourceFromFile: sourceFile != nil))
        }
        output = parsed.values["output"]
        force = parsed.flags.contains("force")
    }

    func run(console: Console) -> Int32 {
        var request: CropRequest
        var aspect: AspectChoice?
        switch input {
        case .flags(var mapping):
            if let sourceFile {
                do throws(ImagingError) {
                    try mapping.takeSource(fromFile: sourceFile)
                } catch {
                    console.err.write("error: \(field: error.commandLineMessage)\n")
                    return error.exitCode
                }
            }
            request = mapping.request
            aspect = mapping.aspect
        case .record(let path, let number):
            switch LineReader.open(path: path) {
            case .failure(let error):
                console.err.write("error: \(field: error)\n")
                return ExitCode.badInput
            case .success(let reader):
                var current = 0
                var found: String?
                while let line = reader.nextLine() {
                    current += 1
                    if current == number {
                        found = line
                        break
                    }
                }
                guard let found else {
                    console.err.write("error: '\(field: path)' has no line \(field: number)\n")
                    return ExitCode.badInput
                }
                do {
                    let record = try CropRecord(jsonLine: found)
                    request = record.orientedRequest
                    aspect = record.aspect
                } catch {
                    console.err.write(
                        "error: line \(field: number) of '\(field: path)' is not a valid record: \(field: error)\n"
                    )
                    return ExitCode.badInput
                }
            }
        }
        let svg = CropDiagram.svg(for: request, aspect: aspect)
        guard let output else {
            console.out.write(svg)
            return ExitCode.success
        }
        do throws(ImagingError) {
            try AtomicFile.write(Array(svg.utf8), to: output, replacing: force)
            console.out.write("wrote \(field: output)\n")
            return ExitCode.success
        } catch {
            console.err.write("error: \(field: error.commandLineMessage)\n")
            return error.exitCode
        }
    }
}
