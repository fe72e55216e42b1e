import CTestHooks
import Foundation

/// exiftool (Debian's libimage-exiftool-perl), the independent metadata
/// reader tests read outputs back with; tests that need it are disabled
/// where it is not installed.
public enum ExifTool {
    /// The installed exiftool, if any.
    public static let path: String? = ["/usr/bin/exiftool", "/usr/local/bin/exiftool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether exiftool is installed.
    public static var isInstalled: Bool { path != nil }

    /// ``isInstalled`` as the condition of a test that needs exiftool: each
    /// `false` counts a test skipped, which the run's closing line reports.
    public static var gate: Bool {
        guard isInstalled else {
            ck_test_skipped("without exiftool")
            return false
        }
        return true
    }

    /// Why a test that needs it is skipped.
    public static let absent = "needs exiftool (Debian: libimage-exiftool-perl)"

    /// Every tag exiftool reads in the file at `path`, with its groups
    /// (`groups`: "-G0:1" gives "EXIF:IFD0:Orientation", "-G1"
    /// "IFD0:Orientation") and numeric values (`-j -a -n`). Empty without
    /// exiftool.
    ///
    /// One exiftool serves the whole run (`-stay_open`): a file read
    /// through it takes 7 ms instead of the 67 ms of starting Perl and
    /// loading exiftool's modules again for each.
    public static func tags(_ path: String, groups: String = "-G0:1", numeric: Bool = true) throws
        -> [String: Any]
    {
        guard let tool = Self.path else { return [:] }
        let data = try ExifToolSession.shared.run(
            ["-j", "-a", groups] + (numeric ? ["-n"] : ["-u"]) + [path], tool: tool)
        return (try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first ?? [:]
    }
}

extension ExifTool {
    /// The binary value of `tag` in the file at `path` (`-b -TAG`: an MPF
    /// image, an embedded thumbnail), as exiftool extracts it.
    public static func binary(_ tag: String, of path: String) throws -> Data {
        guard let tool = Self.path else { return Data() }
        return try ExifToolSession.shared.run(["-b", "-\(tag)", path], tool: tool)
    }
}

extension ExifTool {
    /// The IPTC image regions of the file at `path` as exiftool reads them
    /// (`-struct`: each a dictionary with its `RegionBoundary`), numeric.
    public static func imageRegions(_ path: String) throws -> [[String: Any]] {
        guard let tool = Self.path else { return [] }
        let data = try ExifToolSession.shared.run(
            ["-j", "-struct", "-n", "-XMP-iptcExt:ImageRegion", path], tool: tool)
        let file = (try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first
        let regions = file?["ImageRegion"]
        return (regions as? [[String: Any]]) ?? (regions as? [String: Any]).map { [$0] } ?? []
    }
}

/// The run's one exiftool, started on first use with `-stay_open True -@ -`:
/// each request is its arguments a line each, then `-executeN`; its answer
/// ends at `{readyN}`. Requests from parallel tests take turns.
final class ExifToolSession: @unchecked Sendable {
    static let shared = ExifToolSession()

    /// Guards everything below.
    private let lock = NSLock()
    private var process: Process?
    private var input: FileHandle?
    private var output: FileHandle?
    private var pending = Data()
    private var requests = 0
    private var stopsAtExit = false

    /// Tells the running exiftool to end, and waits a moment for it.
    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard let process, process.isRunning, let input else { return }
        try? input.write(contentsOf: Data("-stay_open\nFalse\n".utf8))
        try? input.close()
        for _ in 0..<50 where process.isRunning { usleep(10_000) }
        if process.isRunning { process.terminate() }
    }

    /// exiftool's standard output for `arguments` (none may hold a line
    /// break), from the running exiftool, started first when there is none.
    func run(_ arguments: [String], tool: String) throws -> Data {
        precondition(!arguments.contains { $0.contains("\n") }, "an argument is a line")
        lock.lock()
        defer { lock.unlock() }
        if process?.isRunning != true { try start(tool) }
        guard let input, let output else { throw CocoaError(.fileReadUnknown) }
        requests += 1
        let marker = Data("{ready\(requests)}\n".utf8)
        try input.write(
            contentsOf: Data((arguments + ["-execute\(requests)"]).map { $0 + "\n" }.joined().utf8))
        while true {
            if let end = pending.range(of: marker) {
                let answer = pending[..<end.lowerBound]
                pending.removeSubrange(..<end.upperBound)
                return Data(answer)
            }
            let chunk = output.availableData
            guard !chunk.isEmpty else {
                // exiftool ended: the next request starts another.
                process = nil
                pending = Data()
                throw CocoaError(.fileReadUnknown)
            }
            pending.append(chunk)
        }
    }

    private func start(_ tool: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-stay_open", "True", "-@", "-"]
        let toTool = Pipe()
        let fromTool = Pipe()
        process.standardInput = toTool
        process.standardOutput = fromTool
        process.standardError = FileHandle.nullDevice
        try process.run()
        // exiftool keeps reading a -stay_open argument file past its end,
        // so it is told to stop when the test process exits (it was left
        // behind by every run).
        if !stopsAtExit {
            stopsAtExit = true
            atexit { ExifToolSession.shared.stop() }
        }
        self.process = process
        input = toTool.fileHandleForWriting
        output = fromTool.fileHandleForReading
        pending = Data()
    }
}
