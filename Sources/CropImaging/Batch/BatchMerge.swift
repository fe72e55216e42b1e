import CropGeometry
import CropRecords
import Foundation

/// The reports of a manifest's shards (one file each, as ``Batch`` with
/// ``BatchOptions/shard`` and ``BatchOptions/report`` writes them) merged
/// into one report in manifest order, checking that every line is there
/// once, done, and its output complete (`cropkit batch MANIFEST --merge
/// REPORT...`).
///
/// The reports are read side by side, a line at a time: `cropkit batch`
/// writes each in manifest-line order, so the merge holds one line of each,
/// never a whole report. Where several reports have a line, the last report
/// named has the last word (a rerun's report, named after the first run's),
/// and two `written` results that differ are a conflict.
public struct BatchMerge: Sendable {
    /// The manifest, read again a line at a time.
    public var manifest: String
    /// The shards' reports, in the order given.
    public var reports: [String]
    /// Where the merged report is written, atomically (`nil`: only to the
    /// `write` of ``run(_:)``).
    public var output: String?
    /// The longest line read.
    public var maxLineBytes = LineReader.defaultMaxLineBytes
    /// The sentence for an output's error when it no longer reads.
    public var describe: @Sendable (ImagingError) -> String = { $0.description }

    /// A merge of `reports`, the reports of `manifest`'s shards, into
    /// `output`.
    public init(manifest: String, reports: [String], output: String? = nil) {
        self.manifest = manifest
        self.reports = reports
        self.output = output
    }

    /// What one report says about one line.
    struct Entry {
        var report: Int
        var text: String
        var json: JSONValue
        var status: String {
            json["status"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? ""
        }
    }

    /// One report, read ahead by one line.
    final class Reader {
        let path: String
        /// Its place among the reports given.
        let index: Int
        let lines: LineReader
        var lineNumber = 0
        /// The next entry and its manifest line, or `nil` at the end.
        var next: (line: Int, entry: Entry)?
        var previousLine = 0
        var problem: String?

        init(path: String, index: Int, lines: LineReader) {
            self.path = path
            self.index = index
            self.lines = lines
            advance()
        }

        func advance() {
            next = nil
            while problem == nil, let bytes = lines.nextLineBytes() {
                lineNumber += 1
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                let text = String(decoding: bytes, as: UTF8.self)
                let json: JSONValue
                do {
                    json = try JSONValue(parsing: text)
                } catch {
                    // A member given twice among them: which "status" holds
                    // is not the merge's to guess.
                    problem =
                        "\(path) line \(lineNumber) is not a batch report line (\(error)): \(text.prefix(80))"
                    return
                }
                guard case .number(_, let value)? = json["line"], value >= 1,
                    value == value.rounded(),
                    value < 1e15
                else {
                    problem =
                        "\(path) line \(lineNumber) is not a batch report line: \(text.prefix(80))"
                    return
                }
                let line = Int(value)
                guard line >= previousLine else {
                    problem =
                        "\(path) is not in manifest order (line \(line) after line \(previousLine)): give the reports as cropkit batch --report writes them"
                    return
                }
                previousLine = line
                next = (line, Entry(report: index, text: text, json: json))
                return
            }
            if problem == nil, let failure = lines.failure { problem = "\(path): \(failure)" }
        }
    }

    /// What the merge found: the tallies, and the lines named in its
    /// summary.
    public struct Summary: Sendable {
        /// Lines written.
        public var written = 0
        /// Lines skipped as already complete.
        public var skipped = 0
        /// Lines failed, with why.
        public var failed: [(line: Int, error: String)] = []
        /// Lines in no report.
        public var missing: [Int] = []
        /// Lines in more than one report.
        public var repeated: [Int] = []
        /// The manifest's non-blank lines.
        public var lines = 0
        /// The reports merged.
        public var reports = 0

        /// Whether every line is done (written or skipped).
        public var isComplete: Bool { failed.isEmpty && missing.isEmpty }
    }

