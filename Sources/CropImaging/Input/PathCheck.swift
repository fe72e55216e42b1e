/// The checks every path given to CropKit passes before anything else is
/// done with it: an input's, an output's, a report's, a manifest line's.
///
/// A path holding a NUL byte cannot name a file (the system's calls end a
/// name at its first NUL), so passing it on would open or write the name
/// cut short, a file nobody named: it is refused before any other check.
public enum PathCheck {
    /// Why `path` cannot name a file, or `nil` when it can.
    public static func problem(_ path: String) -> String? {
        if path.utf8.contains(0) {
            return
                "the path holds a NUL byte (\\0), which no file name can; nothing was read or written for it"
        }
        return nil
    }

    /// `path` with each NUL shown as `\0`, for messages and reports.
    public static func printable(_ path: String) -> String {
        guard path.utf8.contains(0) else { return path }
        var out = ""
        for scalar in path.unicodeScalars {
            if scalar == "\0" { out += "\\0" } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
