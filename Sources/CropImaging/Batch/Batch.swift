import Dispatch
import Foundation

/// Many crops from a JSON Lines manifest, on every core, resumable and
/// shardable: the engine of `cropkit batch`, for a server that links
/// CropImaging.
///
/// Each line of the manifest is a crop in the format the DocC article
/// "Batch manifests" describes (`"input"`, `"output"`, `"pixels"` or a view
/// selection, variants, ...). The whole manifest is checked before the
/// first crop (``check()``); then the lines of ``BatchOptions/shard`` are
/// cropped, ``BatchOptions/jobs`` at once, and reported in line order:
/// through a callback (``run(cancellation:_:)``) or as an `AsyncSequence`
/// (``results()``), which a task's cancellation stops.
///
/// ```swift
/// var options = BatchOptions()
/// options.shard = BatchShard(index: 0, count: 2)!
/// options.report = "/tmp/crops/report-0.jsonl"
/// let batch = Batch(manifest: "/tmp/crops/manifest.jsonl", options: options)
/// Task {
///     for try await result in batch.results() {
///         print(result.line, result.status, result.failure?.message ?? "")
///     }
/// }
/// ```
///
/// An output that exists is skipped (it is complete: outputs are written
/// atomically), so a killed batch is resumed by running it again;
/// ``BatchMerge`` joins the shards' reports into one.
public struct Batch: Sendable {
    /// The manifest's path; relative paths in it are resolved against its
    /// folder.
    public var manifest: String
    /// How the batch runs.
    public var options: BatchOptions

    /// A batch of the lines of `manifest`.
    public init(manifest: String, options: BatchOptions = BatchOptions()) {
        self.manifest = manifest
        self.options = options
    }

    /// What a whole batch did: the lines of the shard by status.
    public struct Summary: Sendable {
        /// Lines whose outputs were written.
        public var written = 0
        /// Lines whose outputs existed, left as they were.
        public var skipped = 0
        /// Lines that failed.
        public var failed = 0
    }

    /// The manifest's folder, against which its relative paths resolve.
    var base: String { (manifest as NSString).deletingLastPathComponent }

    /// Checks the whole manifest, a line at a time, and returns the number
    /// of lines of the shard.
    ///
    /// - Throws: ``BatchError`` when the manifest cannot be read, is not
    ///   JSON Lines text, or has lines that would lose work (two lines
    ///   writing one output, a line writing a line's input or the manifest,
    ///   a report that is the manifest, an input or an output).
    @discardableResult
    public func check() throws(BatchError) -> Int {
        _ = try resolvedRoot()
        var check = ManifestCheck(
            base: base, manifest: manifest, report: options.report, shard: options.shard)
        try readLines { number, line in check.add(line: number, text: line) }
        if let conflict = check.problem ?? check.finish() {
            throw .conflict(manifest: manifest, conflict)
        }
        return check.linesInShard
    }

    /// Checks the manifest, then crops the lines of the shard, handing each
    /// line's result to `each` in line order (on one thread at a time, not
    /// always the same one), and writes the report when
    /// ``BatchOptions/report`` names one.
    ///
    /// - Parameter cancellation: When cancelled, no further line is begun;
    ///   the crops under way end, and the call throws
    ///   ``BatchError/cancelled`` without writing the report.
    /// - Parameter each: Called with each line's result.
    /// - Returns: The lines of the shard by status.
    /// - Throws: ``BatchError``: the manifest is refused (nothing was
    ///   cropped), the report cannot be written, or the batch was
    ///   cancelled. A line's own failure is in its result.
    @discardableResult
    public func run(
        cancellation: BatchCancellation? = nil, _ each: (BatchLineResult) -> Void
    ) throws(BatchError) -> Summary {
        let total = try check()
        let root = try resolvedRoot()
        let sink = try options.report.map { path throws(BatchError) in
            do throws(ImagingError) {
                return try AtomicFile.Writer(path: path, replacing: true)
            } catch {
                throw .report(error)
            }
        }
        return try withoutActuallyEscaping(each) { each throws(BatchError) in
            let results = BatchCollector(total: total, sink: sink, each: each)
            let lines = BatchLines(batch: self, root: root, base: base)
            // The lines of this shard cropped a chunk at a time, every core
            // busy within a chunk; only a chunk is held.
            let jobs = min(options.jobs, max(1, total))
            let chunkSize = max(1024, jobs * 64)
            var chunk: [(line: Int, text: String)] = []
            func crop() {
                let work = chunk
                results.expect(work.map(\.line))
                DispatchQueue.concurrentPerform(iterations: min(jobs, work.count)) { worker in
                    var index = worker
                    while index < work.count, cancellation?.isCancelled != true {
                        results.add(lines.process(line: work[index].line, text: work[index].text))
                        index += jobs
                    }
                }
                chunk.removeAll(keepingCapacity: true)
            }
            var nonBlank = 0
            // Read (and checked) once already: it reads again as it did.
            try? readLines { number, line in
                guard !line.allSatisfy(\.isWhitespace), cancellation?.isCancelled != true else {
                    return
                }
                defer { nonBlank += 1 }
                guard options.shard.contains(nonBlank) else { return }
                chunk.append((number, line))
                if chunk.count == chunkSize { crop() }
            }
            if !chunk.isEmpty { crop() }
            if cancellation?.isCancelled == true { throw .cancelled }
            do throws(ImagingError) {
                if let failure = results.failure { throw failure }
                try sink?.commit()
            } catch {
                throw .report(error)
            }
            return results.summary
        }
    }

