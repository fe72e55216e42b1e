import Foundation

/// How ``Batch`` runs a manifest: how many crops at once, which shard,
/// what may be replaced, where paths may lead, the limits, and how each
/// line's output format is chosen.
public struct BatchOptions: Sendable {
    /// Crops at once (default: the number of cores).
    public var jobs = activeCores
    /// The lines taken: those whose index among the non-blank lines (from
    /// 0) is ``BatchShard/index`` modulo ``BatchShard/count``.
    public var shard = BatchShard.whole
    /// Whether outputs that exist are cropped again; by default a line
    /// whose outputs all exist is skipped (they are written atomically, so
    /// an existing one is complete, and a killed batch can be run again).
    public var force = false
    /// The folder every input and output must resolve inside, after
    /// symbolic links (for a manifest from an untrusted source); a line
    /// that reaches outside fails, and nothing is read or written for it.
    public var root: String?
    /// Where the report goes, written atomically in line order (a killed
    /// run leaves none); `nil` for none (the results are handed out all
    /// the same).
    public var report: String?
    /// The most variants a line may have (each holds its file, encoder and
    /// rows at once).
    public var maxVariants = BatchOptions.defaultMaxVariants
    /// The default ``maxVariants``: 64.
    public static let defaultMaxVariants = 64
    /// The longest manifest line read.
    public var maxLineBytes = LineReader.defaultMaxLineBytes
    /// The limits an input is read under.
    public var limits = DecodeLimits()
    /// Whether an input with damage a reader can recover from is accepted.
    public var lenient = false
    /// The PNG inflater used to read inputs.
    public var inflater = Inflater.automatic
    /// How each line's output format is chosen from its output path and
    /// its `"format"` member (default: by the extension, with
    /// `EncoderSettings()`).
    public var format = BatchFormatChoice.byExtension(EncoderSettings())
    /// The sentence a line's report gives for an image's error (default:
    /// its ``ImagingError/description``; `cropkit` adds the flag that
    /// changes the outcome).
    public var describe: @Sendable (ImagingError) -> String = { $0.description }

    /// The defaults: every core, the whole manifest, existing outputs
    /// skipped, no root, no report file.
    public init() {}

    /// Opens `path` as these options say.
    func open(_ path: String) throws(ImagingError) -> ImageSource {
        var source = try ImageSource.open(path: path, limits: limits)
        source.inflater = inflater
        return source
    }
}

/// A slice of a manifest for one task of an array job: the lines whose
/// index among the non-blank lines (from 0) is `index` modulo `count`.
public struct BatchShard: Sendable, Hashable {
    /// This task's place, from 0.
    public var index: Int
    /// The number of tasks.
    public var count: Int

    /// The whole manifest: shard 0 of 1.
    public static let whole = BatchShard(checkedIndex: 0, count: 1)

    /// Shard `index` of `count`; `nil` unless `0 <= index < count`.
    public init?(index: Int, count: Int) {
        guard count >= 1, index >= 0, index < count else { return nil }
        self.init(checkedIndex: index, count: count)
    }

    private init(checkedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Whether the non-blank line at `position` (from 0) is in the shard.
    func contains(_ position: Int) -> Bool { position % count == index }
}

/// How a batch line's output format is chosen: from its output's path
/// (the extension) and its `"format"` member, if any.
public struct BatchFormatChoice: Sendable {
    let choose:
        @Sendable (_ output: String, _ format: String?) -> Result<OutputFormat, BatchFailure>

    /// A choice made by `choose`, given a line's output path and its
    /// `"format"` (`nil` when the line has none); a failure fails the line
    /// with its sentence.
    public init(
        _ choose:
            @escaping @Sendable (_ output: String, _ format: String?) -> Result<
                OutputFormat, BatchFailure
            >
    ) {
        self.choose = choose
    }

    /// The format `"format"` names, else the one the output's extension
    /// names, encoded with `settings` (their PNG compression one thread a
    /// crop: the crops themselves fill the cores).
    public static func byExtension(_ settings: EncoderSettings) -> BatchFormatChoice {
        var oneThread = settings
        oneThread.compression.threads = 1
        let settings = oneThread
        return BatchFormatChoice { output, name in
            let choices = ImageFormat.listing(OutputFormat.names)
            let pathExtension = (output as NSString).pathExtension
            let byExtension = OutputFormat(name: pathExtension, settings: settings)
            if let name {
                guard let named = OutputFormat(name: name, settings: settings) else {
                    return .failure(
                        BatchFailure(.manifest, "unknown \"format\" '\(name)'; use \(choices)"))
                }
                if let byExtension, byExtension.name != named.name {
                    return .failure(
                        BatchFailure(
                            .manifest,
                            "\"format\" \(named.name) does not match '\(output)' (a .\(pathExtension) file is \(byExtension.name))"
                        ))
                }
                return .success(named)
            }
            guard let byExtension else {
                return .failure(
                    BatchFailure(
                        .manifest,
                        "\"output\" '\(output)': no format has the extension '.\(pathExtension)'; use \(choices)"
                    ))
            }
            return .success(byExtension)
        }
    }
}