    /// Merges the reports: each merged line (and its line break) goes to
    /// `write`, a megabyte at a time, and to ``output`` when one is named
    /// (committed at the end).
    ///
    /// - Throws: ``BatchError`` when a report or the manifest cannot be
    ///   read, a report is not of this manifest, or ``output`` cannot be
    ///   written.
    public func run(_ write: ([UInt8]) -> Void = { _ in }) throws(BatchError) -> Summary {
        let base = (manifest as NSString).deletingLastPathComponent
        var readers: [Reader] = []
        for path in reports {
            switch LineReader.open(path: path) {
            case .failure(let error): throw .unreadable(error)
            case .success(let lines):
                lines.maxLineBytes = maxLineBytes
                readers.append(Reader(path: path, index: readers.count, lines: lines))
            }
        }
        let manifestLines: LineReader
        switch LineReader.open(path: manifest) {
        case .failure(let error): throw .unreadable(error)
        case .success(let opened): manifestLines = opened
        }
        manifestLines.maxLineBytes = maxLineBytes
        let sink: AtomicFile.Writer?
        do throws(ImagingError) {
            sink = try output.map { path throws(ImagingError) in
                try AtomicFile.Writer(path: path, replacing: true)
            }
        } catch {
            throw .report(error)
        }
        var summary = Summary()
        summary.reports = reports.count
        var out: [UInt8] = []
        var number = 0
        var problem: String?
        func flush() throws(BatchError) {
            do throws(ImagingError) {
                try sink?.write(out[...])
            } catch {
                throw .report(error)
            }
            write(out)
            out.removeAll(keepingCapacity: true)
        }
        while let bytes = manifestLines.nextLineBytes() {
            number += 1
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            var entries: [Entry] = []
            for reader in readers {
                while let next = reader.next, next.line <= number {
                    if next.line < number {
                        problem =
                            "\(reader.path) reports line \(next.line), which is blank in \(manifest): a report of another manifest?"
                    } else {
                        entries.append(next.entry)
                    }
                    reader.advance()
                }
                if let trouble = reader.problem { problem = problem ?? trouble }
            }
            if let problem { throw .merge(problem) }
            let expected = Self.expectedPaths(
                String(decoding: bytes, as: UTF8.self), base: base)
            let merged = decide(
                line: number, entries: entries, expected: expected, summary: &summary)
            out += Array(merged.utf8)
            out.append(0x0A)
            summary.lines += 1
            if out.count > 1 << 20 { try flush() }
        }
        if let failure = manifestLines.failure {
            throw .notLines(path: manifest, failure)
        }
        for reader in readers {
            if let next = reader.next {
                throw .merge(
                    "\(reader.path) reports line \(next.line), past the end of \(manifest) (\(number) lines): a report of another manifest?"
                )
            }
        }
        try flush()
        do throws(ImagingError) {
            try sink?.commit()
        } catch {
            throw .report(error)
        }
        return summary
    }

    /// The merged line for manifest line `line`, given what the reports say.
    func decide(line: Int, entries: [Entry], expected: ExpectedPaths, summary: inout Summary)
        -> String
    {
        func failed(_ message: String) -> String {
            summary.failed.append((line, message))
            return JSONValue.object(
                [
                    .init("schemaVersion", .number(MachineInterface.schemaVersion)),
                    .init("line", .number(line)), .init("status", .string("failed")),
                ]
                    + expected.members + [
                        .init("error", .string("merge: " + message)),
                        .init("errorCode", .string("merge")),
                    ]
            ).text
        }
        guard let last = entries.last else {
            summary.missing.append(line)
            return JSONValue.object(
                [
                    .init("schemaVersion", .number(MachineInterface.schemaVersion)),
                    .init("line", .number(line)), .init("status", .string("missing")),
                ]
                    + expected.members
            ).text
        }
        if entries.count > 1 { summary.repeated.append(line) }
        let written = entries.filter { $0.status == "written" }
        if written.count > 1, let first = written.first,
            let other = written.dropFirst().first(where: {
                Self.result(of: $0) != Self.result(of: first)
            })
        {
            return failed(
                "written twice with different results: \(reports[first.report]) says \(Self.result(of: first)), \(reports[other.report]) says \(Self.result(of: other))"
            )
        }
        // The report names the outputs as resolved where batch ran; the
        // manifest's are checked here, resolved where the merge runs.
        let named = Self.outputs(of: last.json)
        if let wanted = expected.outputs, !named.isEmpty,
            named.count != wanted.count
                || zip(named, wanted).contains(where: { !Self.same($0, $1.written) })
        {
            return failed(
                "\(reports[last.report]) names the output \(named.joined(separator: ", ")), the manifest \(wanted.map(\.written).joined(separator: ", ")): a report of another manifest?"
            )
        }
        let outputs = named.isEmpty ? [] : (expected.outputs ?? []).map(\.resolved)
        switch last.status {
        case "failed":
            summary.failed.append((line, Self.error(of: last.json)))
            return last.text
        case "written", "skipped":
            // The size each output had when it was written (or found
            // complete), and what its header said.
            let said = written.last?.json ?? last.json
            let sizes = Self.sizes(of: said, named: named, at: outputs)
            let headers = Self.headers(of: said, named: named, at: outputs)
            for output in outputs {
                var info = stat()
                guard stat(output, &info) == 0 else {
                    return failed(
                        "\(reports[last.report]) says \(last.status), but \(output) is not there")
                }
                if let size = sizes[output], size != Int(info.st_size) {
                    return failed(
                        "\(output) has \(info.st_size) bytes, the report says \(size): changed since it was written"
                    )
                }
                if let problem = headerProblem(output, expected: headers[output]) {
                    return failed(problem)
                }
            }
            if last.status == "written" { summary.written += 1 } else { summary.skipped += 1 }
            return last.text
        default:
            return failed("\(reports[last.report]) has status '\(last.status)' for it")
        }
    }

