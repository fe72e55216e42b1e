import Foundation

/// The `cropkit` binary built beside the test bundle, run as a process of
/// its own: for what only a real process shows (its peak memory, a kill).
public enum CropKitBinary {
    /// The binary's path, or `nil` when none was built beside the tests.
    public static var path: String? {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("cropkit").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// Runs the binary with `arguments`: its exit status, what it wrote to
    /// standard error, the seconds it took, and its peak resident memory,
    /// its VmHWM read every few milliseconds until it exits (the high water
    /// mark only grows, so only a rise in its last moments can be missed;
    /// 0 where /proc is missing). `nil` without the binary.
    public static func watch(_ arguments: [String]) throws -> (
        status: Int32, err: String, seconds: Double, peak: Int
    )? {
        guard let path else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = folderForErrors().appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let errorFile = try FileHandle(forWritingTo: errors)
        process.standardError = errorFile
        let started = Date()
        try process.run()
        var peak = 0
        let status = "/proc/\(process.processIdentifier)/status"
        while process.isRunning {
            if let text = try? String(contentsOfFile: status, encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kilobytes = Int(line.filter(\.isNumber))
            {
                peak = max(peak, kilobytes * 1024)
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        try errorFile.close()
        let said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: errors.deletingLastPathComponent())
        return (process.terminationStatus, said, seconds, peak)
    }

    /// The bytes a "the crop would hold … of memory at once" message names,
    /// read from its parts ("the decoded crop 122 MB" is rounded; the parts
    /// are summed from `--json`'s need instead when given).
    public static func statedBytes(_ message: String) -> Int? {
        guard let range = message.range(of: "would hold ") else { return nil }
        let words = message[range.upperBound...].split(separator: " ")
        guard words.count >= 2, let value = Double(words[0]) else { return nil }
        let unit: Double =
            switch words[1] {
            case "bytes": 1
            case "kB": 1e3
            case "MB": 1e6
            case "GB": 1e9
            default: 0
            }
        // Rounded in the message: up to the next unit of its last digit.
        return unit > 0 ? Int((value + 1) * unit) : nil
    }

    private static func folderForErrors() -> URL {
        (try? TestData.temporaryFolder()) ?? FileManager.default.temporaryDirectory
    }
}
