import CropImaging
import Foundation

/// Where a command's text goes.
///
/// Text written with ``write(_:)`` may carry what a file said (a profile's
/// name, a tag, a path), so the streams a person reads escape control
/// characters in it (``printable(_:)``); bytes written with
/// ``write(utf8:)`` go as they are (JSON, already escaped, and a progress
/// line's own carriage return).
public protocol TextSink: AnyObject {
    /// Appends `text`.
    func write(_ text: String)
    /// Appends text given as UTF-8 bytes (what the JSON writer makes), as
    /// they are.
    func write(utf8 bytes: [UInt8])
    /// Hands what was written on now (a progress line a person waits for).
    func flush()
}

extension TextSink {
    /// Appends text given as UTF-8 bytes, through ``write(_:)``.
    public func write(utf8 bytes: [UInt8]) {
        write(String(decoding: bytes, as: UTF8.self))
    }

    /// Nothing to hand on: the sink keeps no buffer.
    public func flush() {}
}

/// `text` with every control character but line feed and tab written as a
/// C escape, as exiftool's `-ec` writes them: NUL as `\0`, carriage return
/// as `\r`, another C0 byte or DEL as `\x1b`, a C1 character as `\u0085`.
/// A file's text then cannot end a line early, move the cursor or change a
/// terminal's colours.
///
/// Decided (hostile input, round five): the Unicode line and paragraph
/// separators (U+2028, U+2029) and the bidirectional controls that reorder
/// what a terminal shows (U+061C, U+200E, U+200F, U+202A to U+202E,
/// U+2066 to U+2069: the "Trojan Source" characters) are escaped the same
/// way (`\u2028`, `\u202e`): an editor or a log viewer breaks a line at
/// the first, and the others make a name read as another. Every other
/// character, accented or not Latin, is printed as it is. JSON output
/// escapes its own way.
public func printable(_ text: String) -> String {
    escaped(text, keepingLines: true)
}

/// `text` as one field of a line (a path, a tag, an error's sentence): as
/// ``printable(_:)``, and line feed and tab escaped too (`\n`, `\t`), so
/// that a file named `"a\nFAKE: b: clean"` cannot start a line of its own.
public func printable(field text: String) -> String {
    escaped(text, keepingLines: false)
}

/// Whether `scalar` is one ``printable(_:)`` escapes as `\u` and its code.
private func isInvisibleFormat(_ value: UInt32) -> Bool {
    switch value {
    case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
        return true
    default:
        return false
    }
}

private func escaped(_ text: String, keepingLines: Bool) -> String {
    func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && !(keepingLines && (byte == 10 || byte == 9))) || byte == 0x7F
    }
    // C1 controls are U+0080-U+009F (UTF-8 C2 80 to C2 9F); the separators
    // and bidi controls start E2 80, E2 81 or D8 9C.
    let utf8 = text.utf8
    guard utf8.contains(where: { isControl($0) || $0 == 0xC2 || $0 == 0xE2 || $0 == 0xD8 }) else {
        return text
    }
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar.value {
        case 0: out += "\\0"
        case 13: out += "\\r"
        case 10 where keepingLines, 9 where keepingLines: out.unicodeScalars.append(scalar)
        case 10: out += "\\n"
        case 9: out += "\\t"
        case 0..<0x20, 0x7F:
            out += "\\x" + String(scalar.value, radix: 16).leftPadded(to: 2)
        case let value where isInvisibleFormat(value):
            out += "\\u" + String(value, radix: 16).leftPadded(to: 4)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}

extension String.StringInterpolation {
    /// Appends `value` escaped as one field of a line
    /// (``printable(field:)``): `"\(field: path): clean\n"`.
    mutating func appendInterpolation<Value>(field value: Value) {
        appendLiteral(printable(field: String(describing: value)))
    }
}

