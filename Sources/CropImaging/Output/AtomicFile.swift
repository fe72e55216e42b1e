internal import CImagingShims

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file so that a reader, or a crash at any moment, sees either the
/// old file (or none) or the complete new one: the bytes go to a temporary
/// file in the same folder, are flushed to disk, then moved into place.
///
/// On Linux the temporary has no name (`O_TMPFILE`) until it is complete: a
/// writer killed at any moment leaves nothing behind. A new file is then
/// linked into place (`linkat`, which never replaces); a replacing one is
/// linked under a temporary name and renamed over the old file at once.
///
/// Where the file system has no unnamed files (and on other systems) the
/// temporary is named `.NAME.cropkit-XXXXXX` from the start. Either way a
/// named temporary is locked (`flock`) by its writer for as long as it
/// exists; a writer killed before it could remove one leaves it unlocked,
/// and the next writer in that folder removes such leftovers: only files of
/// that naming, only when their lock can be taken (their writer is gone)
/// and they are older than a minute (so a temporary created a moment ago,
/// not yet locked, is never touched).
public enum AtomicFile {
    /// Writes `bytes` to `path`.
    ///
    /// - Parameters:
    ///   - bytes: The whole file.
    ///   - path: Where it goes; its folder must exist.
    ///   - replacing: Whether an existing file at `path` may be replaced.
    ///     Without it, an existing file is an error and is left untouched
    ///     (the final step is `link`, which fails rather than replace).
    ///   - protected: A file that must never be overwritten (the input).
    /// - Throws: ``ImagingError``, with nothing left behind.
    public static func write(
        _ bytes: [UInt8], to path: String, replacing: Bool, protecting protected: ImageInput? = nil
    ) throws(ImagingError) {
        let writer = try Writer(path: path, replacing: replacing, protecting: protected)
        try writer.write(bytes[...])
        try writer.commit()
    }

    /// The suffix of a temporary file's name before its six random characters.
    static let temporaryMarker = ".cropkit-"

    /// A file being written: bytes go to a temporary file in the target's
    /// folder; ``commit()`` flushes it and moves it into place. Dropped
    /// without a commit (an error, a throw), it removes the temporary file.
    public final class Writer: RewritableByteSink {
        /// The file's final path.
        public let path: String
        private let replacing: Bool
        /// The folder the file is written in.
        private let folder: String
        /// The output's name cut to 64 bytes, for a temporary's name.
        private let shortName: String
        /// The temporary's name, or `nil` while it has none (`O_TMPFILE`).
        private var temporary: String?
        private var descriptor: Int32
        private var committed = false
        /// Bytes written so far; how many of them are in the file, and how
        /// many of those are queued for disk.
        private var written = 0
        private var onDisk = 0
        private var flushed = 0
        /// Bytes written but not yet in the file (see ``write(_:)``).
        private var pending: [UInt8] = []

