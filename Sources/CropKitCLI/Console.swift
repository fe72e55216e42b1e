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
