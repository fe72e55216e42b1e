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
        Usage: cropkit batch MANIFEST.jsonl [--shard I/N] [--jobs J] [--report FILE.jsonl] [--root DIR] [--force]
               cropkit batch MANIFEST.jsonl --merge REPORT.jsonl... [--report FILE.jsonl]

        Each manifest line is a JSON object: "input" and "output" (paths, relative
        ones resolved against the manifest's folder) and either "pixels"
        {"x","y","width","height"} (in the image as seen) or a view selection in
        the record format: "viewport", "selection" and optionally "mode",
        "imageScale", "zoom", "orientation" (the file's own EXIF orientation is
        used when absent), "aspect" ("p:q" or "source"). The output's extension
        (\(OutputFormat.extensions.map { "." + $0 }.joined(separator: ", "))) or an optional "format"
        (\(ImageFormat.listing(OutputFormat.names.map { "\"\($0)\"" }))) picks the format, as crop's
        do; --quality, --lossless, --snap-to-blocks and --strip apply to the
        lines of the formats that take them (as crop's --help says),
        --compressor and --level to the PNG ones.

        An animation (GIF, APNG, animated WebP) is cut frame by frame, as
        crop does, into .gif, .png or .apng (APNG) or .webp, its line reported
        with the members a crop's JSON report has (frames, plays, durationMs, copied, ...);
        "frame": N (from 0) takes one frame as a still, in any output format.

        Straighten and resize, as crop's options: "angle" (degrees), "inside":
        true (the largest rect inside, of "aspect"), "size" or "fit" ("WxH"),
        "width" or "height" (numbers), "filter", "fill" ("#rrggbb"), "circle":
        true. Variants: "variants" is an array of objects, each with its own
        "output" and any of the members above; each variant is the line with
        its members replacing the line's (a variant's region, "pixels", a view
        selection or "inside", replaces the line's whole region: one region a
        crop, as crop takes one), and the photo is decoded once for
        all of them, e.g. {"input":"a.jpg","width":1080,"variants":[{"output":
        "a-1x1.jpg","inside":true,"aspect":"1:1"},{"output":"a-4x5.jpg",
        "inside":true,"aspect":"4:5"}]}. Every member is checked: one that is
        unknown, given twice, of the wrong type or misplaced ("variants" inside
        a variant), or a path holding a NUL byte, fails its line, named.

        Crops run in parallel, one per core (--jobs to change). An output that
        already exists is skipped: outputs are written atomically, so an existing
        one is complete, and a killed batch can simply be run again (--force
        redoes them). --shard I/N takes only the lines whose index (from 0) is I
        modulo N, so N tasks of an array job (Kubernetes Indexed Job, Slurm or
        GNU parallel) share a manifest without overlap. One JSON line per manifest
        line goes to --report (or standard output), shaped as the published
        schema 'batch-line' says ('cropkit schema batch-line'): a failed line
        has "error" (a sentence) and "errorCode" (manifest, outsideRoot,
        invalidRequest, notLossless, noPixels, or the image's error: corrupt,
        limit, ...). A progress bar goes to standard error when it is a
        terminal, and a summary always.
        The whole manifest is checked before the first crop, and refused (exit 2,
        the lines named) when two lines write one output, a line writes a line's
        input or the manifest, --report is the manifest, an input or an output,
        or a line is not UTF-8. The manifest is read a line at a time (twice:
        checked, then cropped), never held whole, and the report is written in
        line order as the crops end.
        For a manifest from an untrusted source, --root DIR makes every input
        and output resolve, after symbolic links, inside DIR; a line that
        reaches outside fails (and nothing is read or written for it).
        Exit 1 when any line failed, 2 when the manifest cannot be read (or has a
        line longer than --max-line-bytes).

        A rerun of a shard rewrites its report (atomically: a killed run leaves
        none) with every line of the shard, those done before as "skipped" with
        their outputs' sizes. --merge reads the shards' reports and writes one
        report in manifest order (--report or standard output): each manifest
        line once, with the last word the reports give it (the last report named
        wins; two "written" results that differ are a conflict), its outputs
        checked to exist with the size in bytes the report gives and a header
        that reads as the format and pixel size it gives (a line whose output
        does not is failed, with the reason), and a line in no report written
        as "missing". A summary on standard error says how many
        lines are done, failed and missing, and which. Exit 1 when any line is
        failed or missing.
        """
    static let options: [OptionSpec] =
        [
            OptionSpec(
                name: "shard", value: "I/N",
                help: "process only lines with index I modulo N (I from 0)"
            ),
            OptionSpec(
                name: "merge", value: nil,
                help:
                    "merge the shards' reports given after the manifest into one, checking every line"
            ),
            OptionSpec(
                name: "jobs", value: "J", help: "crops at once (default: the number of cores)"),
            OptionSpec(
                name: "report", value: "FILE.jsonl",
                help: "write the per-line report here instead of standard output"),
            .force("redo outputs that already exist"),
            OptionSpec(
                name: "root", value: "DIR",
                help: "fail lines whose input or output resolves outside DIR (untrusted manifests)"),
            OptionSpec(
                name: "max-variants", value: "N",
                help:
                    "fail a line with more than N \"variants\" (default \(CropCommand.maxVariantsDefault))"
            ),
            OptionSpec(
                name: "max-line-bytes", value: "N",
                help:
                    "refuse a manifest line longer than this (default \(LineReader.defaultMaxLineBytes))"
            ),
        ] + ImageOptions.specs + OutputOptions.specs.filter { $0.name != "format" }

    var manifest: String
    var shard: (index: Int, count: Int)
    var jobs: Int
    var reportPath: String?
    var force: Bool
    /// The folder every path must resolve inside, resolved itself; `nil`
    /// without --root.
    var root: String?
    var image: ImageOptions
    /// The output flags (`--quality`, `--lossless`, `--strip`, ...), to
    /// pick each line's format by its output's extension or "format".
    var outputFlags: ParsedArguments

    /// With --merge, the shards' reports to merge.
    var merging: [String]?

    init(_ parsed: ParsedArguments) throws(UsageError) {
        if parsed.flags.contains("merge") {
            guard parsed.positionals.count >= 2 else {
                throw UsageError(
                    message:
                        "--merge needs the manifest, then the shards' reports: batch MANIFEST.jsonl --merge REPORT.jsonl..."
                )
            }
            for name in ["shard", "jobs", "root", "max-variants"] where parsed.values[name] != nil {
                throw UsageError(message: "--\(name) is for cropping, not for --merge")
            }
            if parsed.flags.contains("force") {
                throw UsageError(message: "--force is for cropping, not for --merge")
            }
            merging = Array(parsed.positionals.dropFirst())
        } else {
            guard parsed.positionals.count == 1 else {
                throw UsageError(
                    message:
                        "give one MANIFEST.jsonl (to merge shards' reports: MANIFEST.jsonl --merge REPORT.jsonl...)"
                )
            }
        }
        manifest = parsed.positionals[0]
        // Read twice (checked whole, then cropped): a pipe or a FIFO cannot
        // be, and opening a FIFO would wait for a writer.
        var manifestInfo = stat()
        if stat(manifest, &manifestInfo) == 0, (manifestInfo.st_mode & S_IFMT) != S_IFREG,
            (manifestInfo.st_mode & S_IFMT) != S_IFDIR
        {
            throw UsageError(
                message:
                    "\(manifest) is not a regular file: the manifest is read twice (checked whole, then cropped), so write it to a file first"
            )
        }
        shard = (0, 1)
        if let text = parsed.values["shard"] {
            let parts = text.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, parts[1] >= 1, parts[0] >= 0, parts[0] < parts[1] else {
                throw UsageError(message: "--shard must be I/N with 0 <= I < N, not '\(text)'")
            }
            shard = (parts[0], parts[1])
        }
        jobs = activeCores
        if let text = parsed.values["jobs"] {
            guard let value = Int(text), value >= 1, value <= 256 else {
                throw UsageError(message: "--jobs must be 1 to 256, not '\(text)'")
            }
            jobs = value
        }
        reportPath = parsed.values["report"]
        force = parsed.flags.contains("force")
        if let folder = parsed.values["root"] {
            guard let resolved = realpath(folder, nil) else {
                throw UsageError(message: "--root '\(folder)' is not a folder that exists")
            }
            root = String(cString: resolved)
            free(resolved)
            var info = stat()
            guard let root, stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw UsageError(message: "--root '\(folder)' is not a folder")
            }
        }
        image = try ImageOptions(parsed)
        outputFlags = parsed
        maxLineBytes = try positiveInteger(parsed, "max-line-bytes") ?? maxLineBytes
        maxVariants = try positiveInteger(parsed, "max-variants") ?? maxVariants
    }

    var maxVariants = CropCommand.maxVariantsDefault

    var maxLineBytes = LineReader.defaultMaxLineBytes

    /// One manifest line's outcome.
    struct Outcome: Sendable {
        var line: Int
        var status: String
        var members: [JSONValue.Member]
    }

    /// Why a line failed, as its `"errorCode"` says (the DocC article
    /// "Machine interface"): the line itself (`manifest`), a path outside
    /// --root (`outsideRoot`), a request the input or format cannot take
    /// (`invalidRequest`), a rect not on the block grid with `lossless`
    /// (`notLossless`), a selection that covers no pixel (`noPixels`), or
    /// the image's own error's kind (``ImagingError/Code``: `corrupt`,
    /// `limit`, ...).
    enum FailureCode: Sendable {
        case manifest, outsideRoot, invalidRequest, notLossless, noPixels
        case imaging(ImagingError.Code)

        /// The JSON value.
        var name: String {
            switch self {
            case .manifest: "manifest"
            case .outsideRoot: "outsideRoot"
            case .invalidRequest: "invalidRequest"
            case .notLossless: "notLossless"
            case .noPixels: "noPixels"
            case .imaging(let code): code.rawValue
            }
        }
    }

    /// A failed line: `members`, then `"error"` (the sentence) and
    /// `"errorCode"`.
    static func failure(
        line: Int, _ message: String, _ members: [JSONValue.Member], code: FailureCode
    ) -> Outcome {
        Outcome(
            line: line, status: "failed",
            members: members + [
                .init("error", .string(message)), .init("errorCode", .string(code.name)),
            ])
    }

    /// The outcomes, written to the report in line order as they come (a
    /// few wait while an earlier line is still being cropped), with the
    /// counts and the progress bar, behind one lock: workers report from
    /// several threads.
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var waiting: [Int: Outcome] = [:]
        /// The lines in the order they are reported; the next one expected.
        private var order: [Int] = []
        private var next = 0
        private let report: (String) throws(ImagingError) -> Void
        private let progress: TextSink?
        /// Where each failed line is named briefly, when the report goes to
        /// a file (the first ``maxFailuresNamed``; the report has them all).
        private let failures: TextSink?
        private var failuresNamed = 0
        static let maxFailuresNamed = 100
        private let total: Int
        private(set) var counts: [String: Int] = [:]
        private var done = 0
        private(set) var failure: ImagingError?

        init(
            progress: TextSink?, total: Int, failures: TextSink?,
            report: @escaping (String) throws(ImagingError) -> Void
        ) {
            self.progress = progress
            self.failures = failures
            self.total = total
            self.report = report
        }

        /// The lines of the next chunk, in the order their outcomes go out.
        func expect(_ lines: [Int]) {
            lock.lock()
            defer { lock.unlock() }
            order.removeFirst(next)
            next = 0
            order += lines
        }

        func add(_ outcome: Outcome) {
            lock.lock()
            defer { lock.unlock() }
            waiting[outcome.line] = outcome
            counts[outcome.status, default: 0] += 1
            done += 1
            while next < order.count, let ready = waiting.removeValue(forKey: order[next]) {
                next += 1
                let line =
                    JSONValue.object(
                        [
                            .init("schemaVersion", .number(MachineInterface.schemaVersion)),
                            .init("line", .number(ready.line)),
                            .init("status", .string(ready.status)),
                        ]
                            + ready.members
                    ).text + "\n"
                do throws(ImagingError) {
                    if failure == nil { try report(line) }
                } catch {
                    failure = error
                }
                if let failures, ready.status == "failed" {
                    failuresNamed += 1
                    // The progress line's own clearing goes as it is.
                    let clear = progress == nil ? [] : Array("\r\u{1B}[K".utf8)
                    if failuresNamed <= Self.maxFailuresNamed,
                        case .string(let error)? = ready.members.last(where: { $0.key == "error" })?
                            .value
                    {
                        failures.write(utf8: clear)
                        failures.write("line \(ready.line): failed: \(field: error)\n")
                    } else if failuresNamed == Self.maxFailuresNamed + 1 {
                        failures.write(utf8: clear)
                        failures.write("(more failed lines: see the report)\n")
                    }
                }
            }
            if let progress {
                let width = 30
                let filled = width * done / max(total, 1)
                progress.write(utf8: Array("\r".utf8))
                progress.write(
                    "[" + String(repeating: "#", count: filled)
                        + String(repeating: ".", count: width - filled)
                        + "] \(done)/\(total)")
                progress.flush()
            }
        }
    }

    func run(console: Console) -> Int32 {
        if let merging {
            if let reportPath, merging.contains(where: { cleanPath($0) == cleanPath(reportPath) }) {
                console.err.write(
                    "error: --report \(field: reportPath) is one of the reports to merge: name a new file\n"
                )
                return ExitCode.badInput
            }
            return BatchMerge(
                manifest: manifest, reports: merging, output: reportPath, maxLineBytes: maxLineBytes
            ).run(console: console)
        }
        let base = (manifest as NSString).deletingLastPathComponent
        // First pass: the whole manifest checked, a line at a time.
        var check = ManifestCheck(
            base: base, manifest: manifest, report: reportPath, shard: shard)
        switch readLines(console: console, { number, line in check.add(line: number, text: line) })
        {
        case .some(let code): return code
        case .none: break
        }
        if let conflict = check.problem ?? check.finish() {
            console.err.write(
                "error: \(field: manifest): \(field: conflict); nothing was cropped\n")
            return ExitCode.badInput
        }
        let terminal = isatty(2) == 1
        let started = Date()
        let total = check.linesInShard
        let sink: AtomicFile.Writer?
        do throws(ImagingError) {
            sink = try reportPath.map { path throws(ImagingError) in
                try AtomicFile.Writer(path: path, replacing: true)
            }
        } catch {
            console.err.write("error: \(field: error.commandLineMessage)\n")
            return ExitCode.badInput
        }
        let results = Results(
            progress: terminal ? console.err : nil, total: total,
            failures: sink == nil ? nil : console.err
        ) {
            text throws(ImagingError) in
            if let sink {
                try sink.write(Array(text.utf8)[...])
            } else {
                console.out.write(text)
            }
        }
        // Second pass: the lines of this shard cropped a chunk at a time,
        // every core busy within a chunk; only a chunk is held.
        let jobs = min(jobs, max(1, total))
        let chunkSize = max(1024, jobs * 64)
        var chunk: [(line: Int, text: String)] = []
        func crop() {
            let work = chunk
            results.expect(work.map(\.line))
            DispatchQueue.concurrentPerform(iterations: min(jobs, work.count)) { worker in
                var index = worker
                while index < work.count {
                    results.add(process(line: work[index].line, text: work[index].text, base: base))
                    index += jobs
                }
            }
            chunk.removeAll(keepingCapacity: true)
        }
        var nonBlank = 0
        _ = readLines(console: console) { number, line in
            guard !line.allSatisfy(\.isWhitespace) else { return }
            defer { nonBlank += 1 }
            guard nonBlank % shard.count == shard.index else { return }
            chunk.append((number, line))
            if chunk.count == chunkSize { crop() }
        }
        if !chunk.isEmpty { crop() }
        if terminal { console.err.write("\n") }
        do throws(ImagingError) {
            if let failure = results.failure { throw failure }
            try sink?.commit()
        } catch {
            console.err.write("error: \(field: error.commandLineMessage)\n")
            return ExitCode.badInput
        }
        let written = results.counts["written", default: 0]
        let skipped = results.counts["skipped", default: 0]
        let failed = results.counts["failed", default: 0]
        let seconds = Date().timeIntervalSince(started)
        console.err.write(
            "batch: \(written) written, \(skipped) skipped (already complete), \(failed) failed, shard \(shard.index)/\(shard.count), \(String(format: "%.2f", seconds)) s\n"
        )
        return failed > 0 ? ExitCode.failure : ExitCode.success
    }

    /// Reads the manifest a line at a time, handing each (numbered from 1)
    /// to `body`; returns the exit code when it cannot be read, has a line
    /// over --max-line-bytes, or is not UTF-8 text (binary data, or a line
    /// that is not UTF-8), else `nil`.
    private func readLines(console: Console, _ body: (Int, String) -> Void) -> Int32? {
        let reader: LineReader
        switch LineReader.open(path: manifest) {
        case .failure(let error):
            console.err.write("error: \(field: error)\n")
            return ExitCode.badInput
        case .success(let opened): reader = opened
        }
        reader.maxLineBytes = maxLineBytes
        var number = 0
        while let bytes = reader.nextLineBytes() {
            number += 1
            // The reader has checked the line is UTF-8 text (paths are
            // bytes: any other bytes would become U+FFFD, and two outputs
            // could become one).
            body(number, String(decoding: bytes, as: UTF8.self))
        }
        if let failure = reader.failure {
            console.err.write("error: \(field: manifest): \(field: failure)\n")
            return ExitCode.badInput
        }
        return nil
    }

    /// One manifest line: parse, plan, crop, write; the same library calls
    /// as `cropkit crop`.
    func process(line: Int, text: String, base: String) -> Outcome {
        func failed(
            _ message: String, _ extra: [JSONValue.Member] = [], code: FailureCode = .manifest
        ) -> Outcome {
            Self.failure(line: line, message, extra, code: code)
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: text)
        } catch {
            return failed("not valid JSON: \(error)")
        }
        if let problem = ManifestMembers.problem(in: json) {
            return failed(problem)
        }
        if let variants = json["variants"] {
            return processVariants(variants, of: json, line: line, base: base)
        }
        guard case .string(let inputName)? = json["input"],
            case .string(let outputName)? = json["output"]
        else {
            return failed("a line needs \"input\" and \"output\" strings (or \"variants\")")
        }
        // Resolved against the manifest's folder and standardized ("a/./b/../c"
        // is "a/c"), as the report shows them.
        func resolve(_ path: String) -> String { manifestPath(path, base: base) }
        let input = resolve(inputName)
        let output = resolve(outputName)
        let paths: [JSONValue.Member] = [
            .init("input", .string(input)), .init("output", .string(output)),
        ]
        if let root {
            for (role, path) in [("input", input), ("output", output)]
            where !Self.resolves(path, inside: root) {
                return failed(
                    "the \(role) '\(path)' resolves outside --root '\(root)'", paths,
                    code: .outsideRoot)
            }
        }
        // The line's format: its "format", or its output's extension.
        var flags = outputFlags
        if let value = json["format"] {
            guard case .string(let name) = value else {
                return failed(
                    "\"format\" must be a string: \(ImageFormat.listing(OutputFormat.names.map { "\"\($0)\"" }))",
                    paths)
            }
            flags.values["format"] = name
        }
        // A GIF (or .apng) is written by the animation path; the plan is
        // made as for PNG, as crop's is.
        let lowered = output.lowercased()
        let gifOutput = lowered.hasSuffix(".gif") || flags.values["format"]?.lowercased() == "gif"
        let apngOutput = lowered.hasSuffix(".apng")
        if gifOutput { flags.values["format"] = nil }
        let planned =
            gifOutput || apngOutput
            ? String(output.dropLast(apngOutput ? 5 : 4)) + ".png" : output
        var frame: Int?
        if let value = json["frame"] {
            guard case .number(_, let number) = value, number >= 0, number == number.rounded()
            else {
                return failed("\"frame\" must be a whole number from 0", paths)
            }
            frame = Int(number)
        }
        let format: OutputFormat
        do throws(UsageError) {
            format = try OutputOptions.format(for: planned, flags, threads: 1, mixed: true)
        } catch {
            let message =
                error.message.hasPrefix("-o ")
                ? "\"output\" " + error.message.dropFirst(3) : error.message
            return failed(message, paths)
        }
        if !force && FileManager.default.fileExists(atPath: output) {
            return Self.skipped(line: line, paths, outputs: [output])
        }
        let job: CropJob
        switch Self.job(from: json) {
        case .failure(let message): return failed(message.text, paths)
        case .success(let region):
            var made = CropJob(
                region: region.region, orientation: region.orientation,
                format: format, lenient: image.lenient)
            switch Self.resampling(from: json) {
            case .failure(let message): return failed(message.text, paths)
            case .success(let resampling): made.resampling = resampling
            }
            job = made
        }
        do throws(ImagingError) {
            var source: ImageSource
            if var animated = try AnimatedImage.open(path: input, limits: image.limits) {
                animated.inflater = image.inflater
                let animatedFormat = AnimatedImage.outputFormat(
                    named: gifOutput ? "gif" : job.format.name)
                switch (frame, animatedFormat) {
                case (let frame?, _):
                    if gifOutput {
                        return failed(
                            "a still frame is written as PNG, JPEG, HEIC, WebP or AVIF, not GIF",
                            paths, code: .invalidRequest)
                    }
                    source = try animated.frame(frame)
                case (nil, let animatedFormat?):
                    return processAnimation(
                        animated, as: animatedFormat, job: job, line: line, output: output,
                        paths: paths)
                case (nil, nil):
                    guard animated.animation.frames.count == 1 else {
                        return failed(
                            "an animation of \(animated.animation.frames.count) frames, and \(job.format.displayName) holds one image: add \"frame\" (0 to \(animated.animation.frames.count - 1)) for a still of one frame, or write GIF, APNG (.png) or WebP",
                            paths, code: .invalidRequest)
                    }
                    source = try animated.frame(0)
                }
            } else {
                let opened = try image.open(input)
                if let sequence = opened.imageSequence {
                    if let refusal = CropCommand.sequenceRefusal(
                        sequence, frame: frame, input: "the input", flag: "\"frame\"")
                    {
                        return failed(refusal, paths, code: .invalidRequest)
                    }
                } else if frame != nil {
                    return failed(
                        "\"frame\" is for an animation; the input is a still image", paths,
                        code: .invalidRequest)
                }
                if gifOutput {
                    return failed(
                        "GIF is written from an animation (GIF, APNG, animated WebP); write a still as PNG, JPEG, HEIC, WebP or AVIF",
                        paths, code: .invalidRequest)
                }
                source = opened
            }
            source.inflater = image.inflater
            let plan: CropPlan
            do throws(CropPlanError) {
                plan = try job.plan(for: source)
            } catch {
                if case .notLossless = error {
                    return failed("not lossless: \(error)", paths, code: .notLossless)
                }
                return failed("no pixels: \(error)", paths, code: .noPixels)
            }
            let folder = (output as NSString).deletingLastPathComponent
            if !folder.isEmpty {
                try? FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true)
            }
            let report = try plan.write(to: output, replacing: force)
            let written = try ImageSource.open(path: output)
            let (location, people) = CropCommand.keptPersonalData(written)
            return Outcome(
                line: line, status: "written",
                members: paths
                    + (plan.resampling.map { resampling -> [JSONValue.Member] in
                        let r = resampling.crop.rect
                        return [
                            .init("angle", .number(resampling.crop.frame.angle)),
                            .init("outputRect", r.json),
                            .init("read", plan.result.json),
                        ]
                    } ?? [.init("pixels", plan.result.json)]) + Self.header(of: written) + [
                        .init("bytes", .number(report.bytes)),
                        // Where the written file says the photo was taken.
                        .init("keptLocation", .array(location.map(\.json))),
                        // The names of people it holds.
                        .init("keptPeople", .array(people.map { .string($0) })),
                    ])
        } catch {
            // Another task writing the same output first is not a failure.
            if case .outputExists = error, !force {
                return Self.skipped(line: line, paths, outputs: [output])
            }
            return failed(error.commandLineMessage, paths, code: .imaging(error.code))
        }
    }

    /// A line whose input is an animation and whose output holds one
    /// (GIF, APNG, WebP): every frame cut to the rect, the timeline kept,
    /// reported with crop --json's members.
    func processAnimation(
        _ animated: AnimatedImage, as format: ImageFormat, job: CropJob, line: Int,
        output: String, paths: [JSONValue.Member]
    ) -> Outcome {
        func failed(_ message: String, code: FailureCode) -> Outcome {
            Self.failure(line: line, message, paths, code: code)
        }
        let rect: PixelRect<StoredPixels>
        do throws(CropPlanError) {
            rect = try animated.rect(for: job)
        } catch {
            return failed("no pixels: \(error)", code: .noPixels)
        }
        do throws(ImagingError) {
            let folder = (output as NSString).deletingLastPathComponent
            if !folder.isEmpty {
                try? FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true)
            }
            let report = try animated.write(rect, as: format, to: output, replacing: force)
            return Outcome(
                line: line, status: "written",
                members: paths + CropCommand.animationMembers(report, rect: rect))
        } catch {
            if case .outputExists = error, !force {
                return Self.skipped(line: line, paths, outputs: [output])
            }
            return failed(error.commandLineMessage, code: .imaging(error.code))
        }
    }

    /// A line with "variants": each variant is the line with the variant's
    /// members replacing its own; all are planned, then written from one
    /// decode (``CropPlan/writeVariants(_:to:replacing:)``).
    func processVariants(_ variants: JSONValue, of json: JSONValue, line: Int, base: String)
        -> Outcome
    {
        func failed(
            _ message: String, _ extra: [JSONValue.Member] = [], code: FailureCode = .manifest
        ) -> Outcome {
            Self.failure(line: line, message, extra, code: code)
        }
        func resolve(_ path: String) -> String { manifestPath(path, base: base) }
        guard case .array(let list) = variants, !list.isEmpty,
            case .object(let lineMembers) = json,
            case .string(let inputName)? = json["input"]
        else {
            return failed(
                "\"variants\" must be a non-empty array of objects, with \"input\" on the line")
        }
        guard list.count <= maxVariants else {
            return failed(
                "\(list.count) variants are more than --max-variants \(maxVariants) (each holds its file, encoder and rows at once): split the line, or raise --max-variants"
            )
        }
        let input = resolve(inputName)
        var jobs: [(output: String, job: CropJob)] = []
        for (index, variant) in list.enumerated() {
            guard case .object(let own) = variant, case .string(let outputName)? = variant["output"]
            else {
                return failed("variant \(index + 1) needs an \"output\" string")
            }
            let output = resolve(outputName)
            if let root, !Self.resolves(output, inside: root) || !Self.resolves(input, inside: root)
            {
                return failed(
                    "variant \(index + 1) resolves outside --root '\(root)'", code: .outsideRoot)
            }
            // A variant's own region replaces the line's whole region (its
            // "inside" replaces the line's "pixels"), not member by member.
            var names = Set(own.map(\.key))
            let regionMembers: Set<String> = ["pixels", "inside", "viewport", "selection"]
            if !names.isDisjoint(with: regionMembers) { names.formUnion(regionMembers) }
            let merged = JSONValue.object(
                lineMembers.filter { !names.contains($0.key) && $0.key != "variants" } + own)
            var flags = outputFlags
            if case .string(let name)? = merged["format"] { flags.values["format"] = name }
            let format: OutputFormat
            do throws(UsageError) {
                format = try OutputOptions.format(for: output, flags, threads: 1, mixed: true)
            } catch {
                return failed("variant \(index + 1): \(error.message)")
            }
            let region: (region: CropJob.Region, orientation: EXIFOrientation?)
            switch Self.job(from: merged) {
            case .failure(let problem): return failed("variant \(index + 1): \(problem.text)")
            case .success(let given): region = given
            }
            var job = CropJob(
                region: region.region, orientation: region.orientation, format: format,
                lenient: image.lenient)
            switch Self.resampling(from: merged) {
            case .failure(let message): return failed("variant \(index + 1): \(message.text)")
            case .success(let resampling): job.resampling = resampling
            }
            jobs.append((output, job))
        }
        let paths: [JSONValue.Member] = [
            .init("input", .string(input)),
            .init("outputs", .array(jobs.map { .string($0.output) })),
        ]
        if !force, jobs.allSatisfy({ FileManager.default.fileExists(atPath: $0.output) }) {
            return Self.skipped(line: line, paths, outputs: jobs.map(\.output), variants: true)
        }
        do throws(ImagingError) {
            let source = try image.open(input)
            var plans: [CropPlan] = []
            for (output, job) in jobs {
                do throws(CropPlanError) {
                    plans.append(try job.plan(for: source))
                } catch {
                    return failed("no pixels for \(output): \(error)", paths, code: .noPixels)
                }
            }
            for output in jobs.map(\.output) {
                let folder = (output as NSString).deletingLastPathComponent
                if !folder.isEmpty {
                    try? FileManager.default.createDirectory(
                        atPath: folder, withIntermediateDirectories: true)
                }
            }
            let reports = try CropPlan.writeVariants(
                plans, to: jobs.map(\.output), replacing: force)
            return Outcome(
                line: line, status: "written",
                members: paths + [
                    .init(
                        "variants",
                        .array(
                            reports.map { report in
                                let written = try? ImageSource.open(path: report.output ?? "")
                                let (location, people) =
                                    written.map(CropCommand.keptPersonalData) ?? ([], [])
                                return .object(
                                    [
                                        .init("output", .string(report.output ?? "")),
                                        .init("width", .number(report.size.width)),
                                        .init("height", .number(report.size.height)),
                                    ]
                                        + (written.map {
                                            [.init("format", .string($0.format.rawValue))]
                                        } ?? [])
                                        + [
                                            .init("bytes", .number(report.bytes)),
                                            .init(
                                                "keptLocation", .array(location.map(\.json))
                                            ),
                                            .init("keptPeople", .array(people.map { .string($0) })),
                                        ])
                            }))
                ])
        } catch {
            return failed(error.commandLineMessage, paths, code: .imaging(error.code))
        }
    }

    /// What a written file's header says, for a merge to check it by:
    /// its format ("png") and its size as seen ("width", "height").
    static func header(of written: ImageSource) -> [JSONValue.Member] {
        let size = written.orientation.orientedSize(written.storedSize)
        return [
            .init("format", .string(written.format.rawValue)),
            .init("width", .number(size.width)), .init("height", .number(size.height)),
        ]
    }

    /// A line whose outputs exist (complete: they are written atomically),
    /// with their sizes and headers, so that a merge of the reports can
    /// check them.
    static func skipped(
        line: Int, _ paths: [JSONValue.Member], outputs: [String], variants: Bool = false
    ) -> Outcome {
        func size(_ path: String) -> JSONValue {
            var info = stat()
            return stat(path, &info) == 0 ? .number(Int(info.st_size)) : .null
        }
        func header(_ path: String) -> [JSONValue.Member] {
            (try? ImageSource.open(path: path)).map(Self.header(of:)) ?? []
        }
        let sizes: [JSONValue.Member] =
            variants
            ? [
                .init(
                    "variants",
                    .array(
                        outputs.map {
                            .object(
                                [.init("output", .string($0))] + header($0) + [
                                    .init("bytes", size($0))
                                ])
                        }))
            ]
            : header(outputs[0]) + [.init("bytes", size(outputs[0]))]
        return Outcome(line: line, status: "skipped", members: paths + sizes)
    }

    /// The turn and size a line asks for, checked by ``ResamplingRequest``
    /// as `crop`'s options are:
    /// "angle", "size", "fit", "width", "height", "filter", "fill" and
    /// "circle" (true).
    static func resampling(from json: JSONValue) -> Result<CropJob.Resampling, LineProblem> {
        var request = ResamplingRequest()
        for key in ResamplingRequest.fields {
            switch json[key] {
            case .number(let text, _)?: request.set(key, to: text)
            case .string(let text)?: request.set(key, to: text)
            case nil: break
            default: return .failure(LineProblem(text: "\"\(key)\" must be a number or a string"))
            }
        }
        if case .bool(true)? = json["circle"] { request.circle = true }
        do throws(ResamplingRequestError) {
            return .success(try request.resampling())
        } catch {
            return .failure(LineProblem(text: error.message { "\"\($0)\"" }))
        }
    }

    /// Whether `path` resolves, after symbolic links, inside `root` (itself
    /// resolved): an existing file by its real path; a new one by the real
    /// path of the deepest folder of it that exists, plus the rest (which
    /// holds no "..", having been standardized first).
    static func resolves(_ path: String, inside root: String) -> Bool {
        var known = (path as NSString).standardizingPath
        var rest: [String] = []
        while true {
            if let real = realpath(known, nil) {
                defer { free(real) }
                let full = ([String(cString: real)] + rest.reversed()).joined(separator: "/")
                return full == root || full.hasPrefix(root == "/" ? "/" : root + "/")
            }
            let parent = (known as NSString).deletingLastPathComponent
            let last = (known as NSString).lastPathComponent
            guard !last.isEmpty, last != "..", parent != known else { return false }
            rest.append(last)
            known = parent.isEmpty ? "." : parent
        }
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
        // One region, as crop takes one: "inside" chooses the rect itself,
        // so with "pixels" or a view selection beside it the line is
        // refused (it wrote the whole photo for a 50x50 "pixels" before).
        var regions: [String] = []
        if case .bool(true)? = json["inside"] { regions.append("\"inside\"") }
        if json["pixels"] != nil { regions.append("\"pixels\"") }
        if json["viewport"] != nil || json["selection"] != nil {
            regions.append("a view selection (\"viewport\", \"selection\")")
        }
        if regions.count > 1 {
            return .failure(
                LineProblem(
                    text:
                        "\(regions.joined(separator: " and ")) do not go together: give one region"
                        + (regions.contains("\"inside\"")
                            ? " (\"inside\" chooses the rect itself)" : "")))
        }
        if regions.isEmpty {
            return .failure(
                LineProblem(
                    text:
                        "no region: give \"pixels\" {x, y, width, height}, a view selection (\"viewport\" and \"selection\"), or \"angle\" with \"inside\": true"
                ))
        }
        if case .bool(true)? = json["inside"] {
            var aspect: AspectChoice?
            if case .string(let text)? = json["aspect"] {
                guard let parsed = AspectChoice(parsing: text) else {
                    return .failure(LineProblem(text: "\"aspect\" must be \"p:q\" or \"source\""))
                }
                aspect = parsed
            }
            return .success((.largestInside(aspect: aspect), orientation))
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

/// The whole-manifest check of `cropkit batch`, fed a line at a time: what
/// would lose work is found before the first crop (of every shard): two
/// lines with one output, an output that is a line's input or the manifest,
/// a report that is the manifest, an input or an output. Paths are compared
/// after resolving them against the manifest's folder and standardizing,
/// and by device and inode where the files exist; each is kept as a 128-bit
/// hash, not as text, so the check's memory is a few dozen bytes a line.
struct ManifestCheck {
    let base: String
    let manifest: String
    let report: String?
    let shard: (index: Int, count: Int)
    /// The first problem found, if any.
    private(set) var problem: String?
    /// Non-blank lines in this shard.
    private(set) var linesInShard = 0
    private var nonBlank = 0
    private var inputLine: [PathKey: Int] = [:]
    private var outputLine: [PathKey: Int] = [:]
    private let manifestKeys: Set<PathKey>
    private let reportKeys: Set<PathKey>

    init(base: String, manifest: String, report: String?, shard: (index: Int, count: Int)) {
        self.base = base
        self.manifest = manifest
        self.report = report
        self.shard = shard
        manifestKeys = Set(Self.keys(cleanPath(manifest)))
        reportKeys = Set(report.map { Self.keys(cleanPath($0)) } ?? [])
    }

    /// A path, or an existing file's device and inode, as a 128-bit hash.
    struct PathKey: Hashable {
        var low: UInt64
        var high: UInt64

        init(_ text: String) {
            var first = Hasher()
            first.combine(0)
            first.combine(text)
            var second = Hasher()
            second.combine(1)
            second.combine(text)
            low = UInt64(bitPattern: Int64(first.finalize()))
            high = UInt64(bitPattern: Int64(second.finalize()))
        }
    }

    /// The keys of `path`: its text, and its device and inode when it exists,
    /// so two spellings of one file (a link, "a/../b") meet.
    static func keys(_ path: String) -> [PathKey] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [PathKey(path)] }
        return [PathKey(path), PathKey("\u{0}\(info.st_dev):\(info.st_ino)")]
    }

    private func resolve(_ path: String) -> String { manifestPath(path, base: base) }

    /// Adds line `line` (numbered from 1); the first problem stays.
    mutating func add(line: Int, text: String) {
        guard !text.allSatisfy(\.isWhitespace) else { return }
        if nonBlank % shard.count == shard.index { linesInShard += 1 }
        nonBlank += 1
        guard problem == nil, let json = try? JSONValue(parsing: text) else { return }
        if case .string(let input)? = json["input"], PathCheck.problem(input) == nil {
            let path = resolve(input)
            for key in Self.keys(path) {
                if let output = outputLine[key] {
                    problem = "line \(output) writes '\(path)', the input of line \(line)"
                    return
                }
                if inputLine[key] == nil { inputLine[key] = line }
            }
        }
        var outputs: [String] = []
        if case .string(let output)? = json["output"] { outputs.append(output) }
        if case .array(let variants)? = json["variants"] {
            for variant in variants {
                if case .string(let output)? = variant["output"] { outputs.append(output) }
            }
        }
        for output in outputs where PathCheck.problem(output) == nil {
            let path = resolve(output)
            for key in Self.keys(path) {
                if let earlier = outputLine[key] {
                    problem = "lines \(earlier) and \(line) both write '\(path)'"
                    return
                }
                if let input = inputLine[key] {
                    problem = "line \(line) writes '\(path)', the input of line \(input)"
                    return
                }
                if manifestKeys.contains(key) {
                    problem = "line \(line) writes the manifest itself"
                    return
                }
                outputLine[key] = line
            }
        }
    }

    /// The checks of --report against every line, once all are in.
    func finish() -> String? {
        guard let report else { return nil }
        if !manifestKeys.isDisjoint(with: reportKeys) {
            return "--report '\(report)' is the manifest itself"
        }
        if let input = reportKeys.compactMap({ inputLine[$0] }).min() {
            return "--report '\(report)' is the input of line \(input)"
        }
        if let output = reportKeys.compactMap({ outputLine[$0] }).min() {
            return "--report '\(report)' is the output of line \(output)"
        }
        return nil
    }
}