    /// The lines of the manifest as an `AsyncSequence` of results, in line
    /// order: the manifest is checked, then cropped on threads of the
    /// batch's own, when the sequence is first iterated. Cancelling the
    /// iterating task (or leaving the loop) stops the batch: no further
    /// line is begun, and the iteration throws `CancellationError`.
    public func results() -> BatchResults { BatchResults(batch: self) }

    /// ``BatchOptions/root`` after symbolic links, or `nil` without one.
    package func resolvedRoot() throws(BatchError) -> String? {
        guard let folder = options.root else { return nil }
        guard let resolved = realpath(folder, nil) else {
            throw .root(folder: folder, reason: "is not a folder that exists")
        }
        defer { free(resolved) }
        let root = String(cString: resolved)
        var info = stat()
        guard stat(root, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .root(folder: folder, reason: "is not a folder")
        }
        return root
    }

    /// Reads the manifest a line at a time, handing each (numbered from 1)
    /// to `body`.
    ///
    /// - Throws: ``BatchError`` when it cannot be read, has a line over
    ///   ``BatchOptions/maxLineBytes``, or is not UTF-8 text (binary data,
    ///   or a line that is not UTF-8).
    func readLines(_ body: (Int, String) -> Void) throws(BatchError) {
        let reader: LineReader
        switch LineReader.open(path: manifest) {
        case .failure(let error): throw .unreadable(error)
        case .success(let opened): reader = opened
        }
        reader.maxLineBytes = options.maxLineBytes
        var number = 0
        while let bytes = reader.nextLineBytes() {
            number += 1
            // The reader has checked the line is UTF-8 text (paths are
            // bytes: any other bytes would become U+FFFD, and two outputs
            // could become one).
            body(number, String(decoding: bytes, as: UTF8.self))
        }
        if let failure = reader.failure { throw .notLines(path: manifest, failure) }
    }
}

/// A flag that stops a ``Batch`` between lines, settable from any thread.
public final class BatchCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    /// A flag not yet set.
    public init() {}

    /// Stops the batch: no line is begun after this.
    public func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }
}

/// The results, handed out and written to the report in line order as
/// they come (a few wait while an earlier line is still being cropped),
/// with the counts, behind one lock: workers report from several threads.
final class BatchCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [Int: BatchLineResult] = [:]
    /// The lines in the order they are reported; the next one expected.
    private var order: [Int] = []
    private var next = 0
    private let sink: AtomicFile.Writer?
    private let each: (BatchLineResult) -> Void
    private let total: Int
    private var done = 0
    private(set) var summary = Batch.Summary()
    /// The report's first write error, after which it is not written to.
    private(set) var failure: ImagingError?

    init(total: Int, sink: AtomicFile.Writer?, each: @escaping (BatchLineResult) -> Void) {
        self.total = total
        self.sink = sink
        self.each = each
    }

    /// The lines of the next chunk, in the order their results go out.
    func expect(_ lines: [Int]) {
        lock.lock()
        defer { lock.unlock() }
        order.removeFirst(next)
        next = 0
        order += lines
    }

    func add(_ result: BatchLineResult) {
        lock.lock()
        defer { lock.unlock() }
        waiting[result.line] = result
        switch result.status {
        case .written: summary.written += 1
        case .skipped: summary.skipped += 1
        case .failed: summary.failed += 1
        }
        while next < order.count, var ready = waiting.removeValue(forKey: order[next]) {
            next += 1
            done += 1
            ready.progress = BatchProgress(done: done, total: total)
            if let sink, failure == nil {
                do throws(ImagingError) {
                    try sink.write(Array((ready.json.text + "\n").utf8)[...])
                } catch {
                    failure = error
                }
            }
            each(ready)
        }
    }
}
