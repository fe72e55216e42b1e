import CropImaging

/// The options that govern reading an image, shared by every command that
/// decodes one (`crop`, `batch`): the decode limits, leniency and the PNG
/// inflater. Declared once and parsed once.
struct ImageOptions {
    var limits = DecodeLimits()
    var lenient = false
    var inflater = Inflater.automatic

    /// The limit flags, each with the ``DecodeLimits`` field it sets. (Key
    /// paths are not Sendable; the table is immutable.)
    /// Opens `path` with these options.
    func open(_ path: String) throws(ImagingError) -> ImageSource {
        var source = try ImageSource.open(path: path, limits: limits)
        source.inflater = inflater
        return source
    }

    nonisolated(unsafe) static let limitFlags:
        [(flag: String, limit: ImagingError.Limit, path: WritableKeyPath<DecodeLimits, Int>)] = [
            ("max-pixels", .pixels, \.maxPixels), ("max-dimension", .dimension, \.maxDimension),
            ("max-chunk-bytes", .chunkBytes, \.maxChunkBytes),
            ("max-file-bytes", .fileBytes, \.maxFileBytes),
            ("max-metadata-bytes", .metadataBytes, \.maxMetadataBytes),
            ("max-scans", .scans, \.maxScans),
            ("max-scan-passes", .scanPasses, \.maxScanPasses),
            ("max-memory", .memory, \.maxMemory),
            ("max-frames", .frames, \.maxFrames),
            ("max-animation-pixels", .animationPixels, \.maxAnimationPixels),
        ]

    /// The flag that raises `limit`, if there is one.
    static func flag(for limit: ImagingError.Limit) -> String? {
        limitFlags.first { $0.limit == limit }?.flag
    }

    static let specs: [OptionSpec] = [
        OptionSpec(
            name: "inflater", value: "NAME",
            help: "PNG input: automatic (default: ISA-L if installed, else libpng), isal or zlib"),
        OptionSpec(
            name: "lenient", value: nil,
            help: "accept JPEG data libjpeg can step over (a warning), and say so"),
        OptionSpec(
            name: "max-scans", value: "N",
            help:
                "refuse progressive JPEGs with more scans (default \(DecodeLimits.standard.maxScans))"
        ),
        OptionSpec(
            name: "max-scan-passes", value: "N",
            help:
                "refuse progressive JPEGs whose scans visit each block more times over (default \(DecodeLimits.standard.maxScanPasses))"
        ),
        OptionSpec(
            name: "max-memory", value: "BYTES",
            help:
                "refuse a crop whose peak memory would be more (its need plus 30M for the program); K, M, G suffixes (default 256M)"
        ),
        OptionSpec(
            name: "max-frames", value: "N",
            help:
                "refuse animations with more frames (default \(DecodeLimits.standard.maxFrames))"),
        OptionSpec(
            name: "max-animation-pixels", value: "N",
            help:
                "refuse animations whose crop visits more pixels: frame areas plus the crop's once a frame (default \(DecodeLimits.standard.maxAnimationPixels))"
        ),
        OptionSpec(
            name: "max-pixels", value: "N",
            help: "refuse inputs of more pixels (default \(DecodeLimits.standard.maxPixels))"),
        OptionSpec(
            name: "max-dimension", value: "N",
            help: "refuse inputs wider or taller (default \(DecodeLimits.standard.maxDimension))"),
        OptionSpec(
            name: "max-chunk-bytes", value: "N",
            help:
                "refuse a metadata chunk larger than this (default \(DecodeLimits.standard.maxChunkBytes))"
        ),
        OptionSpec(
            name: "max-file-bytes", value: "N",
            help:
                "refuse input files larger than this (default \(DecodeLimits.standard.maxFileBytes))"
        ),
        OptionSpec(
            name: "max-metadata-bytes", value: "N",
            help:
                "refuse metadata chunks larger than this together (default \(DecodeLimits.standard.maxMetadataBytes))"
        ),
    ]

    init(_ parsed: ParsedArguments) throws(UsageError) {
        lenient = parsed.flags.contains("lenient")
        if let name = parsed.values["inflater"] {
            guard let chosen = Inflater(rawValue: name == "auto" ? "automatic" : name) else {
                throw UsageError(
                    message: "unknown --inflater '\(name)'; use automatic, isal or zlib")
            }
            inflater = chosen
        }
        for (flag, _, path) in Self.limitFlags {
            let value =
                flag.hasSuffix("bytes") || flag == "max-memory"
                ? try byteCount(parsed, flag) : try positiveInteger(parsed, flag)
            if let value { limits[keyPath: path] = value }
        }
    }
}

/// The PNG compression options, shared by `crop` and `batch`.
enum CompressionOptions {
    static let specs: [OptionSpec] = [
        OptionSpec(
            name: "compressor", value: "NAME",
            help: "automatic (default: libdeflate if installed, else zlib), libdeflate or zlib"),
        OptionSpec(
            name: "level", value: "N",
            help:
                "auto (default: 2; 1 for noisy bands, 6 for flat ones), best (smallest), zlib 1-9, libdeflate 1-12"
        ),
    ]

    /// The encoder the flags ask for, on `threads` threads (by default one a core).
    static func encoder(_ parsed: ParsedArguments, threads: Int? = nil) throws(UsageError)
        -> PNGEncoder
    {
        let compressorName = parsed.values["compressor"] ?? "automatic"
        guard let compressor = Compressor(rawValue: compressorName) else {
            throw UsageError(
                message:
                    "unknown --compressor '\(compressorName)'; use automatic, libdeflate or zlib")
        }
        var level = CompressionLevel.automatic
        if parsed.values["level"] == "best" {
            level = compressor.resolved == .zlib ? .fixed(9) : .best
        } else if let text = parsed.values["level"], text != "auto" {
            guard let fixed = Int(text), (1...12).contains(fixed),
                compressor != .zlib || fixed <= 9
            else {
                throw UsageError(
                    message:
                        "--level must be auto, best, 1-9 for zlib or 1-12 for libdeflate, not '\(text)'"
                )
            }
            level = .fixed(fixed)
        }
        return PNGEncoder(compressor: compressor, level: level, threads: threads)
    }
}

/// The value of `--flag` as a positive whole number, or `nil` when it is not
/// given.
///
/// - Throws: ``UsageError`` naming the flag when the value is not one.
func positiveInteger(_ parsed: ParsedArguments, _ flag: String) throws(UsageError) -> Int? {
    guard let text = parsed.values[flag] else { return nil }
    guard let value = Int(text), value > 0 else {
        throw UsageError(message: "--\(flag) must be a positive whole number, not '\(text)'")
    }
    return value
}

/// The value of `--flag` as a positive number of bytes, whole or with a
/// binary suffix (K, M or G: 1024, 1024², 1024³; `256M`, `1G`), or `nil`
/// when it is not given.
///
/// - Throws: ``UsageError`` naming the flag when the value is not one.
func byteCount(_ parsed: ParsedArguments, _ flag: String) throws(UsageError) -> Int? {
    guard let text = parsed.values[flag] else { return nil }
    let shifts: [Character: Int] = ["K": 10, "k": 10, "M": 20, "m": 20, "G": 30, "g": 30]
    var digits = Substring(text)
    var shift = 0
    if let last = digits.last, let found = shifts[last] {
        shift = found
        digits = digits.dropLast()
    }
    guard let value = Int(digits), value > 0, value <= Int.max >> shift else {
        throw UsageError(
            message:
                "--\(flag) must be a positive number of bytes (such as 1048576, 512M or 1G), not '\(text)'"
        )
    }
    return value << shift
}
