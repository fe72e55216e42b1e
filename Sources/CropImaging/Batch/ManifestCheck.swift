import CropRecords
import Foundation

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
    let shard: BatchShard
    /// The first problem found, if any.
    private(set) var problem: String?
    /// Non-blank lines in this shard.
    private(set) var linesInShard = 0
    private var nonBlank = 0
    private var inputLine: [PathKey: Int] = [:]
    private var outputLine: [PathKey: Int] = [:]
    private let manifestKeys: Set<PathKey>
    private let reportKeys: Set<PathKey>

    init(base: String, manifest: String, report: String?, shard: BatchShard) {
        self.base = base
        self.manifest = manifest
        self.report = report
        self.shard = shard
        manifestKeys = Set(Self.keys(ManifestPath.clean(manifest)))
        reportKeys = Set(report.map { Self.keys(ManifestPath.clean($0)) } ?? [])
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

    private func resolve(_ path: String) -> String { ManifestPath.resolve(path, base: base) }

    /// Adds line `line` (numbered from 1); the first problem stays.
    mutating func add(line: Int, text: String) {
        guard !text.allSatisfy(\.isWhitespace) else { return }
        if shard.contains(nonBlank) { linesInShard += 1 }
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
