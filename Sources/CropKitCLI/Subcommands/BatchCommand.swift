import CropGeometry
import CropImaging
import CropRecords
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
        The whole manifest is checked before the first crop, and refused (exit 2,
        the lines named) when two lines write one output, a line writes a line's
        input or the manifest, --report is the manifest, an input or an output,
        or a line is not UTF-8.
        Exit 1 when any line failed, 2 when the manifest cannot be read (or has a
        line longer than --max-line-bytes).
        """
    static let options: [OptionSpec] =
        [
            OptionSpec(
                name: "shard", value: "I/N",
                help: "process only lines with index I modulo N (I from 0)"
            ),
            OptionSpec(
                name: "jobs", value: "J", help: "crops at once (default: the number of cores)"),
            OptionSpec(
                name: "report", value: "FILE.jsonl",
                help: "write the per-line report here instead of standard output"),
            OptionSpec(name: "force", value: nil, help: "redo outputs that already exist"),
            OptionSpec(
                name: "max-line-bytes", value: "N",
                help:
                    "refuse a manifest line longer than this (default \(LineReader.defaultMaxLineBytes))"
            ),
        ] + ImageOptions.specs + CompressionOptions.specs

    var manifest: String
    var shard: (index: Int, count: Int)
    var jobs: Int
    var reportPath: String?
    var force: Bool
    var image: ImageOptions
    /// One crop per job: each encodes on one thread, the jobs fill the cores.
    var encoder: PNGEncoder

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
        image = try ImageOptions(parsed)
        encoder = try CompressionOptions.encoder(parsed, threads: 1)
        maxLineBytes = try positiveInteger(parsed, "max-line-bytes") ?? maxLineBytes
    }

    var maxLineBytes = LineReader.defaultMaxLineBytes

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
            reader.maxLineBytes = maxLineBytes
            var all: [String] = []
            var number = 0
            while let bytes = reader.nextLineBytes() {
                number += 1
                // Paths are bytes: a line that is not UTF-8 would have its
                // bytes replaced by U+FFFD, and two outputs could become one.
                guard let line = String(validating: bytes, as: UTF8.self) else {
                    console.err.write(
                        "error: \(manifest): line \(number) is not valid UTF-8; paths must be UTF-8 text\n"
                    )
                    return ExitCode.badInput
                }
                all.append(line)
            }
            if let failure = reader.failure {
                console.err.write(
                    "error: \(manifest): \(failure); raise it with --max-line-bytes\n")
                return ExitCode.badInput
            }
            lines = all
        }
        let base = (manifest as NSString).deletingLastPathComponent
        if let conflict = Self.conflicts(
            in: lines, base: base, manifest: manifest, report: reportPath)
        {
            console.err.write("error: \(manifest): \(conflict); nothing was cropped\n")
            return ExitCode.badInput
        }
        // Non-blank lines are numbered from 1 and indexed from 0 for sharding.
        let work = lines.enumerated().filter { !$0.element.allSatisfy(\.isWhitespace) }
            .enumerated().filter { $0.offset % shard.count == shard.index }
            .map { (line: $0.element.offset + 1, text: $0.element.element) }
        let terminal = isatty(2) == 1
        let started = Date()
        let total = work.count
        let results = Results(progress: terminal ? console.err : nil, total: total)
        let jobs = min(jobs, max(1, total))
        DispatchQueue.concurrentPerform(iterations: jobs) { worker in
            var index = worker
            while index < total {
                let item = work[index]
                let outcome = process(line: item.line, text: item.text, base: base)
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
                console.err.write("error: \(error.commandLineMessage)\n")
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

    /// One manifest line: parse, plan, crop, write; the same library calls
    /// as `cropkit crop`.
    func process(line: Int, text: String, base: String) -> Outcome {
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
        let job: CropJob
        switch Self.job(from: json) {
        case .failure(let message): return failed(message.text, paths)
        case .success(let region):
            job = CropJob(
                region: region.region, orientation: region.orientation,
                format: .png(encoder), lenient: image.lenient)
        }
        do throws(ImagingError) {
            let source = try image.open(input)
            let plan: CropPlan
            do throws(CropPlanError) {
                plan = try job.plan(for: source)
            } catch {
                return failed("no pixels: \(error)", paths)
            }
            let folder = (output as NSString).deletingLastPathComponent
            if !folder.isEmpty {
                try? FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true)
            }
            let report = try plan.write(to: output, replacing: force)
            return Outcome(
                line: line, status: "written",
                members: paths + [
                    .init("pixels", plan.result.json), .init("bytes", .number(report.bytes)),
                ])
        } catch {
            // Another task writing the same output first is not a failure.
            if case .outputExists = error, !force {
                return Outcome(line: line, status: "skipped", members: paths)
            }
            return failed(error.commandLineMessage, paths)
        }
    }

    /// What in the whole manifest would lose work, checked before the first
    /// crop (of every shard): two lines with one output, an output that is
    /// a line's input, a report that is the manifest or an input. Paths are
    /// compared after resolving them against the manifest's folder and
    /// standardizing, and by device and inode where the files exist.
    static func conflicts(in lines: [String], base: String, manifest: String, report: String?)
        -> String?
    {
        func resolve(_ path: String) -> String {
            let full = path.hasPrefix("/") || base.isEmpty ? path : base + "/" + path
            return (full as NSString).standardizingPath
        }
        // A file that exists is known by its device and inode too, so two
        // spellings of one file (a link, "a/../b") meet.
        func identity(_ path: String) -> String? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return "\(info.st_dev):\(info.st_ino)"
        }
        var inputLine: [String: Int] = [:]
        var outputLine: [String: Int] = [:]
        func keys(_ path: String) -> [String] { [path] + (identity(path).map { [$0] } ?? []) }
        var outputs: [(line: Int, path: String)] = []
        for (index, text) in lines.enumerated() {
            guard let json = try? JSONValue(parsing: text) else { continue }
            if case .string(let input)? = json["input"] {
                for key in keys(resolve(input)) where inputLine[key] == nil {
                    inputLine[key] = index + 1
                }
            }
            if case .string(let output)? = json["output"] {
                let path = resolve(output)
                for key in keys(path) {
                    if let earlier = outputLine[key] {
                        return "lines \(earlier) and \(index + 1) both write '\(path)'"
                    }
                    outputLine[key] = index + 1
                }
                outputs.append((index + 1, path))
            }
        }
        let manifestKeys = Set(keys((manifest as NSString).standardizingPath))
        for output in outputs {
            let outputKeys = keys(output.path)
            if let input = outputKeys.compactMap({ inputLine[$0] }).first {
                return "line \(output.line) writes '\(output.path)', the input of line \(input)"
            }
            if !manifestKeys.isDisjoint(with: outputKeys) {
                return "line \(output.line) writes the manifest itself"
            }
        }
        if let report {
            let reportKeys = keys((report as NSString).standardizingPath)
            if !manifestKeys.isDisjoint(with: reportKeys) {
                return "--report '\(report)' is the manifest itself"
            }
            if let input = reportKeys.compactMap({ inputLine[$0] }).first {
                return "--report '\(report)' is the input of line \(input)"
            }
            if let output = reportKeys.compactMap({ outputLine[$0] }).first {
                return "--report '\(report)' is the output of line \(output)"
            }
        }
        return nil
    }

    /// Why a manifest line has no job.
    struct LineProblem: Error {
        var text: String
    }

    /// The region and orientation a manifest line asks for: `pixels`, or a
    /// view selection in the record format (the source size comes from the
    /// image; the orientation too, unless the line gives one).
    static func job(from json: JSONValue)
        -> Result<(region: CropJob.Region, orientation: EXIFOrientation?), LineProblem>
    {
        var orientation: EXIFOrientation?
        if let value = json["orientation"] {
            guard case .number(_, let number) = value, let given = EXIFOrientation(exactly: number)
            else { return .failure(LineProblem(text: "orientation must be 1 to 8")) }
            orientation = given
        }
        if let pixels = json["pixels"] {
            guard case .number(_, let x)? = pixels["x"], case .number(_, let y)? = pixels["y"],
                case .number(_, let w)? = pixels["width"],
                case .number(_, let h)? = pixels["height"],
                [x, y, w, h].allSatisfy({ $0 == $0.rounded() && abs($0) < 1e9 })
            else {
                return .failure(
                    LineProblem(text: "\"pixels\" needs whole numbers x, y, width, height"))
            }
            let rect = PixelRect<ImagePixels>(x: Int(x), y: Int(y), width: Int(w), height: Int(h))
            return .success((.pixels(rect), orientation))
        }
        do throws(CropRecordError) {
            let record = try CropRecord(json: json, sourceGivenBy: "the image")
            return .success((.view(record.request, aspect: record.aspect), orientation))
        } catch {
            return .failure(LineProblem(text: "not a pixel rect or a view selection: \(error)"))
        }
    }
}
