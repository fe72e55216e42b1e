import Foundation

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
                    + hexByte(byte)
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
public struct FileError: Error, Sendable, CustomStringConvertible {
    /// The path that could not be opened.
    public var path: String
    /// The system's error number (`errno`).
    public var code: Int32

    /// The sentence: which path, and the system's reason.
    public var description: String {
        "cannot read '\(path)': \(String(cString: strerror(code)))"
    }
}

/// A byte as two upper-case hexadecimal digits ("0A").
private func hexByte(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return digits.count == 1 ? "0" + digits : digits
}