        /// Checks that `path` may be written, removes stale temporaries of
        /// earlier writers in its folder, then creates and locks the
        /// temporary file.
        ///
        /// - Parameters:
        ///   - path: The file to write; its folder must exist.
        ///   - replacing: Whether an existing file at `path` may be replaced.
        ///   - protected: The input, which is never overwritten.
        /// - Throws: ``ImagingError/outputIsInput(path:)``,
        ///   ``ImagingError/outputExists(path:)`` or
        ///   ``ImagingError/cannotWrite(path:reason:)``.
        public init(path: String, replacing: Bool, protecting protected: ImageInput? = nil)
            throws(ImagingError)
        {
            if let reason = PathCheck.problem(path) {
                throw .cannotWrite(path: PathCheck.printable(path), reason: reason)
            }
            if let protected, protected.isSameFile(as: path) {
                throw .outputIsInput(path: path)
            }
            // What is there now: only a regular file (or a link to one, whose
            // link is what is replaced) may be; its mode and owner carry over.
            var existing = stat()
            var replaced: stat?
            if lstat(path, &existing) == 0 {
                var target = existing
                if (existing.st_mode & S_IFMT) == S_IFLNK, stat(path, &target) != 0 {
                    target = existing  // a dangling link: its link is replaced
                    target.st_mode = S_IFREG | 0o644
                }
                let kind = target.st_mode & S_IFMT
                guard kind == S_IFREG else {
                    throw .outputNotAFile(path: path, kind: AtomicFile.describe(kind))
                }
                guard replacing else { throw .outputExists(path: path) }
                replaced = target
            }
            let folder: String
            if let slash = path.lastIndex(of: "/") {
                folder = slash == path.startIndex ? "/" : String(path[..<slash])
            } else {
                folder = "."
            }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            AtomicFile.removeStaleTemporaries(in: folder)
            // The temporary's name keeps at most 64 bytes of the output's, so
            // an output name near the 255-byte limit still has room for it.
            var short = ""
            for scalar in name.unicodeScalars {
                guard short.utf8.count + String(scalar).utf8.count <= 64 else { break }
                short.unicodeScalars.append(scalar)
            }
            var descriptor = ck_open_unnamed(folder, 0o666)
            var temporary: String?
            if descriptor < 0 {
                var template = Array(
                    "\(folder)/.\(short)\(AtomicFile.temporaryMarker)XXXXXX".utf8CString)
                descriptor = template.withUnsafeMutableBufferPointer { buffer in
                    buffer.baseAddress.map { mkstemp($0) } ?? -1
                }
                temporary = String(decoding: template.dropLast().map(UInt8.init), as: UTF8.self)
            }
            guard descriptor >= 0 else {
                throw .cannotWrite(
                    path: path,
                    reason:
                        "cannot create a file in '\(folder)': \(String(cString: strerror(errno)))"
                )
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            // Held until the temporary is renamed or removed: it tells a
            // later writer's sweep that this one is alive.
            _ = flock(descriptor, LOCK_EX | LOCK_NB)
            // A new file gets the mode the umask leaves of 0666, as any
            // program's would; a replaced one keeps its mode and, where
            // permitted, its owner.
            if let replaced {
                fchmod(descriptor, replaced.st_mode & 0o7777)
                _ = fchown(descriptor, replaced.st_uid, replaced.st_gid)
            } else {
                fchmod(descriptor, 0o666 & ~AtomicFile.processUmask)
            }
            self.path = path
            self.replacing = replacing
            self.folder = folder
            self.shortName = short
            self.descriptor = descriptor
            self.temporary = temporary
        }

        deinit {
            if !committed {
                // An unnamed temporary vanishes with its descriptor.
                if let temporary { unlink(temporary) }
                if descriptor >= 0 { close(descriptor) }
            }
        }

        /// Appends `chunk` to the temporary file. Small chunks are gathered
        /// into one system call of up to 64 KB (an animation writes a chunk
        /// a frame); they reach the file by the next large chunk,
        /// ``rewrite(at:with:)`` or ``commit()``.
        ///
        /// - Throws: ``ImagingError/cannotWrite(path:reason:)``.
        public func write(_ chunk: any ByteChunk) throws(ImagingError) {
            let count = chunk.byteCount
            written += count
            if pending.count + count > Self.gathered { try writePending() }
            if count <= Self.gathered {
                if pending.capacity < Self.gathered { pending.reserveCapacity(Self.gathered) }
                chunk.withChunkBytes { pending.append(contentsOf: $0) }
                return
            }
            var failure: String?
            chunk.withChunkBytes { raw in failure = writeAll(raw) }
            if let failure { throw .cannotWrite(path: path, reason: failure) }
            onDisk += count
            startWriteback()
        }

        /// The most bytes gathered before they are written.
        private static let gathered = 64 << 10

        /// Writes the gathered bytes.
        private func writePending() throws(ImagingError) {
            guard !pending.isEmpty else { return }
            let failure = pending.withUnsafeBytes { writeAll($0) }
            if let failure { throw .cannotWrite(path: path, reason: failure) }
            onDisk += pending.count
            pending.removeAll(keepingCapacity: true)
            startWriteback()
        }

        /// `write(2)` until every byte of `raw` is written; why not, or nil.
        private func writeAll(_ raw: UnsafeRawBufferPointer) -> String? {
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                let done = systemWrite(descriptor, base + offset, raw.count - offset)
                if done < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += done
            }
            return nil
        }

        /// Starts the disk write of every full megabyte now, so the fsync
        /// in commit() waits for less.
        private func startWriteback() {
            let end = onDisk - onDisk % (1 << 20)
            guard end > flushed else { return }
            ck_start_writeback(descriptor, Int64(flushed), Int64(end - flushed))
            flushed = end
        }

        /// Writes `bytes` over those at `offset` of the temporary file
        /// (`pwrite`), which must all have been written already.
        ///
        /// - Throws: ``ImagingError/cannotWrite(path:reason:)``.
        public func rewrite(at offset: Int, with bytes: [UInt8]) throws(ImagingError) {
            precondition(offset >= 0 && offset + bytes.count <= written, "written already")
            try writePending()
            var done = 0
            while done < bytes.count {
                let count = bytes.withUnsafeBytes { raw -> Int in
                    guard let base = raw.baseAddress else { return 0 }
                    return pwrite(
                        descriptor, base + done, bytes.count - done, off_t(offset + done))
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
                }
                done += count
            }
        }

