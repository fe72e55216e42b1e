internal import CImagingShims

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file so that a reader, or a crash at any moment, sees either the
/// old file (or none) or the complete new one: the bytes go to a temporary
/// file in the same folder, are flushed to disk, then renamed into place.
public enum AtomicFile {
    /// Writes `bytes` to `path`.
    ///
    /// - Parameters:
    ///   - replacing: Whether an existing file at `path` may be replaced.
    ///     Without it, an existing file is an error and is left untouched
    ///     (the final step is `link`, which fails rather than replace).
    ///   - protecting: A file that must never be overwritten (the input).
    /// - Throws: ``ImagingError`` `.output` or `.outputRefused`, with nothing
    ///   left behind.
    public static func write(
        _ bytes: [UInt8], to path: String, replacing: Bool, protecting protected: String? = nil
    ) throws(ImagingError) {
        let writer = try Writer(path: path, replacing: replacing, protecting: protected)
        try writer.write(bytes[...])
        try writer.commit()
    }

    /// A file being written: bytes go to a temporary file in the target's
    /// folder; ``commit()`` flushes it and moves it into place. Dropped
    /// without a commit (an error, a throw), it removes the temporary file.
    public final class Writer: PNGSink {
        public let path: String
        private let replacing: Bool
        private let temporary: String
        private var descriptor: Int32
        private var committed = false
        /// Bytes written so far, and how many of them are queued for disk.
        private var written = 0
        private var flushed = 0

        /// Checks that `path` may be written, then creates the temporary file.
        public init(path: String, replacing: Bool, protecting protected: String? = nil)
            throws(ImagingError)
        {
            if let protected, isSameFile(protected, path) {
                throw ImagingError(
                    .outputRefused,
                    "the output '\(path)' is the input file; CropKit never overwrites its input")
            }
            if !replacing && access(path, F_OK) == 0 {
                throw ImagingError(
                    .outputRefused, "'\(path)' already exists; pass --force to replace it")
            }
            let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
            let name = path.split(separator: "/").last.map(String.init) ?? path
            var template = Array(
                "\(folder.isEmpty ? "/" : folder)/.\(name).cropkit-XXXXXX".utf8CString)
            let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard descriptor >= 0 else {
                throw ImagingError(
                    .output,
                    "cannot create a file in '\(folder)': \(String(cString: strerror(errno)))")
            }
            self.path = path
            self.replacing = replacing
            self.descriptor = descriptor
            self.temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }

        deinit {
            if !committed {
                if descriptor >= 0 { close(descriptor) }
                unlink(temporary)
            }
        }

        public func write(_ chunk: any ByteChunk) throws(ImagingError) {
            var failure: String?
            chunk.withChunkBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = systemWrite(
                        descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        failure = "cannot write '\(path)': \(String(cString: strerror(errno)))"
                        return
                    }
                    offset += written
                }
            }
            if let failure { throw ImagingError(.output, failure) }
            // Start the disk write of every full megabyte now, so the fsync
            // in commit() waits for less.
            let start = written
            written += chunk.byteCount
            if written / (1 << 20) > start / (1 << 20) {
                let end = written - written % (1 << 20)
                let from = flushed
                ck_start_writeback(descriptor, Int64(from), Int64(end - from))
                flushed = end
            }
        }

        /// Flushes the file to disk and moves it into place.
        public func commit() throws(ImagingError) {
            guard fsync(descriptor) == 0 else {
                throw ImagingError(
                    .output, "cannot flush '\(path)' to disk: \(String(cString: strerror(errno)))")
            }
            fchmod(descriptor, 0o644)
            close(descriptor)
            descriptor = -1
            if replacing {
                guard rename(temporary, path) == 0 else {
                    throw ImagingError(
                        .output,
                        "cannot move the new file into place at '\(path)': \(String(cString: strerror(errno)))"
                    )
                }
            } else if link(temporary, path) != 0 {
                let code = errno
                throw ImagingError(
                    code == EEXIST ? .outputRefused : .output,
                    code == EEXIST
                        ? "'\(path)' already exists; pass --force to replace it"
                        : "cannot create '\(path)': \(String(cString: strerror(code)))")
            } else {
                unlink(temporary)
            }
            committed = true
        }
    }

    /// Whether two paths name the same existing file (same device and inode).
    public static func isSameFile(_ a: String, _ b: String) -> Bool {
        var first = stat()
        var second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}

/// `write(2)`, named so it does not clash with Swift's own `write`.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
    #else
        Darwin.write(descriptor, buffer, count)
    #endif
}
