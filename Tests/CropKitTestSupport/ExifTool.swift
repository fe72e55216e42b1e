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

    /// Why a test that needs it is skipped.
    public static let absent = "needs exiftool (Debian: libimage-exiftool-perl)"

    /// Every tag exiftool reads in the file at `path`, with its family 0
    /// and 1 groups and numeric values (`-j -a -G0:1 -n`): "EXIF:IFD0:Orientation"
    /// to 1. Empty without exiftool.
    public static func tags(_ path: String) throws -> [String: Any] {
        guard let tool = Self.path else { return [:] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-j", "-a", "-G0:1", "-n", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (try JSONSerialization.jsonObject(with: data) as? [[String: Any]])?.first ?? [:]
    }
}
