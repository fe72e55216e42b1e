import CropGeometry
import CropImaging
import CropRecords

/// `cropkit info`: what an image file is, without decoding its pixels.
struct InfoCommand: Subcommand {
    static let name = "info"
    static let summary =
        "show an image's format, stored and oriented size, orientation, colour and profile"
    static let usage = """
        Usage: cropkit info FILE [--json]

        Reads a PNG's chunks or a JPEG's markers (no pixels are decoded) and
        prints the format, the stored size (as the file declares it), the size as
        seen after the EXIF orientation, the orientation, the colour space, the
        bit depth and the embedded colour profile. Exit 2 for a file that cannot
        be read or is not a valid PNG or JPEG header.
        """
    static let options: [OptionSpec] = [
        OptionSpec(name: "json", value: nil, help: "print one JSON object")
    ]

    var path: String
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.count == 1 else { throw UsageError(message: "give one FILE") }
        path = parsed.positionals[0]
        json = parsed.flags.contains("json")
    }

    func run(console: Console) -> Int32 {
        do throws(ImagingError) {
            let summary = try ImageFileSummary.read(path: path)
            if json {
                var members: [JSONValue.Member] = [
                    .init("file", .string(path)), .init("format", .string(summary.format.rawValue)),
                    .init(
                        "stored",
                        .object([
                            .init("width", .number(summary.storedSize.width)),
                            .init("height", .number(summary.storedSize.height)),
                        ])),
                    .init(
                        "oriented",
                        .object([
                            .init("width", .number(summary.orientedSize.width)),
                            .init("height", .number(summary.orientedSize.height)),
                        ])),
                    .init("orientation", .number(summary.orientation.rawValue)),
                    .init("colorSpace", .string(summary.colorSpace)),
                    .init("bitDepth", .number(summary.bitDepth)),
                    .init("profile", summary.profile.map { .string($0) } ?? .null),
                ]
                for (key, value) in summary.details { members.append(.init(key, .string(value))) }
                members.append(.init("warnings", .array(summary.warnings.map { .string($0) })))
                console.out.write(JSONValue.object(members).text + "\n")
            } else {
                var lines = [
                    "format       \(summary.format.rawValue)",
                    "stored       \(summary.storedSize) (as the file declares it)",
                    "oriented     \(summary.orientedSize) (as the person sees it)",
                    "orientation  \(summary.orientation.rawValue)",
                    "colour       \(summary.colorSpace), \(summary.bitDepth)-bit",
                    "profile      \(summary.profile ?? "none")",
                ]
                for (key, value) in summary.details where !value.isEmpty {
                    lines.append(
                        key + String(repeating: " ", count: max(1, 13 - key.count)) + value)
                }
                console.out.write(lines.joined(separator: "\n") + "\n")
                for warning in summary.warnings { console.err.write("warning: \(warning)\n") }
            }
            return ExitCode.success
        } catch {
            console.err.write("error: \(error.commandLineMessage)\n")
            return error.exitCode
        }
    }
}
