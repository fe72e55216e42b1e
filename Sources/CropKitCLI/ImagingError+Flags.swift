import CropImaging
import CropRecords

extension ImagingError {
    /// What `cropkit` prints for this error: the library's sentence, plus
    /// the flag that changes the outcome where there is one.
    var commandLineMessage: String {
        switch self {
        case .limitExceeded(let limit, _, _):
            guard let flag = ImageOptions.flag(for: limit) else { return description }
            return "\(description) (raise it with --\(flag))"
        case .memoryExceeded, .outOfMemory:
            return "\(description) (raise it with --max-memory)"
        case .outputExists:
            return "\(description); pass --force to replace it"
        case .libraryMissing(let library, _) where library == RuntimeLibrary.libdeflate.name:
            return "\(description); use --compressor zlib"
        case .recoverableCorruption:
            return "\(description); pass --lenient to accept it"
        default:
            return description
        }
    }

    /// How a `--json` line gives this error: `"error"`, the sentence
    /// ``commandLineMessage`` prints; `"errorCode"`, its kind
    /// (``ImagingError/Code``); `"errorPhase"`, where it arose
    /// (``ImagingError/Phase``).
    var jsonMembers: [JSONValue.Member] {
        [
            .init("error", .string(commandLineMessage)), .init("errorCode", .string(code.rawValue)),
            .init("errorPhase", .string(phase.rawValue)),
        ]
    }

    /// The exit code: 64 for an output that may not be written (a usage
    /// error the user fixes with --force or another path), 2 otherwise.
    var exitCode: Int32 {
        code == .outputRefused ? ExitCode.usage : ExitCode.badInput
    }
}