    /// A manifest line's input and outputs, resolved as batch resolves them
    /// (`nil` outputs when the line is not a crop batch can read).
    struct ExpectedPaths {
        var members: [JSONValue.Member]
        /// Each output as the line writes it, and resolved against the
        /// manifest's folder.
        var outputs: [(written: String, resolved: String)]?
    }

    /// Whether a report's output path names the manifest's `written` one:
    /// the same path, or one ending in it (batch ran from another folder).
    static func same(_ reported: String, _ written: String) -> Bool {
        let written = ManifestPath.clean(written)
        return reported == written || (!written.hasPrefix("/") && reported.hasSuffix("/" + written))
    }

    static func expectedPaths(_ text: String, base: String) -> ExpectedPaths {
        func resolve(_ path: String) -> String { ManifestPath.resolve(path, base: base) }
        guard let json = try? JSONValue(parsing: text) else {
            return ExpectedPaths(members: [], outputs: nil)
        }
        var members: [JSONValue.Member] = []
        if case .string(let input)? = json["input"] {
            members.append(.init("input", .string(resolve(input))))
        }
        if case .array(let variants)? = json["variants"] {
            let outputs = variants.compactMap { variant -> (String, String)? in
                if case .string(let output)? = variant["output"] {
                    (output, resolve(output))
                } else {
                    nil
                }
            }
            members.append(.init("outputs", .array(outputs.map { .string($0.1) })))
            return ExpectedPaths(members: members, outputs: outputs)
        }
        if case .string(let output)? = json["output"] {
            members.append(.init("output", .string(resolve(output))))
            return ExpectedPaths(members: members, outputs: [(output, resolve(output))])
        }
        return ExpectedPaths(members: members, outputs: nil)
    }

    /// The outputs a report line names.
    static func outputs(of json: JSONValue) -> [String] {
        if case .string(let output)? = json["output"] { return [output] }
        if case .array(let outputs)? = json["outputs"] {
            return outputs.compactMap { if case .string(let s) = $0 { s } else { nil } }
        }
        return []
    }

    /// Each output's size in bytes as the report line gives it, keyed by
    /// the path checked here (`at`, in the order of the report's `named`).
    static func sizes(of json: JSONValue, named: [String], at paths: [String]) -> [String: Int] {
        var given: [String: Int] = [:]
        if case .string(let output)? = json["output"], case .number(_, let bytes)? = json["bytes"] {
            given[output] = Int(exactly: bytes)
        }
        if case .array(let variants)? = json["variants"] {
            for variant in variants {
                if case .string(let output)? = variant["output"],
                    case .number(_, let bytes)? = variant["bytes"]
                {
                    given[output] = Int(exactly: bytes)
                }
            }
        }
        var sizes: [String: Int] = [:]
        for (name, path) in zip(named, paths) { sizes[path] = given[name] }
        return sizes
    }

