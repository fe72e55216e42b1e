import CropKitTestSupport
import CropRecords
import Foundation

/// Every JSON object a test's run of `cropkit` printed, with the name of
/// its published schema, appended to `.build/json-log/PID.jsonl`: after
/// `swift test`, `scripts/validate-json-log` checks each against its schema
/// with a real validator (`.ci/run` runs it), so that what the test suites
/// print is held to the schemas as the corpus and the sweeps are.
enum JSONLog {
    /// The schema of what `arguments` print on standard output (and of
    /// what `crop --json -o -` prints on standard error), or `nil` when
    /// they print no JSON there.
    static func schema(of arguments: [String]) -> String? {
        let json = arguments.contains("--json") || arguments.contains("-j")
        switch arguments.first {
        case "info": return json ? "info-line" : nil
        case "leaks": return json ? "leaks-line" : nil
        case "crop": return json ? "crop-report" : nil
        case "verify": return json ? "verify-line" : nil
        case "map": return json ? "test-vector" : nil
        case "cases": return "test-vector"
        case "replay": return "replay-line"
        case "batch": return "batch-line"
        default: return nil
        }
    }

    /// The lines of one output logged at most.
    static let maximumLines = 64

    private static let lock = NSLock()
    nonisolated(unsafe) private static var handle: FileHandle? = {
        let folder = URL(fileURLWithPath: TestData.repositoryPath(".build/json-log"))
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(
            "\(ProcessInfo.processInfo.processIdentifier).jsonl")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { return nil }
        return try? FileHandle(forWritingTo: file)
    }()

    /// Logs the JSON lines `run` of `arguments` printed (and a batch's
    /// `--report` file), each as `{"schema": NAME, "line": TEXT}`: the
    /// first ``maximumLines`` of each.
    static func record(_ arguments: [String], _ run: Run) {
        guard let schema = schema(of: arguments),
            !arguments.contains("--help") && !arguments.contains("-h")
        else { return }
        var texts = [run.out]
        // The image on standard output: the report went to standard error.
        if arguments.first == "crop",
            zip(arguments, arguments.dropFirst()).contains(where: {
                ($0.0 == "-o" || $0.0 == "--output") && $0.1 == "-"
            })
        {
            texts = [run.err]
        }
        // A batch that ran (exit 0 or 1) wrote its report; one refused
        // may name any file as --report, the manifest among them.
        if arguments.first == "batch", run.status == 0 || run.status == 1,
            let report = Array(zip(arguments, arguments.dropFirst())).last(where: {
                $0.0 == "--report"
            })?.1, let text = try? String(contentsOfFile: report, encoding: .utf8)
        {
            texts.append(text)
        }
        var out = ""
        for text in texts {
            // A run's first lines: a replay of 100,000 records is one shape
            // 100,000 times, and logging them all would slow the suite.
            for line in text.split(separator: "\n", maxSplits: maximumLines).prefix(maximumLines)
            where line.hasPrefix("{") || line.hasPrefix("[") {
                out +=
                    JSONValue.object([
                        .init("schema", .string(schema)), .init("line", .string(String(line))),
                    ]).text + "\n"
            }
        }
        guard !out.isEmpty else { return }
        lock.lock()
        defer { lock.unlock() }
        handle?.write(Data(out.utf8))
    }
}
