import CropGeometry
import CropImaging
import CropTestKit

/// `cropkit cases`: test vectors for an app's own crop code.
struct CasesCommand: Subcommand {
    static let name = "cases"
    static let summary = "write test vectors (JSON Lines) with the contract's answers, by category"
    static let usage = """
        Usage: cropkit cases [--count N] [--seed S] [--modes LIST|all] [--orientations LIST|all] [--zoom] [--companions] [--faces]

        Writes test vectors for crop code, one record a line (JSON Lines), to
        standard output: the mapping's inputs ("source", "viewport",
        "selection", "mode", and "zoom" and "orientation" when not the
        default), "expected" (the contract's answer: the pixel rect in the
        image as seen, with "stored" when the orientation is not 1, or null
        when the mapping refuses) and "category", after "schemaVersion"
        (the schema: cropkit schema test-vector). The same seed writes the
        same bytes on every platform.

        The categories, taken in turn: \(VectorCategory.allCases.map(\.rawValue).joined(separator: ", ")). zoom-and-pan needs --zoom, orientation an
        orientation other than 1, companion --companions, face-box --faces.

        With --companions, the companion category's photos carry a companion
        image (an HDR gain map, a depth map, a stereo eye) of the size
        "companion" gives (as displayed), and "expected" holds its cut:
        "companion": {"x","y","width","height"} (the companion rect the crop
        covers, in companion pixels, fractions off its grid) and
        "outputWidth", "outputHeight". The app answers them under
        result.companion; grade compares the output size exactly and the
        rect to within 2^-30 of a companion pixel.

        With --faces, the face-box category's photos carry "face": a face box
        as Apple's Vision framework gives one (normalized to the photo as
        seen, origin at the bottom-left, y up), and "expected" holds "face":
        where it lands in the crop, the same way (normalized to the crop,
        bottom-left), or null when nothing of it is inside. The app answers
        under result.face; grade compares each number to within 1e-9. The
        usual bug it catches: a box flipped to a top-left origin, or
        normalized to the photo instead of the crop.

        By default the vectors are the article's setting (aspect fit, upright,
        unzoomed), which a function of the article's signature (image size,
        view size, selection) can answer. The loop for any language: cropkit
        cases > vectors.jsonl; the app reads each line, writes it back with its
        own answer under "result" (an object x, y, width, height, or null for
        "refused"); cropkit grade answers.jsonl says which are wrong.
        """
    static let options: [OptionSpec] = [
        OptionSpec(name: "count", value: "N", help: "how many vectors (default 1000)"),
        OptionSpec(name: "seed", value: "S", help: "the seed, a whole number (default 1)"),
        OptionSpec(
            name: "modes", value: "LIST",
            help: "content modes, comma-separated, or all (default aspectFit)"),
        OptionSpec(
            name: "orientations", value: "LIST",
            help: "EXIF orientations 1-8, comma-separated, or all (default 1)"),
        OptionSpec(name: "zoom", value: nil, help: "zoom and pan the views too (zoom-and-pan)"),
        OptionSpec(
            name: "companions", value: nil,
            help: "give photos companion images whose cut is answered too (companion)"),
        OptionSpec(
            name: "faces", value: nil,
            help: "give photos a Vision face box whose place in the crop is answered (face-box)"),
    ]

    /// At most this many vectors in one run.
    static let maximumCount = 10_000_000

    var options: VectorOptions

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[0])'")
        }
        var options = VectorOptions(
            zoom: parsed.flags.contains("zoom"), companions: parsed.flags.contains("companions"),
            faces: parsed.flags.contains("faces"))
        if let text = parsed.values["count"] {
            guard let count = Int(text), (0...Self.maximumCount).contains(count) else {
                throw UsageError(
                    message:
                        "--count must be a whole number from 0 to \(Self.maximumCount), not '\(text)'"
                )
            }
            options.count = count
        }
        if let text = parsed.values["seed"] {
            guard let seed = UInt64(text) else {
                throw UsageError(
                    message: "--seed must be a whole number from 0 to 2^64-1, not '\(text)'")
            }
            options.seed = seed
        }
        if let text = parsed.values["modes"] {
            options.modes = try Self.list(text, all: ContentMode.allCases, option: "modes") {
                ContentMode(rawValue: $0)
            }
        }
        if let text = parsed.values["orientations"] {
            options.orientations = try Self.list(
                text, all: EXIFOrientation.allCases, option: "orientations"
            ) { Int($0).flatMap(EXIFOrientation.init(rawValue:)) }
        }
        self.options = options
    }

    /// A comma-separated list of `parse`'s values, or `all`.
    static func list<T>(
        _ text: String, all: [T], option: String, _ parse: (String) -> T?
    ) throws(UsageError) -> [T] {
        if text == "all" { return all }
        var out: [T] = []
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let value = parse(String(word)) else {
                throw UsageError(message: "--\(option): unknown value '\(word)' in '\(text)'")
            }
            out.append(value)
        }
        return out
    }

    func run(console: Console) -> Int32 {
        var text = ""
        var written = 0
        CropVectors.generate(options) { vector in
            text += MachineInterface.versioned(vector.record.json).text
            text += "\n"
            written += 1
            if written % 4096 == 0 {
                console.out.write(text)
                text = ""
            }
        }
        console.out.write(text)
        return ExitCode.success
    }
}
