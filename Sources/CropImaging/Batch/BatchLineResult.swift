import CropRecords

/// One manifest line's outcome: what ``Batch`` reports for it, in the shape
/// of the published schema `batch-line` (``json``), with its status, its
/// failure and the batch's progress as values.
public struct BatchLineResult: Sendable {
    /// What happened to a line.
    public enum Status: String, Sendable {
        /// Its outputs were cropped and written.
        case written
        /// Its outputs existed (complete: they are written atomically) and
        /// were left as they are.
        case skipped
        /// It was not cropped: ``BatchLineResult/failure`` says why.
        case failed
    }

    /// The manifest line, counted from 1 (blank lines count).
    public var line: Int
    /// What happened to it.
    public var status: Status
    /// Why it failed, for ``Status/failed``.
    public var failure: BatchFailure?
    /// The report's members after `schemaVersion`, `line` and `status`:
    /// the paths, the pixels read, each output's format, size and bytes,
    /// or the error (the schema `batch-line`).
    public var members: [JSONValue.Member]
    /// How far the batch is when this line is reported.
    public var progress = BatchProgress(done: 0, total: 0)

    /// A failed line: `members`, then `"error"` (the sentence) and
    /// `"errorCode"`.
    static func failed(line: Int, _ failure: BatchFailure, _ members: [JSONValue.Member])
        -> BatchLineResult
    {
        BatchLineResult(
            line: line, status: .failed, failure: failure,
            members: members + [
                .init("error", .string(failure.message)),
                .init("errorCode", .string(failure.code.name)),
            ])
    }

    /// The line's report object, as `cropkit batch` prints it.
    public var json: JSONValue {
        .object(
            [
                .init("schemaVersion", .number(MachineInterface.schemaVersion)),
                .init("line", .number(line)), .init("status", .string(status.rawValue)),
            ] + members)
    }

    /// The input, resolved against the manifest's folder, when the line
    /// names one.
    public var input: String? {
        if case .string(let input)? = json["input"] { input } else { nil }
    }

    /// The outputs the line writes (one, or one a variant), resolved
    /// against the manifest's folder.
    public var outputs: [String] {
        if case .string(let output)? = json["output"] { return [output] }
        if case .array(let outputs)? = json["outputs"] {
            return outputs.compactMap { if case .string(let path) = $0 { path } else { nil } }
        }
        return []
    }
}

/// How far a batch is: lines reported, of the lines of its shard.
public struct BatchProgress: Sendable, Hashable {
    /// The lines reported so far, this one included.
    public var done: Int
    /// The non-blank lines of the shard.
    public var total: Int

    /// A batch `done` lines into `total`.
    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }
}

/// Why a line failed: its kind (``BatchFailure/Code``) and a sentence.
public struct BatchFailure: Error, Sendable {
    /// Why a line failed, as its `"errorCode"` says (the DocC article
    /// "Machine interface").
    public enum Code: Sendable, Hashable {
        /// The line itself: not JSON, a member unknown, misspelt or of the
        /// wrong type, no region.
        case manifest
        /// A path that resolves outside ``BatchOptions/root``.
        case outsideRoot
        /// A request the input or format cannot take (a frame of a still,
        /// a GIF of a still).
        case invalidRequest
        /// A rect not on the block grid, with `lossless`.
        case notLossless
        /// A selection that covers no pixel.
        case noPixels
        /// The image's own error's kind (``ImagingError/Code``: `corrupt`,
        /// `limit`, ...).
        case imaging(ImagingError.Code)
        /// A merge found the line's result wanting (``BatchMerge``).
        case merge

        /// The JSON value.
        public var name: String {
            switch self {
            case .manifest: "manifest"
            case .outsideRoot: "outsideRoot"
            case .invalidRequest: "invalidRequest"
            case .notLossless: "notLossless"
            case .noPixels: "noPixels"
            case .imaging(let code): code.rawValue
            case .merge: "merge"
            }
        }
    }

    /// The kind.
    public var code: Code
    /// The sentence, for a person.
    public var message: String

    /// A failure of kind `code`, said by `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// Why a batch stopped before its lines were cropped or merged (a line's
/// own trouble is a ``BatchFailure`` in its result instead).
public enum BatchError: Error, Sendable, CustomStringConvertible {
    /// The manifest or a report cannot be opened.
    case unreadable(FileError)
    /// The manifest (or a report, `path`) is not JSON Lines text, or has a
    /// line longer than ``BatchOptions/maxLineBytes``.
    case notLines(path: String, LineReader.ReadFailure)
    /// The whole-manifest check found a line that would lose work (two
    /// lines writing one output, an output that is an input or the
    /// manifest, a report that is one of them): nothing was cropped.
    case conflict(manifest: String, String)
    /// ``BatchOptions/root`` (`folder`) is not a folder: `reason` says why.
    case root(folder: String, reason: String)
    /// The report could not be written.
    case report(ImagingError)
    /// The reports given to ``BatchMerge`` do not go with the manifest.
    case merge(String)
    /// The batch was cancelled; its report was not written.
    case cancelled

    /// A sentence for a person.
    public var description: String {
        switch self {
        case .unreadable(let error): error.description
        case .notLines(let path, let failure): "\(path): \(failure)"
        case .conflict(let manifest, let problem): "\(manifest): \(problem); nothing was cropped"
        case .root(let folder, let reason): "the root '\(folder)' \(reason)"
        case .merge(let problem): problem
        case .report(let error): error.description
        case .cancelled: "the batch was cancelled"
        }
    }
}
