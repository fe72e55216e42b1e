import CropGeometry

/// Why an image could not be read, cropped or written: one case per kind of
/// failure, with what a caller needs to act on it.
///
/// Each case belongs to one ``Phase`` of the pipeline (open, read, decode,
/// encode, write; planning has its own ``CropPlanError``), so a caller can
/// tell a file that cannot be read from one that is damaged, or from an
/// encoder or a disk that failed. One enum serves every phase because the
/// pipeline's functions throw typed errors that cross phases (a decode
/// feeding an encoder).
///
/// ``description`` is a sentence for a person that names no command-line
/// flag; a tool maps the cases to its own advice (the `cropkit` command
/// adds the flag that raises a limit, for instance). Switch on the cases,
/// or on ``code`` for the broad kind.
public enum ImagingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file cannot be opened.
    case cannotOpen(path: String, reason: String)
    /// The file was opened, but reading it failed (an I/O error).
    case cannotRead(path: String, reason: String)
    /// The file holds no bytes at all: no image of any format.
    case emptyFile(path: String)
    /// The path names something other than a regular file.
    case notARegularFile(path: String)
    /// The file's first bytes are no signature CropKit reads.
    case unknownFormat(path: String)
    /// The data is not a valid image: truncated, a bad checksum, malformed.
    case corrupt(format: ImageFormat, detail: String)
    /// Damaged data the decoder could step over (a libjpeg warning, such as
    /// a premature end of data): refused unless the decode is lenient.
    case recoverableCorruption(format: ImageFormat, detail: String)
    /// A valid image, or a feature of one, that CropKit does not handle.
    case unsupported(format: ImageFormat, detail: String)
    /// Over one of the ``DecodeLimits``: which, its value, and what the
    /// input needs.
    case limitExceeded(Limit, limit: Int, actual: Int)
    /// Over a fixed limit of a format's structure that guards against
    /// hostile files (a HEIF's item count, say): a valid file may say so,
    /// but CropKit does not read that much.
    case structureLimit(format: ImageFormat, detail: String)
    /// What a crop would hold in memory at once is over
    /// ``DecodeLimits/maxMemory``: refused before anything is allocated.
    case memoryExceeded(need: MemoryNeed, limit: Int)
    /// The memory needed could not be had.
    case outOfMemory(detail: String)
    /// A library loaded at run time is not installed.
    case libraryMissing(library: String, package: String)
    /// The encoder failed to write the output (`format`: "jpeg", "heic"):
    /// not the input's fault.
    case encodeFailed(format: String, detail: String)
    /// The output exists, and replacing it was not allowed.
    case outputExists(path: String)
    /// The output would overwrite the input, which is never done.
    case outputIsInput(path: String)
    /// The output names something other than a regular file (a folder, a
    /// device, a pipe), or a link to one: it is never replaced.
    case outputNotAFile(path: String, kind: String)
    /// The output could not be written.
    case cannotWrite(path: String, reason: String)
    /// The crop does not lie inside the image.
    case cropOutsideImage(crop: PixelRect<StoredPixels>, size: PixelSize<StoredPixels>)

    /// The limits a decode checks, each a field of ``DecodeLimits``.
    public enum Limit: String, Hashable, Sendable, CaseIterable {
        /// ``DecodeLimits/maxPixels``.
        case pixels
        /// ``DecodeLimits/maxDimension``.
        case dimension
        /// ``DecodeLimits/maxChunkBytes``.
        case chunkBytes
        /// ``DecodeLimits/maxMetadataBytes``.
        case metadataBytes
        /// ``DecodeLimits/maxFileBytes``.
        case fileBytes
        /// ``DecodeLimits/maxScans``.
        case scans
        /// ``DecodeLimits/maxScanPasses``.
        case scanPasses
        /// ``DecodeLimits/maxFrames``.
        case frames
        /// ``DecodeLimits/maxAnimationPixels``.
        case animationPixels
        /// Memory the format forces a decode to hold (an interlaced PNG's
        /// rows, a progressive JPEG's coefficients).
        case memory
        /// The largest fixture an export check makes.
        case fixturePixels
    }

    /// The broad kind of an error, for exit codes and tables.
    public enum Code: String, Hashable, Sendable {
        /// The file cannot be opened or read.
        case cannotOpen
        /// The data is not a valid image.
        case corrupt
        /// A valid image this build does not handle.
        case unsupported
        /// Over one of the decode limits.
        case limit
        /// The memory, or a library, needed could not be had.
        case outOfMemory
        /// The encoder failed.
        case encode
        /// The output could not be written.
        case output
        /// The output exists (and replacing was not allowed), or is the input.
        case outputRefused
        /// The request itself does not fit the image.
        case invalidRequest
    }

    /// Where in the pipeline an error arises.
    public enum Phase: String, Hashable, Sendable, CaseIterable {
        /// Opening the input: the path, the file's kind, its first bytes.
        case open
        /// Reading the input's header and metadata, and the limits it is
        /// checked against before any pixel is decoded.
        case read
        /// Decoding pixels (or coefficients, or tiles) of the crop.
        case decode
        /// Encoding the output.
        case encode
        /// Writing the output file.
        case write
    }

    /// The phase this error arises in. Corrupt data found while decoding
    /// is reported with the ``Phase/read`` phase when the case cannot tell
    /// (a truncated file is met in either).
    public var phase: Phase {
        switch self {
        case .cannotOpen, .notARegularFile, .unknownFormat, .emptyFile: .open
        case .cannotRead, .corrupt, .unsupported, .limitExceeded, .structureLimit,
            .libraryMissing, .cropOutsideImage:
            .read
        case .recoverableCorruption, .memoryExceeded, .outOfMemory: .decode
        case .encodeFailed: .encode
        case .outputExists, .outputIsInput, .outputNotAFile, .cannotWrite: .write
        }
    }

    /// The broad kind of this error.
    public var code: Code {
        switch self {
        case .cannotOpen, .cannotRead, .notARegularFile: .cannotOpen
        case .corrupt, .recoverableCorruption, .emptyFile: .corrupt
        case .unknownFormat, .unsupported, .libraryMissing: .unsupported
        case .limitExceeded, .memoryExceeded, .structureLimit: .limit
        case .outOfMemory: .outOfMemory
        case .encodeFailed: .encode
        case .cannotWrite: .output
        case .outputExists, .outputIsInput, .outputNotAFile: .outputRefused
        case .cropOutsideImage: .invalidRequest
        }
    }

    /// A sentence for a person; it names no command-line flag.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open '\(path)': \(reason)"
        case .cannotRead(let path, let reason): "cannot read '\(path)': \(reason)"
        case .emptyFile(let path): "'\(path)' is empty (0 bytes): not an image"
        case .structureLimit(_, let detail): "\(detail) (a limit against hostile files)"
        case .encodeFailed(let format, let detail):
            "\(OutputFormat.displayName(of: format)) encoding failed: \(detail)"
        case .notARegularFile(let path): "'\(path)' is not a regular file"
        case .unknownFormat(let path):
            "'\(path)' is not a \(ImageFormat.readable) file (unknown signature)"
        case .corrupt(_, let detail): detail
        case .recoverableCorruption(let format, let detail):
            "\(format.name) data is corrupt: \(detail) (data the decoder can step over)"
        case .unsupported(_, let detail): detail
        case .limitExceeded(let limit, let value, let actual):
            Self.describe(limit, limit: value, actual: actual)
        case .memoryExceeded(let need, let limit):
            "the crop would hold \(describeBytes(need.bytes)) of memory at once (\(need.parts.joined(separator: ", "))), over the \(describeBytes(limit)) it may take"
        case .outOfMemory(let detail): detail
        case .libraryMissing(let library, let package):
            "\(library) is not installed (Debian: \(package))"
        case .outputExists(let path): "'\(path)' already exists"
        case .outputIsInput(let path):
            "the output '\(path)' is the input file; CropKit never overwrites its input"
        case .outputNotAFile(let path, let kind):
            kind == "folder"
                ? "'\(path)' is a folder; name a file"
                : "'\(path)' is a \(kind), not a regular file; only a regular file is ever replaced"
        case .cannotWrite(let path, let reason): "cannot write '\(path)': \(reason)"
        case .cropOutsideImage(let crop, let size):
            "the crop \(crop) does not lie inside the \(size) image"
        }
    }

    private static func describe(_ limit: Limit, limit value: Int, actual: Int) -> String {
        switch limit {
        case .pixels:
            "the image has \(actual) pixels, over the limit of \(value)"
        case .dimension:
            "the image is \(actual) pixels on a side, over the limit of \(value)"
        case .chunkBytes:
            "a metadata chunk declares \(describeBytes(actual)), over the \(describeBytes(value)) limit for one"
        case .metadataBytes:
            "the metadata holds over \(describeBytes(value)), the limit for all of it (\(describeBytes(actual)) so far)"
        case .fileBytes:
            "the file is \(describeBytes(actual)), over the \(describeBytes(value)) limit for an input file"
        case .scans:
            "the progressive JPEG has more than \(value) scans"
        case .scanPasses:
            "the progressive JPEG's scans visit its blocks more than \(value) times over (\(actual) at the scan that passed it; encoders' scans visit them 3 to 6 times); refused before decoding"
        case .frames:
            "the animation has \(actual == Int.max ? "more than \(value)" : "\(actual)") frames, over the limit of \(value); refused before decoding"
        case .animationPixels:
            "cropping the animation would visit \(actual) pixels (its frames' areas and the crop's once a frame), over the limit of \(value); refused before decoding"
        case .memory:
            "the decode needs \(describeBytes(actual)) of memory, over the \(describeBytes(value)) it may take"
        case .fixturePixels:
            "export checks make fixtures of at most \(value) pixels, not \(actual)"
        }
    }
}

/// "499 bytes", "973 MB".
func describeBytes(_ count: Int) -> String {
    if count < 10_000 { return "\(count) bytes" }
    if count < 10_000_000 { return "\(count / 1000) kB" }
    return "\(count / 1_000_000) MB"
}
