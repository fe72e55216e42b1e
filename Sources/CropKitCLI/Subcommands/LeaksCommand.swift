import CropImaging
import CropRecords

/// `cropkit leaks`: looks through crops for anything of the uncropped photo.
struct LeaksCommand: Subcommand {
    static let name = "leaks"
    static let summary =
        "check that crops hold nothing of the uncropped photo (thumbnails, previews, trailing data)"
    static let usage = """
        Usage: cropkit leaks FILE... [--json]

        Looks through each PNG, JPEG, HEIC, WebP, AVIF or GIF for anything that
        shows more than its own pixels: an embedded image (an EXIF or JFIF
        thumbnail, a maker-note or FlashPix preview, an MPF secondary image
        such as an HDR gain map or a depth map, an XMP preview or container
        item, extended XMP; a HEIF's or AVIF's thumbnail, auxiliary and other
        images), bytes after the end of the image (EOI, IEND or the RIFF size:
        the aCropalypse leak), EXIF or XMP dimensions that disagree with the
        pixels, and (HEIF, AVIF) pixels coded in a tile but hidden beyond the
        clean aperture that are not the shown edge
        repeated or a flat fill (those tiles are decoded); for an animation
        (GIF, APNG, animated WebP), frames reaching beyond the canvas and its
        metadata and trailing bytes as above. A crop CropKit wrote has
        none; most camera and phone originals have several. Exit 0 when no file
        has any, 1 when one does, 2 when a file cannot be read.

        --json prints one JSON object per file (JSON Lines), shaped as the
        published schema 'leaks-line' says ('cropkit schema leaks-line'): each
        finding's place, kind (embeddedImage, imageIndex, trailingBytes,
        staleDimensions, staleCoordinates, hiddenPixels, unreadable), words and
        measured values; a file that cannot be read gives
        {"schemaVersion":1,"file":...,"error":...,"errorCode":...} in its place.
        """
    static let options: [OptionSpec] = [
        .json("print one JSON object per file (JSON Lines): its findings")
    ]

    var paths: [String]
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        paths = try parsed.files()
        json = parsed.flags.contains("json")
    }

    func run(console: Console) -> Int32 {
        var status = ExitCode.success
        for path in paths {
            do throws(ImagingError) {
                let findings = try LeakCheck.findings(path: path)
                if json {
                    console.out.write(
                        MachineInterface.versioned(
                            .object([
                                .init("file", .string(path)),
                                .init("clean", .bool(findings.isEmpty)),
                                .init("findings", .array(findings.map(\.json))),
                            ])
                        ).text + "\n")
                } else if findings.isEmpty {
                    console.out.write("\(field: path): clean\n")
                } else {
                    console.out.write("\(field: path): \(findings.count) finding(s)\n")
                    for finding in findings { console.out.write("  \(field: finding)\n") }
                }
                if !findings.isEmpty && status == ExitCode.success { status = ExitCode.failure }
            } catch {
                if json {
                    console.out.write(
                        MachineInterface.versioned(
                            .object([.init("file", .string(path))] + error.jsonMembers)
                        ).text + "\n")
                }
                console.err.write("error: \(field: error.commandLineMessage)\n")
                status = ExitCode.badInput
            }
        }
        return status
    }
}
