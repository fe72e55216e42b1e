#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The most resident memory this process has held, in bytes, or `nil` where
/// it cannot be told: Linux's VmHWM (/proc/self/status), the process's own
/// high-water mark, or getrusage's ru_maxrss on Apple platforms. (On Linux
/// ru_maxrss also counts the parent's memory when the process was started
/// by vfork, as posix_spawn does; VmHWM does not.)
func peakResidentBytes() -> Int? {
    #if os(Linux)
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0 {
            guard let line else { break }
            let text = String(cString: line)
            guard text.hasPrefix("VmHWM:") else { continue }
            let digits = text.dropFirst(6).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    #elseif canImport(Darwin)
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return Int(usage.ru_maxrss)
    #else
        return nil
    #endif
}
