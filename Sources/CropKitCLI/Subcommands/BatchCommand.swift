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
                    "fail a line with more than N \"variants\" (default \(BatchOptions.defaultMaxVariants))"
            ),
            OptionSpec(
                name: "max-line-bytes", value: "N",
                help:
                    "refuse a manifest line longer than this (default \(LineReader.defaultMaxLineBytes))"
            ),
        ] + ImageOptions.specs + OutputOptions.specs.filter { $0.name != "format" }

    var manifest: String
    /// The library's options, from the flags: each line's format chosen as
    /// crop's is, by its output's extension or "format" and the output
    /// flags (`--quality`, `--lossless`, `--strip`, ...).
    var options = BatchOptions()

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
        if let text = parsed.values["shard"] {
            let parts = text.split(separator: "/").compactMap { Int($0) }
            guard parts.count == 2, let shard = BatchShard(index: parts[0], count: parts[1]) else {
                throw UsageError(message: "--shard must be I/N with 0 <= I < N, not '\(text)'")
            }
            options.shard = shard
        }
        if let text = parsed.values["jobs"] {
            guard let value = Int(text), value >= 1, value <= 256 else {
                throw UsageError(message: "--jobs must be 1 to 256, not '\(text)'")
            }
            options.jobs = value
        }
        options.report = parsed.values["report"]
        options.force = parsed.flags.contains("force")
        if let folder = parsed.values["root"] {
            options.root = folder
            do throws(BatchError) {
                options.root = try Batch(manifest: manifest, options: options).resolvedRoot()
            } catch {
                guard case .root(let folder, let reason) = error else {
                    throw UsageError(message: "\(error)")
                }
                throw UsageError(message: "--root '\(folder)' \(reason)")
            }
        }
        let image = try ImageOptions(parsed)
        (options.limits, options.lenient, options.inflater) = (
            image.limits, image.lenient, image.inflater
        )
        options.maxLineBytes = try positiveInteger(parsed, "max-line-bytes") ?? options.maxLineBytes
        options.maxVariants = try positiveInteger(parsed, "max-variants") ?? options.maxVariants
        options.describe = { $0.commandLineMessage }
        options.format = BatchFormatChoice { [parsed] output, name in
            var flags = parsed
            flags.values["format"] = name
            do throws(UsageError) {
                return .success(
                    try OutputOptions.format(for: output, flags, threads: 1, mixed: true))
            } catch {
                return .failure(BatchFailure(.manifest, error.message))
            }
        }
    }

    /// The report's lines to standard output (without --report), each
    /// failed line named on standard error (with --report: the first
    /// ``maxFailuresNamed``; the report has them all) and the progress bar
    /// there when it is a terminal, then the summary.
    func run(console: Console) -> Int32 {
        if let merging {
            return merge(merging, console: console)
        }
        let terminal = isatty(2) == 1
        let started = Date()
        var failuresNamed = 0
        let summary: Batch.Summary
        do throws(BatchError) {
            summary = try Batch(manifest: manifest, options: options).run { result in
                if options.report == nil { console.out.write(result.json.text + "\n") }
                // The progress line's own clearing goes as it is.
                let clear = terminal ? Array("\r\u{1B}[K".utf8) : []
                if options.report != nil, let failure = result.failure {
                    failuresNamed += 1
                    if failuresNamed <= Self.maxFailuresNamed {
                        console.err.write(utf8: clear)
                        console.err.write(
                            "line \(result.line): failed: \(field: failure.message)\n")
                    } else if failuresNamed == Self.maxFailuresNamed + 1 {
                        console.err.write(utf8: clear)
                        console.err.write("(more failed lines: see the report)\n")
                    }
                }
                if terminal {
                    let (done, total) = (result.progress.done, result.progress.total)
                    let filled = 30 * done / max(total, 1)
                    console.err.write(utf8: Array("\r".utf8))
                    console.err.write(
                        "[" + String(repeating: "#", count: filled)
                            + String(repeating: ".", count: 30 - filled) + "] \(done)/\(total)")
                    console.err.flush()
                }
            }
        } catch {
            if case .report(let error) = error {
                if terminal { console.err.write("\n") }
                console.err.write("error: \(field: error.commandLineMessage)\n")
            } else {
                console.err.write("error: \(field: error)\n")
            }
            return ExitCode.badInput
        }
        if terminal { console.err.write("\n") }
        let seconds = Date().timeIntervalSince(started)
        console.err.write(
            "batch: \(summary.written) written, \(summary.skipped) skipped (already complete), \(summary.failed) failed, shard \(options.shard.index)/\(options.shard.count), \(String(format: "%.2f", seconds)) s\n"
        )
        return summary.failed > 0 ? ExitCode.failure : ExitCode.success
    }

    /// The most failed lines named on standard error with --report.
    static let maxFailuresNamed = 100

    /// --merge: the shards' reports merged into one (--report or standard
    /// output), the summary on standard error.
    func merge(_ reports: [String], console: Console) -> Int32 {
        if let report = options.report,
            reports.contains(where: { ManifestPath.clean($0) == ManifestPath.clean(report) })
        {
            console.err.write(
                "error: --report \(field: report) is one of the reports to merge: name a new file\n"
            )
            return ExitCode.badInput
        }
        var merge = BatchMerge(manifest: manifest, reports: reports, output: options.report)
        merge.maxLineBytes = options.maxLineBytes
        merge.describe = { $0.commandLineMessage }
        do throws(BatchError) {
            let summary = try merge.run { bytes in
                if options.report == nil { console.out.write(utf8: bytes) }
            }
            console.err.write(summary.description)
            return summary.isComplete ? ExitCode.success : ExitCode.failure
        } catch {
            if case .report(let error) = error {
                console.err.write("error: \(field: error.commandLineMessage)\n")
            } else {
                console.err.write("error: \(field: error)\n")
            }
            return ExitCode.badInput
        }
    }
}
