import CropImaging
import CropRecords

/// `cropkit fixture`: writes a test image of an exact pixel size.
struct FixtureCommand: Subcommand {
    static let name = "fixture"
    static let summary = "write a fixture PNG of an exact size whose pixels say where they are"
    static let usage = """
        Usage: cropkit fixture WxH -o F.png [--kind corners|coordinates] [--force]

        Writes a PNG of exactly W by H pixels (W and H from 1 to 65536).

        corners (default): the article's fixture, 8-bit RGBA, opaque gray with a
        different colour in each corner (top-left red, top-right green, bottom-left
        blue, bottom-right yellow; squares of an eighth of the shorter side) and a
        black cross at the centre (bars a hundredth of the shorter side thick).
        coordinates: 16-bit RGB whose every pixel encodes its own position:
        red = x, green = y, blue = 0xC0DE (sides up to 65536), so any crop can be
        checked pixel by pixel.
        """
    static let options: [OptionSpec] = [
        OptionSpec(name: "output", value: "F.png", help: "the PNG file to write", short: "o"),
        OptionSpec(name: "kind", value: "KIND", help: "corners (default) or coordinates"),
        .force("replace F.png if it exists"),
        .quiet,
    ]

    var width: Int
    var height: Int
    var output: String
    var kind: Fixture.Kind
    var force: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.count == 1 else {
            throw UsageError(message: "give the size as WxH")
        }
        let text = parsed.positionals[0]
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ Int($0) != nil }) else {
            throw UsageError(message: "give the size as WxH, e.g. 400x300, not '\(text)'")
        }
        let size = parts.compactMap { Double($0) }
        guard size.allSatisfy({ $0 == $0.rounded() && $0 >= 1 && $0 <= 65536 }) else {
            throw UsageError(
                message:
                    "the size must be whole numbers from 1 to 65536, not '\(parsed.positionals[0])'"
            )
        }
        (width, height) = (Int(size[0]), Int(size[1]))
        guard let output = parsed.values["output"] else {
            throw UsageError(message: "missing -o F.png")
        }
        try checkOutputPath(output, extensions: ["png"], format: "PNG")
        self.output = output
        let kindName = parsed.values["kind"] ?? "corners"
        guard let kind = Fixture.Kind(rawValue: kindName) else {
            throw UsageError(message: "unknown --kind '\(kindName)'; use corners or coordinates")
        }
        guard kind == .coordinates || width * height <= 100_000_000 else {
            throw UsageError(message: "a corners fixture is limited to 100 megapixels")
        }
        self.kind = kind
        force = parsed.flags.contains("force")
    }

    func run(console: Console) -> Int32 {
        do throws(ImagingError) {
            let image = Fixture.make(kind, width: width, height: height)
            let bytes = try PNGEncoder(level: 1).encode(image)
            try AtomicFile.write(bytes, to: output, replacing: force)
            console.out.write(
                "wrote \(field: output): \(kind.rawValue) fixture, \(width)x\(height), \(bytes.count) bytes\n"
            )
            return ExitCode.success
        } catch {
            console.err.write("error: \(field: error.commandLineMessage)\n")
            return error.code == .outputRefused ? ExitCode.usage : ExitCode.badInput
        }
    }
}
