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

        --json prints one JSON object per file, one per line (JSON Lines), typed
        as the published schema 'info-line' says ('cropkit schema info-line'):
        camelCase names, numbers as numbers, sizes, rects and grids as
        objects, each companion, place and transform an object beside its
        sentence ('summary'). A file that cannot be read gives
        {"schemaVersion":1,"file":...,"error":...,"errorCode":...} in its
        place.
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
                    console.out.write(
                        MachineInterface.versioned(Self.json(summary, path: path)).text + "\n")
                } else {
                    console.out.write(Self.text(summary))
                }
                for warning in summary.warnings {
                    console.err.write("warning: \(field: path): \(field: warning)\n")
                }
            } catch {
                if json {
                    console.out.write(
                        MachineInterface.versioned(
                            .object([.init("file", .string(path))] + error.jsonMembers)
                        ).text + "\n")
                }
                console.err.write("error: \(field: error.commandLineMessage)\n")
                status = error.exitCode
            }
        }
        return status
    }

    /// The `--json` object of one file.
    static func json(_ summary: ImageFileSummary, path: String) -> JSONValue {
        var members: [JSONValue.Member] = [
            .init("file", .string(path)), .init("format", .string(summary.format.rawValue)),
            .init("stored", summary.storedSize.json), .init("oriented", summary.orientedSize.json),
            .init("orientation", .number(summary.orientation.rawValue)),
            .init("colorSpace", .string(summary.colorSpace)),
            .init("bitDepth", .number(summary.bitDepth)),
            .init("profile", summary.profile.map { .string($0) } ?? .null),
        ]
        for detail in summary.details { members.append(.init(detail.key, detail.json)) }
        members.append(.init("warnings", .array(summary.warnings.map { .string($0) })))
        return .object(members)
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
            let value = detail.text
            guard !value.isEmpty else { continue }
            // A value is one field: what a file says cannot start a line.
            lines.append(
                detail.label + String(repeating: " ", count: max(1, 13 - detail.label.count))
                    + printable(field: value))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
