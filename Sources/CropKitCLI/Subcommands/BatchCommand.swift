import CropGeometry
import CropImaging
import Dispatch
import Foundation

/// `cropkit batch`: many crops from a manifest, on every core, resumable and
/// shardable.
struct BatchCommand: Subcommand {
    static let name = "batch"
    static let summary =
        "run many crops from a JSON Lines manifest on all cores; resumable, shardable"
    static let usage = """
        Usage: cropkit batch MANIFEST.jsonl [--shard I/N] [--jobs J] [--report FILE.jsonl] [--force]

        Each manifest line is a JSON object: "input" and "output" (paths, relative
        ones resolved against the manifest's folder) and either "pixels"
        {"x","y","width","height"} (in the image as seen) or a view selection in
        the record format: "viewport", "selection" and optionally "mode",
        "imageScale", "zoom", "orientation" (the file's own EXIF orientation is
        used when absent), "aspect" ("p:q" or "source").

        Crops run in parallel, one per core (--jobs to change). An output that
        already exists is skipped: outputs are written atomically, so an existing
        one is complete, and a killed batch can simply be run again (--force
        redoes them). --shard I/N takes only the lines whose index (from 0) is I
        modulo N, so N tasks of an array job (Kubernetes Indexed Job, Slurm or
        GNU parallel) share a manifest without overlap. One JSON line per manifest
        line goes to --report (or standard output); a progress bar goes to
        standard error when it is a terminal, and a summary always.
        Exit 1 when any line failed, 2 when the manifest cannot be read.
        """
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "shard", value: "I/N", help: "process only lines with index I modulo N (I from 0)"
        ),
        OptionSpec(name: "jobs", value: "J", help: "crops at once (default: the number of cores)"),
        OptionSpec(
            name: "report", value: "FILE.jsonl",
            help: "write the per-line report here instead of standard output"),
        OptionSpec(name: "force", value: nil, help: "redo outputs that already exist"),
    ]

    var manifest: String
    var shard: (index: Int, count: Int)
    var jobs: Int
    var reportPath: String?
    var force: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        guard parsed.positionals.count == 1 else {
            throw UsageError(message: "give one MANIFEST.jsonl")
        }
        manifest = parsed.positionals[0]
        shard = (0, 1)
        if let text = parsed.values["shard"] {
            let parts = text.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, parts[1] >= 1, parts[0] >= 0, parts[0] < parts[1] else {
                throw UsageError(message: "--shard must be I/N with 0 <= I < N, not '\(text)'")
            }
            shard = (parts[0], parts[1])
        }
        jobs = ProcessInfo.processInfo.activeProcessorCount
        if let text = parsed.values["jobs"] {
            guard let value = Int(text), value >= 1, value <= 256 else {
                throw UsageError(message: "--jobs must be 1 to 256, not '\(text)'")
            }
            jobs = value
        }
        reportPath = parsed.values["report"]
        force = parsed.flags.contains("force")
    }

    /// One manifest line's outcome.
    struct Outcome: Sendable {
        var line: Int
        var status: String
        var members: [JSONValue.Member]
    }

    /// The outcomes so far, and the progress bar, behind one lock: workers
    /// report from several threads.
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var outcomes: [Outcome] = []
        private let progress: TextSink?
        private let total: Int

        init(progress: TextSink?, total: Int) {
            self.progress = progress
            self.total = total
        }

        func add(_ outcome: Outcome) {
            lock.lock()
            defer { lock.unlock() }
            outcomes.append(outcome)
            if let progress {
                let width = 30
                let filled = width * outcomes.count / max(total, 1)
                progress.write(
                    "\r[" + String(repeating: "#", count: filled)
                        + String(repeating: ".", count: width - filled)
                        + "] \(outcomes.count)/\(total)")
                (progress as? StandardStream)?.flush()
            }
        }

        var sorted: [Outcome] {
            lock.lock()
            defer { lock.unlock() }
            return outcomes.sorted { $0.line < $1.line }
        }
    }

    func run(console: Console) -> Int32 {
        let lines: [String]
        switch LineReader.open(path: manifest) {
        case .failure(let error):
            console.err.write("error: \(error)\n")
            return ExitCode.badInput
        case .success(let reader):
            var all: [String] = []
            while let line = reader.nextLine() { all.append(line) }
            lines = all
        }
        let base = (manifest as NSString).deletingLastPathComponent
        // Non-blank lines are numbered from 1 and indexed from 0 for sharding.
        let work = lines.enumerated().filter { !$0.element.allSatisfy(\.isWhitespace) }
            .enumerated().filter { $0.offset % shard.count == shard.index }
            .map { (line: $0.element.offset + 1, text: $0.element.element) }
        let terminal = isatty(2) == 1
        let started = Date()
        let total = work.count
        let results = Results(progress: terminal ? console.err : nil, total: total)
        let force = force
        // One crop per job; each encodes on one thread, the jobs fill the cores.
        let encoder = PNGEncoder(threads: 1)
        let jobs = min(jobs, max(1, total))
        DispatchQueue.concurrentPerform(iterations: jobs) { worker in
            var index = worker
            while index < total {
                let item = work[index]
                let outcome = Self.process(
                    line: item.line, text: item.text, base: base, encoder: encoder, force: force)
                results.add(outcome)
                index += jobs
            }
        }
        if terminal { console.err.write("\n") }
        let outcomes = results.sorted
        var report = ""
        for outcome in outcomes {
            report +=
                JSONValue.object(
                    [
                        .init("line", .number(outcome.line)),
                        .init("status", .string(outcome.status)),
                    ] + outcome.members
                ).text + "\n"
        }
        if let reportPath {
            do throws(ImagingError) {
                try AtomicFile.write(Array(report.utf8), to: reportPath, replacing: true)
            } catch {
                console.err.write("error: \(error.message)\n")
                return ExitCode.badInput
            }
        } else {
            console.out.write(report)
        }
        let written = outcomes.filter { $0.status == "written" }.count
        let skipped = outcomes.filter { $0.status == "skipped" }.count
        let failed = outcomes.filter { $0.status == "failed" }.count
        let seconds = Date().timeIntervalSince(started)
        console.err.write(
            "batch: \(written) written, \(skipped) skipped (already complete), \(failed) failed, shard \(shard.index)/\(shard.count), \(String(format: "%.2f", seconds)) s\n"
        )
        return failed > 0 ? ExitCode.failure : ExitCode.success
    }

    /// One manifest line: parse, map, crop, write.
    static func process(line: Int, text: String, base: String, encoder: PNGEncoder, force: Bool)
        -> Outcome
    {
        func failed(_ message: String, _ extra: [JSONValue.Member] = []) -> Outcome {
            Outcome(
                line: line, status: "failed", members: extra + [.init("error", .string(message))])
        }
        guard let json = try? JSONValue(parsing: text), case .object = json else {
            return failed("not a JSON object")
        }
        guard case .string(let inputName)? = json["input"],
            case .string(let outputName)? = json["output"]
        else {
            return failed("a line needs \"input\" and \"output\" strings")
        }
        func resolve(_ path: String) -> String {
            path.hasPrefix("/") || base.isEmpty ? path : base + "/" + path
        }
        let input = resolve(inputName)
        let output = resolve(outputName)
        let paths: [JSONValue.Member] = [
            .init("input", .string(input)), .init("output", .string(output)),
        ]
        if !force && FileManager.default.fileExists(atPath: output) {
            return Outcome(line: line, status: "skipped", members: paths)
        }
        do throws(ImagingError) {
            let file = try ImageSource.read(path: input)
            let stored = file.storedSize
            let oriented = file.orientation.orientedSize(stored)
            let result: CropResult
            if let pixels = json["pixels"] {
                guard case .number(_, let x)? = pixels["x"], case .number(_, let y)? = pixels["y"],
                    case .number(_, let w)? = pixels["width"],
                    case .number(_, let h)? = pixels["height"],
                    [x, y, w, h].allSatisfy({ $0 == $0.rounded() && abs($0) < 1e9 })
                else { return failed("\"pixels\" needs whole numbers x, y, width, height", paths) }
                let rect = PixelRect<ImagePixels>(
                    x: Int(x), y: Int(y), width: Int(w), height: Int(h))
                guard rect.width > 0, rect.height > 0, rect.isInside(oriented) else {
                    return failed(
                        "\"pixels\" \(rect) is not inside the \(oriented) image", paths)
                }
                result = CropResult(
                    rect: rect, orientation: file.orientation, sourceSize: stored)
            } else {
                // The record format, with the source taken from the file.
                var members: [JSONValue.Member] = [
                    .init(
                        "source",
                        .object([
                            .init("width", .number(stored.width)),
                            .init("height", .number(stored.height)),
                        ]))
                ]
                if case .object(let given) = json {
                    members += given.filter {
                        !["source", "input", "output", "aspect"].contains($0.key)
                    }
                }
                if json["orientation"] == nil {
                    members.append(.init("orientation", .number(file.orientation.rawValue)))
                }
                let record: CropRecord
                do {
                    record = try CropRecord(jsonLine: JSONValue.object(members).text)
                } catch {
                    return failed("not a pixel rect or a view selection: \(error)", paths)
                }
                var request = record.request
                guard let orientation = EXIFOrientation(exactly: record.orientationValue) else {
                    return failed("orientation must be 1 to 8", paths)
                }
                request.orientation = orientation
                var ratio: AspectRatio?
                if case .string(let aspect)? = json["aspect"] {
                    ratio =
                        aspect == "source"
                        ? AspectRatio(
                            width: oriented.width, height: oriented.height)
                        : AspectRatio(parsing: aspect)
                    if ratio == nil {
                        return failed("\"aspect\" must be \"p:q\" or \"source\"", paths)
                    }
                }
                do {
                    result = try request.map(aspectRatio: ratio)
                } catch {
                    return failed("no pixels: \(error)", paths)
                }
            }
            let report = try CropExport.crop(
                file, input: input, stored: result.stored, orientation: result.orientation,
                output: output,
                encoder: encoder, replacing: force)
            return Outcome(
                line: line, status: "written",
                members: paths + [
                    .init("pixels", result.json), .init("bytes", .number(report.bytes)),
                ])
        } catch {
            // Another task writing the same output first is not a failure.
            if error.code == .outputRefused, !force, FileManager.default.fileExists(atPath: output)
            {
                return Outcome(line: line, status: "skipped", members: paths)
            }
            return failed(error.message, paths)
        }
    }
}