        /// Flushes the file to disk and moves it into place (while still
        /// holding its lock, so no sweep can take it in between).
        ///
        /// - Throws: ``ImagingError``; the temporary is then removed.
        public func commit() throws(ImagingError) {
            try writePending()
            guard fsync(descriptor) == 0 else {
                throw .cannotWrite(
                    path: path, reason: "cannot flush to disk: \(String(cString: strerror(errno)))")
            }
            if temporary == nil && !replacing {
                // An unnamed file takes its name at once, never replacing.
                if ck_link_unnamed(descriptor, path) != 0 {
                    let code = errno
                    if code == EEXIST { throw .outputExists(path: path) }
                    throw .cannotWrite(path: path, reason: String(cString: strerror(code)))
                }
            } else {
                let named = try temporaryName()
                if replacing {
                    guard rename(named, path) == 0 else {
                        throw .cannotWrite(
                            path: path,
                            reason:
                                "cannot move the new file into place: \(String(cString: strerror(errno)))"
                        )
                    }
                } else if link(named, path) != 0 {
                    let code = errno
                    if code == EEXIST { throw .outputExists(path: path) }
                    throw .cannotWrite(path: path, reason: String(cString: strerror(code)))
                } else {
                    unlink(named)
                }
            }
            committed = true
            close(descriptor)
            descriptor = -1
        }

        /// The temporary's name, giving an unnamed one a fresh name of
        /// CropKit's temporary naming first (the moment before it is renamed
        /// over the old file; its lock still held).
        private func temporaryName() throws(ImagingError) -> String {
            if let temporary { return temporary }
            let letters = Array(
                "abcdefghijklmnopqrstuvwxyz" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            for _ in 0..<16 {
                let suffix = String((0..<6).map { _ in letters[Int.random(in: 0..<letters.count)] })
                let candidate = "\(folder)/.\(shortName)\(AtomicFile.temporaryMarker)\(suffix)"
                if ck_link_unnamed(descriptor, candidate) == 0 {
                    temporary = candidate
                    return candidate
                }
                guard errno == EEXIST else { break }
            }
            let reason = String(cString: strerror(errno))
            throw .cannotWrite(
                path: path, reason: "cannot name the new file in '\(folder)': \(reason)")
        }
    }

    /// Removes temporaries of this naming in `folder` whose writer is gone:
    /// their lock can be taken, and they are older than a minute.
    ///
    /// - Returns: The names removed.
    @discardableResult
    static func removeStaleTemporaries(in folder: String, olderThan seconds: Int = 60) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var removed: [String] = []
        let now = time(nil)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard isTemporaryName(name) else { continue }
            let path = folder + "/" + name
            let candidate = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard candidate >= 0 else { continue }
            defer { close(candidate) }
            var info = stat()
            guard fstat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                Int(now) - modificationSeconds(info) >= seconds,
                flock(candidate, LOCK_EX | LOCK_NB) == 0
            else { continue }
            if unlink(path) == 0 { removed.append(name) }
        }
        return removed
    }

    /// The process's umask, read once. Linux tells it in /proc/self/status;
    /// elsewhere it is read by setting it and back, which is done once only,
    /// since other threads may be creating files meanwhile.
    static let processUmask: mode_t = {
        if let status = fopen("/proc/self/status", "r") {
            defer { fclose(status) }
            var line = [CChar](repeating: 0, count: 256)
            while fgets(&line, Int32(line.count), status) != nil {
                let text = String(
                    decoding: line.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) },
                    as: UTF8.self)
                if text.hasPrefix("Umask:"),
                    let mask = mode_t(text.dropFirst(6).trimmingWhitespace(), radix: 8)
                {
                    return mask
                }
            }
        }
        let mask = umask(0o022)
        umask(mask)
        return mask
    }()

    /// "folder", "character device", ... for a file type of `st_mode`.
    static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: "folder"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        case S_IFIFO: "pipe"
        case S_IFSOCK: "socket"
        default: "special file"
        }
    }

    /// Whether `name` is `.NAME.cropkit-XXXXXX`, as a writer names its temporary.
    static func isTemporaryName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let marker = Array(temporaryMarker.utf8)
        // "." + at least one byte of NAME + marker + six characters.
        guard bytes.count >= 2 + marker.count + 6, bytes[0] == UInt8(ascii: ".") else {
            return false
        }
        let start = bytes.count - 6 - marker.count
        return bytes[start..<start + marker.count].elementsEqual(marker)
    }

    /// Whether two paths name the same existing file (same device and inode).
    public static func isSameFile(_ a: String, _ b: String) -> Bool {
        var first = stat()
        var second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and line breaks.
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}

/// A file's modification time in whole seconds.
private func modificationSeconds(_ info: stat) -> Int {
    #if canImport(Darwin)
        Int(info.st_mtimespec.tv_sec)
    #else
        Int(info.st_mtim.tv_sec)
    #endif
}

/// `write(2)`, named so it does not clash with Swift's own `write`.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
    #else
        Darwin.write(descriptor, buffer, count)
    #endif
}
