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
    public static func tags(_ path: String, groups: String = "-G0:1", numeric: Bool = true) throws
        -> [String: Any]
    {
        guard let tool = Self.path else { return [:] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-j", "-a", groups] + (numeric ? ["-n"] : ["-u"]) + [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first ?? [:]
    }
}
