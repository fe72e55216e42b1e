import Foundation

/// How a manifest's paths are read: resolved against the manifest's folder
/// and cleaned lexically, as ``Batch`` reads, checks and reports them, and
/// as ``BatchMerge`` checks them.
public enum ManifestPath {
    /// A manifest's path: a relative one resolved against the manifest's
    /// folder `base` (none when empty), then cleaned (``clean(_:)``).
    public static func resolve(_ path: String, base: String) -> String {
        clean(path.hasPrefix("/") || base.isEmpty ? path : base + "/" + path)
    }

    /// `path` cleaned lexically, as Go's `filepath.Clean` and Python's
    /// `os.path.normpath` clean it: repeated slashes become one, `.` parts
    /// go, and each `name/..` pair goes (`a/./b/../c.png` is `a/c.png`).
    /// The file system is not asked, so a symbolic link named before a `..`
    /// is not followed (``BatchOptions/root`` checks where paths really
    /// lead).
    public static func clean(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".":
                continue
            case "..":
                if let last = parts.last, last != ".." {
                    parts.removeLast()
                } else if !absolute {
                    parts.append(part)
                }
            default:
                parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}
