import CropGeometry
import CropImaging
import CropRecords
import Foundation

/// `cropkit info`: what image files are, without decoding their pixels.
struct InfoCommand: Subcommand {
    static let name = "info"
    static let summary =
        "show images' format, stored and oriented size, orientation, colour and profile"
    static let usage = """
        Usage: cropkit info FILE... [--json]

        Reads each PNG's chunks, JPEG's markers, HEIF's or AVIF's boxes or
        WebP's RIFF chunks (no pixels are decoded) and prints the format, the
        stored size (as the file declares it), the size as seen after the
        orientation (a JPEG's or WebP's EXIF orientation; a HEIF's irot and
        imir), the orientation, the colour space, the bit depth, the embedded
        colour profile and the format's details; for a HEIF or AVIF its
        structure: brands, primary item, grid and tile size, clean
        aperture, transforms, colour (ICC or nclx), EXIF and XMP, thumbnails
        and auxiliary images (HDR gain map, depth, mattes). With
        several files, each report starts with a '== FILE' line, as vipsheader
        and exiftool do.

        --json prints one JSON object per file, one per line (JSON Lines), with
        the keys 'crop --json' uses: camelCase names, arrays for lists, true or
        false for yes or no, numbers as numbers. A file that cannot be read
        gives {"file":...,"error":...} in its place.
        Exit 2 when any file cannot be read or is not a valid PNG, JPEG or HEIF
        header; the others are still reported.
        """
    static let options: [OptionSpec] = [
        .json("print one JSON object per file (JSON Lines)")
    ]

    var paths: [String]
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        paths = try parsed.files()
        json = parsed.flags.contains("json")
    }

    func run(console: Console) -> Int32 {
        var status = ExitCode.success
        for (index, path) in paths.enumerated() {
            if !json && paths.count > 1 {
                console.out.write((index > 0 ? "\n" : "") + "== \(field: path)\n")
            }
            do throws(ImagingError) {
                let summary = try ImageFileSummary.read(path: path)
                if json {
                    console.out.write(Self.json(summary, path: path).text + "\n")
                } else {
                    console.out.write(Self.text(summary))
                }
                for warning in summary.warnings {
                    console.err.write("warning: \(field: path): \(field: warning)\n")
                }
            } catch {
                if json {
                    console.out.write(
                        JSONValue.object([
                            .init("file", .string(path)),
                            .init("error", .string(error.commandLineMessage)),
                        ]).text + "\n")
                }
                console.err.write("error: \(field: error.commandLineMessage)\n")
                status = error.exitCode
            }
        }
        return status
    }

    /// The `--json` object of one file.
    static func json(_ summary: ImageFileSummary, path: String) -> JSONValue {
        func size(_ width: Int, _ height: Int) -> JSONValue {
            .object([.init("width", .number(width)), .init("height", .number(height))])
        }
        var members: [JSONValue.Member] = [
            .init("file", .string(path)), .init("format", .string(summary.format.rawValue)),
            .init("stored", size(summary.storedSize.width, summary.storedSize.height)),
            .init("oriented", size(summary.orientedSize.width, summary.orientedSize.height)),
            .init("orientation", .number(summary.orientation.rawValue)),
            .init("colorSpace", .string(summary.colorSpace)),
            .init("bitDepth", .number(summary.bitDepth)),
            .init("profile", summary.profile.map { .string($0) } ?? .null),
        ]
        for detail in summary.details { members.append(.init(detail.key, json(detail.value))) }
        members.append(.init("warnings", .array(summary.warnings.map { .string($0) })))
        return .object(members)
    }

    /// A detail's value as JSON.
    static func json(_ value: ImageFileSummary.Detail.Value) -> JSONValue {
        switch value {
        case .flag(let flag): .bool(flag)
        case .number(let number): .number(number)
        case .list(let words): .array(words.map { .string($0) })
        case .measure(let measure): .number((measure * 100).rounded() / 100)
        case .text(let text): .string(text)
        case .counts(let counts): .object(counts.map { .init($0.name, .number($0.value)) })
        }
    }

    /// The text report of one file.
    static func text(_ summary: ImageFileSummary) -> String {
        var lines = [
            "format       \(summary.format.rawValue)",
            "stored       \(summary.storedSize) (as the file declares it)",
            "oriented     \(summary.orientedSize) (as the person sees it)",
            "orientation  \(summary.orientation.rawValue)",
            "colour       \(summary.colorSpace), \(summary.bitDepth)-bit",
            "profile      \(field: summary.profile ?? "none")",
        ]
        for detail in summary.details {
            let value: String
            switch detail.value {
            case .flag(let flag): value = flag ? "yes" : "no"
            case .number(let number): value = "\(number)"
            case .list(let words):
                // Words by spaces ("4:2:0 1x1"); phrases, which hold spaces
                // themselves, by semicolons.
                // An empty list is said: "location none".
                value =
                    words.isEmpty
                    ? "none"
                    : words.joined(separator: words.contains { $0.contains(" ") } ? "; " : " ")
            case .measure(let measure): value = String(format: "%.2f", measure)
            case .text(let text): value = text
            case .counts(let counts):
                value = counts.map { "\($0.name): \($0.value)" }.joined(separator: ", ")
            }
            guard !value.isEmpty else { continue }
            // A value is one field: what a file says cannot start a line.
            lines.append(
                detail.label + String(repeating: " ", count: max(1, 13 - detail.label.count))
                    + printable(field: value))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