/// A buffered standard output or standard error.
public final class StandardStream: TextSink {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// A stream writing to `descriptor` (1 or 2), in 64 KiB pieces and at
    /// each ``flush()``.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer.reserveCapacity(1 << 16)
    }

    deinit { flush() }

    /// Appends `text`, its control characters escaped (``printable(_:)``),
    /// writing the buffer out once it holds 64 KiB.
    public func write(_ text: String) {
        buffer.append(contentsOf: printable(text).utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Appends the bytes as they are, with no `String` between.
    public func write(utf8 bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Writes out what the buffer holds (retrying short writes).
    public func flush() {
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return 0 }
                return Foundation.write(descriptor, base + offset, raw.count - offset)
            }
            if written <= 0 { break }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Bytes written straight to a file descriptor (`write(2)`, retried on
/// EINTR and short writes).
public final class DescriptorSink: ByteSink {
    private let descriptor: Int32

    /// A sink writing to `descriptor`.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Writes `chunk` whole.
    ///
    /// - Throws: ``ImagingError/cannotWrite(path:reason:)``.
    public func write(_ chunk: any ByteChunk) throws(ImagingError) {
        var failure: Int32 = 0
        chunk.withChunkBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(descriptor, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure != 0 {
            throw .cannotWrite(path: "standard output", reason: String(cString: strerror(failure)))
        }
    }
}

/// Text collected in memory, for tests.
public final class StringSink: TextSink {
    /// Everything written so far.
    public private(set) var text = ""

    /// An empty sink.
    public init() {}

    /// Appends `text` to ``text``, its control characters escaped as on a
    /// standard stream.
    public func write(_ text: String) { self.text += printable(text) }

    /// Appends the bytes as they are.
    public func write(utf8 bytes: [UInt8]) { text += String(decoding: bytes, as: UTF8.self) }
}

/// Text thrown away: standard output under `--quiet`.
final class DiscardSink: TextSink {
    func write(_ text: String) {}
    func write(utf8 bytes: [UInt8]) {}
}

/// The streams a command talks to.
public struct Console {
    /// Standard output, for text.
    public var out: TextSink
    /// Standard error.
    public var err: TextSink
    /// Standard input, when the command reads `-`.
    public var input: () -> LineReader?
    /// Standard output for bytes (an image written with `-o -`), when there
    /// is one.
    public var binaryOut: () -> (any ByteSink)?

    /// A console of these streams.
    public init(
        out: TextSink, err: TextSink, input: @escaping () -> LineReader? = { nil },
        binaryOut: @escaping () -> (any ByteSink)? = { nil }
    ) {
        self.out = out
        self.err = err
        self.input = input
        self.binaryOut = binaryOut
    }

    /// The process's own standard streams.
    public static func standard() -> Console {
        Console(
            out: StandardStream(descriptor: 1), err: StandardStream(descriptor: 2),
            input: { LineReader(descriptor: 0) }, binaryOut: { DescriptorSink(descriptor: 1) })
    }

    func flush() {
        out.flush()
        err.flush()
    }
}

/// Reads lines from a file descriptor or from text, without holding the whole input.
public final class LineReader {
    /// The longest line read, in bytes; a longer one ends the reading
    /// with ``failure`` set, so one endless line cannot take all memory.
    public var maxLineBytes = LineReader.defaultMaxLineBytes
    /// The default ``maxLineBytes``: 64 MiB, far beyond any record or
    /// manifest line.
    public static let defaultMaxLineBytes = 64 << 20
    /// Why reading stopped before the end, if it did.
    public private(set) var failure: ReadFailure?
    /// Whether a line after the first that holds bytes no text holds is
    /// handed out with ``malformed`` set, and the reading goes on (what
    /// `replay` does with a bad line); by default the reading stops at it.
    /// The first line still stops it: a JPEG or PNG given where JSON Lines
    /// were meant is not read as thousands of bad lines.
    public var continuesPastMalformedLines = false
    /// Why the line last handed out is not text (``ReadFailure/binary(offset:byte:line:)``),
    /// under ``continuesPastMalformedLines``; `nil` for a line of text.
    public private(set) var malformed: ReadFailure?
    /// The first byte no text holds in the line being read, found before
    /// its end was (under ``continuesPastMalformedLines``).
    private var badInLine: (offset: Int, byte: UInt8)?

    /// Why a ``LineReader`` stopped before the end.
    public enum ReadFailure: Equatable, Sendable, CustomStringConvertible {
        /// Line `line` (counted from 1) is longer than
        /// ``LineReader/maxLineBytes``.
        case lineTooLong(limit: Int, line: Int)
        /// A byte that text in JSON Lines never holds (a NUL, a control
        /// character other than tab and CR, or a byte that is not UTF-8): a
        /// binary file, such as a JPEG given where a manifest was meant.
        /// `offset` counts from 0, `line` from 1.
        case binary(offset: Int, byte: UInt8, line: Int)

        /// A sentence for a person, with the fix, naming the line.
        public var description: String {
            switch self {
            case .lineTooLong(let limit, let line):
                "line \(line) is longer than \(limit) bytes (the limit for one line); raise it with --max-line-bytes"
            case .binary(let offset, let byte, let line):
                "line \(line): not JSON Lines: binary data at byte \(offset) (0x"
                    + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
                    + ", not UTF-8 text); give a text file with one JSON object per line"
            }
        }
    }
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    private var finished = false

    /// Lines read from `descriptor`; it is closed at the end when `ownsDescriptor`.
    public init(descriptor: Int32, ownsDescriptor: Bool = false) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
    }

    /// Lines of `text`, for tests.
    public init(text: String) {
        descriptor = -1
        ownsDescriptor = false
        buffer = Array(text.utf8)
        finished = true
    }

    /// Opens a file for reading, or says why it cannot.
    public static func open(path: String) -> Result<LineReader, FileError> {
        let fd = Foundation.open(path, O_RDONLY)
        if fd < 0 { return .failure(FileError(path: path, code: errno)) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            return .failure(FileError(path: path, code: EISDIR))
        }
        return .success(LineReader(descriptor: fd, ownsDescriptor: true))
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// The next line without its line break (a trailing CR is dropped too), or
    /// `nil` at the end.
    public func nextLine() -> String? {
        nextLineBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// ``nextLine()`` as its UTF-8 bytes, with no `String` made of them:
    /// valid until the next call.
    public func nextLineBytes() -> ArraySlice<UInt8>? {
        malformed = nil
        while true {
            // Only the bytes not yet searched are searched: a long line read
            // in many pieces costs linear time.
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                if let bad = binaryByte(upTo: newline) {
                    guard tolerate(bad) else { return fail(bad) }
                    checked = newline
                }
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = buffer[start..<end]
                start = newline + 1
                scanned = start
                checked = start
                return handOut(line)
            }
            if let bad = binaryByte(upTo: buffer.count) {
                guard tolerate(bad) else { return fail(bad) }
                checked = buffer.count
            }
            scanned = buffer.count
            if finished {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return handOut(line)
            }
            if buffer.count - start > maxLineBytes {
                return stop(.lineTooLong(limit: maxLineBytes, line: linesRead + 1))
            }
            if start > 0 {
                consumed += start
                buffer.removeFirst(start)
                scanned -= start
                checked -= start
                start = 0
            }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 {
                finished = true
            } else {
                buffer.append(contentsOf: chunk[0..<count])
            }
        }
    }

    /// The index of the first byte in `range` that no line of UTF-8 text
    /// holds: a control byte other than tab, CR and LF, or a byte that does
    /// not belong to a well-formed UTF-8 sequence.
    /// Checks from where the last check stopped up to `end`; a sequence cut
    /// off by `end` is left for the next check, once more has been read.
    private func binaryByte(upTo end: Int) -> Int? {
        let range = checked..<end
        var index = range.lowerBound
        defer { checked = index }
        while index < range.upperBound {
            let byte = buffer[index]
            if byte < 0x80 {
                if byte < 0x20 && byte != 0x09 && byte != 0x0D && byte != 0x0A { return index }
                index += 1
                continue
            }
            // A multi-byte sequence: its length from the lead byte, then
            // continuation bytes, no overlong forms or surrogates. One cut
            // off at the end of the range is checked when more has come.
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch byte {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, low) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, high) = (3, 0x9F)
            case 0xF0: (length, low) = (4, 0x90)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, high) = (4, 0x8F)
            default: return index
            }
            if index + length > range.upperBound {
                return finished || range.upperBound < buffer.count ? index : nil
            }
            for offset in 1..<length {
                let next = buffer[index + offset]
                let (lowest, highest) = offset == 1 ? (low, high) : (0x80, 0xBF)
                if next < lowest || next > highest { return index }
            }
            index += length
        }
        return nil
    }

    /// Whether the byte no text holds at buffer index `index` is the
    /// line's problem rather than the reading's
    /// (``continuesPastMalformedLines``, past the first line); the first
    /// such byte of a line is kept for ``malformed``.
    private func tolerate(_ index: Int) -> Bool {
        guard continuesPastMalformedLines, linesRead > 0 else { return false }
        if badInLine == nil { badInLine = (consumed + index, buffer[index]) }
        return true
    }

    /// Counts `line` and hands it out, with ``malformed`` set when a byte
    /// in it is not text.
    private func handOut(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        linesRead += 1
        if let bad = badInLine {
            malformed = .binary(offset: bad.offset, byte: bad.byte, line: linesRead)
            badInLine = nil
        }
        return line
    }

    /// Stops reading at the binary byte at buffer index `index`.
    private func fail(_ index: Int) -> ArraySlice<UInt8>? {
        stop(.binary(offset: consumed + index, byte: buffer[index], line: linesRead + 1))
    }

    /// Ends the reading with `reason`, giving the buffer back.
    private func stop(_ reason: ReadFailure) -> ArraySlice<UInt8>? {
        failure = reason
        buffer = []
        start = 0
        scanned = 0
        checked = 0
        finished = true
        return nil
    }

    /// Bytes dropped from the front of the buffer so far: a buffer index
    /// plus this is an offset in the input.
    private var consumed = 0
    /// The lines handed out so far.
    public private(set) var linesRead = 0
    /// Where the search for the next line break goes on from.
    private var scanned = 0
    /// Where the check for binary data goes on from.
    private var checked = 0
    /// The read buffer, reused.
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)
}

/// A file that could not be opened, with the system's reason.
public struct FileError: Error, CustomStringConvertible {
    /// The path that could not be opened.
    public var path: String
    /// The system's error number (`errno`).
    public var code: Int32

    public var description: String {
        "cannot read '\(path)': \(String(cString: strerror(code)))"
    }
}

extension String {
    /// The string with `"0"`s in front, to `width` characters.
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

extension Console {
    /// The lines of `path`, or of standard input for `-`; `nil` when it
    /// cannot be read, said on standard error (exit 2).
    func lines(of path: String) -> LineReader? {
        if path == "-" {
            guard let input = input() else {
                err.write("error: no standard input to read\n")
                return nil
            }
            return input
        }
        switch LineReader.open(path: path) {
        case .success(let opened): return opened
        case .failure(let error):
            err.write("error: \(field: error)\n")
            return nil
        }
    }
}
