import CropImaging
import CropKitCLI
import CropKitTestSupport
import Foundation
import Testing

/// What one in-process run of `cropkit` printed and returned.
struct Run {
    var status: Int32
    var out: String
    var err: String
}

/// Runs the cropkit binary beside the tests in a process of its own, its
/// environment this one's with `environment` added (settings read once a
/// process, such as `CROPKIT_AV1_DECODER`).
func cropkitProcess(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
    let run = try Subprocess.run(
        try #require(KillTests.binary), arguments, environment: environment)
    return Run(status: run.status, out: run.out, err: run.err)
}

/// Runs `cropkit` in this process, with `input` as standard input.
func cropkit(_ arguments: String..., input: String? = nil) -> Run {
    cropkit(arguments, input: input)
}

func cropkit(_ arguments: [String], input: String? = nil) -> Run {
    let out = StringSink()
    let err = StringSink()
    let console = Console(out: out, err: err, input: { input.map(LineReader.init(text:)) })
    let status = CropKitTool.run(arguments, console: console)
    let run = Run(status: status, out: out.text, err: err.text)
    if status == 0 { expectNoLeaks(inImagesWrittenBy: arguments, run) }
    JSONLog.record(arguments, run)
    return run
}

/// Every image a successful `crop`, `batch` or `replay --export` wrote is
/// read back by `cropkit leaks`' check, so that no test of any path passes
/// with an output that shows more than its rect: nothing embedded, nothing
/// after the end, nothing hidden in a tile. `--keep-makernote` is the one
/// option that may keep a preview on purpose; its outputs are not checked.
func expectNoLeaks(
    inImagesWrittenBy arguments: [String], _ run: Run,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard !arguments.contains("--keep-makernote") else { return }
    for path in imagesWritten(by: arguments, run) {
        do {
            let findings = try LeakCheck.findings(path: path)
            #expect(
                findings.isEmpty,
                "cropkit \(arguments.joined(separator: " ")) wrote \(path) with \(findings)",
                sourceLocation: sourceLocation)
        } catch {
            Issue.record(
                "cropkit \(arguments.joined(separator: " ")) wrote \(path), which leaks cannot read: \(error)",
                sourceLocation: sourceLocation)
        }
    }
}

/// The image files a run of `crop`, `batch` or `replay --export` wrote:
/// each `-o` of a crop, each line the batch report calls written (with its
/// variants), each image in replay's export folder.
func imagesWritten(by arguments: [String], _ run: Run) -> [String] {
    let isImage = { (path: String) in
        ["png", "jpg", "jpeg", "heic", "heif", "webp", "avif", "gif", "apng"].contains(
            (path as NSString).pathExtension.lowercased())
    }
    func values(of flags: Set<String>) -> [String] {
        zip(arguments, arguments.dropFirst()).filter { flags.contains($0.0) }.map(\.1)
    }
    switch arguments.first {
    case "crop":
        return values(of: ["-o", "--output"]).filter { $0 != "-" && isImage($0) }
    case "batch":
        let report = values(of: ["--report"]).last.flatMap {
            try? String(contentsOfFile: $0, encoding: .utf8)
        }
        return (report ?? run.out).split(separator: "\n").flatMap { line -> [String] in
            guard let data = line.data(using: .utf8),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                object["status"] as? String == "written"
            else { return [] }
            let variants = (object["variants"] as? [[String: Any]] ?? []).compactMap {
                $0["output"] as? String
            }
            return ([object["output"] as? String].compactMap { $0 } + variants).filter(isImage)
        }
    case "replay":
        return values(of: ["--export"]).flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter(isImage)
                .map {
                    folder + "/" + $0
                }
        }
    default:
        return []
    }
}

/// The 64x48 coordinates fixture as a JPEG CropKit wrote of it (a colour
/// photo with no metadata), made in `folder`: the base hostile files are
/// made of.
func plainJPEG(in folder: URL) throws -> [UInt8] {
    let pixels = try PNGEncoder().encode(Fixture.make(.coordinates, width: 64, height: 48))
    let plain = folder.appendingPathComponent("plain.png").path
    try Data(pixels).write(to: URL(fileURLWithPath: plain))
    let jpeg = folder.appendingPathComponent("plain.jpg").path
    let run = cropkit("crop", plain, "--pixels", "0,0,64,48", "-o", jpeg, "--force")
    try #require(run.status == 0, "\(run.err)")
    return try [UInt8](Data(contentsOf: URL(fileURLWithPath: jpeg)))
}

/// A fresh temporary folder, removed by the caller.
func temporaryFolder() throws -> URL { try TestData.temporaryFolder() }

/// `verify --format FORMAT` of one selection of a 640x480 source seen with
/// orientation 6, and `replay --export` of the same selection's record into
/// `folder`: both runs, and the export folder.
func verifyAndReplayExport(format: String, in folder: URL) throws -> (
    verify: Run, replay: Run, exported: String
) {
    let verify = cropkit(
        "verify", "--source", "640x480", "--viewport", "320x240", "--selection", "9,7,64,41",
        "--orientation", "6", "--format", format)
    let records = folder.appendingPathComponent("r.jsonl")
    try """
    {"source":{"width":640,"height":480},"viewport":{"width":320,"height":240},"selection":{"x":9,"y":7,"width":64,"height":41}}

    """.write(to: records, atomically: true, encoding: .utf8)
    let export = folder.appendingPathComponent("ex").path
    let replay = cropkit("replay", records.path, "--export", export, "--format", format)
    return (verify, replay, export)
}