    /// What a report line says each output's header holds ("format",
    /// "width", "height"), keyed by the path checked here; a report from
    /// before they were given says none.
    static func headers(of json: JSONValue, named: [String], at paths: [String])
        -> [String: JSONValue]
    {
        var given: [String: JSONValue] = [:]
        if case .string(let output)? = json["output"] { given[output] = json }
        if case .array(let variants)? = json["variants"] {
            for variant in variants {
                if case .string(let output)? = variant["output"] { given[output] = variant }
            }
        }
        var headers: [String: JSONValue] = [:]
        for (name, path) in zip(named, paths) { headers[path] = given[name] }
        return headers
    }

    /// Why the output at `path` is not what its report line (`expected`)
    /// says was written, read from its header: a file that no longer reads
    /// as an image (as many zero bytes put in its place), or one of another
    /// format or pixel size; `nil` when it is what was written.
    func headerProblem(_ path: String, expected: JSONValue?) -> String? {
        // An animation (a GIF, APNG or animated WebP a line cut frame by
        // frame) is read as one, an animated PNG named "apng" as its line
        // names it; anything else as a still.
        let read: String
        let size: PixelSize<ImagePixels>
        do throws(ImagingError) {
            if let animated = try AnimatedImage.open(path: path) {
                read = animated.formatName
                size = PixelSize(width: animated.size.width, height: animated.size.height)
            } else {
                let source = try ImageSource.open(path: path)
                read = source.format.rawValue
                size = source.orientation.orientedSize(source.storedSize)
            }
        } catch {
            return
                "\(path) does not read as an image (\(describe(error))): changed since it was written"
        }
        if case .string(let format)? = expected?["format"], format != read {
            return
                "\(path) reads as \(read), the report says \(format): changed since it was written"
        }
        if case .number(_, let width)? = expected?["width"],
            case .number(_, let height)? = expected?["height"],
            Int(exactly: width) != size.width || Int(exactly: height) != size.height
        {
            return
                "\(path) is \(size.width)x\(size.height), the report says \(numberText(width))x\(numberText(height)): changed since it was written"
        }
        return nil
    }

    /// What a written line produced: its pixels and sizes, for comparing two.
    static func result(of entry: Entry) -> String {
        let keys = ["pixels", "outputRect", "read", "bytes", "variants"]
        return JSONValue.object(
            keys.compactMap { key in entry.json[key].map { JSONValue.Member(key, $0) } }
        ).text
    }

    static func error(of json: JSONValue) -> String {
        if case .string(let error)? = json["error"] { return error }
        return "failed"
    }

}

extension BatchMerge.Summary: CustomStringConvertible {
    /// The summary `cropkit` prints on standard error: the counts, then
    /// which lines.
    public var description: String {
        let summary = self
        let done = summary.written + summary.skipped
        var text =
            "merge: \(summary.lines) lines from \(reports) report\(reports == 1 ? "" : "s"): \(done) done (\(summary.written) written, \(summary.skipped) skipped as already complete), \(summary.failed.count) failed, \(summary.missing.count) missing\n"
        if !summary.repeated.isEmpty {
            text +=
                "merge: \(summary.repeated.count) line\(summary.repeated.count == 1 ? " is" : "s are") in more than one report (the last named has the last word): \(Self.list(summary.repeated))\n"
        }
        for (line, error) in failed.prefix(100) {
            text += "merge: line \(line) failed: \(field: error)\n"
        }
        if summary.failed.count > 100 {
            text += "merge: (more failed lines: see the merged report)\n"
        }
        if !summary.missing.isEmpty {
            text +=
                "merge: missing (in no report; rerun their shards): \(Self.list(summary.missing))\n"
        }
        return text
    }

    /// Line numbers, runs shortened ("3, 7-9, 12"), at most 100 named.
    static func list(_ lines: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        while index < lines.count && parts.count < 100 {
            var end = index
            while end + 1 < lines.count && lines[end + 1] == lines[end] + 1 { end += 1 }
            parts.append(end == index ? "\(lines[index])" : "\(lines[index])-\(lines[end])")
            index = end + 1
        }
        return parts.joined(separator: ", ") + (index < lines.count ? ", …" : "")
    }
}
