/// Why an image could not be read, cropped or written: a switchable code and a
/// message a person can act on.
public struct ImagingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// The file cannot be opened or read.
        case cannotOpen
        /// The data is not a valid image (truncated, bad checksum, malformed).
        case corrupt
        /// A valid image this build does not handle.
        case unsupported
        /// Over one of the decode limits; the message names the limit.
        case limit
        /// The memory needed could not be had.
        case outOfMemory
        /// The output could not be written.
        case output
        /// The output exists (and replacing was not allowed), or is the input.
        case outputRefused
        /// The request itself does not fit the image (a crop outside it).
        case invalidRequest
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
