import CTestHooks
import Foundation

/// Conditions of tests that need something of the machine (a library, a
/// file system): each `false` counts a test skipped with its reason, which
/// the run's closing line reports, so that no test passes by returning
/// early without asserting.
public enum TestGate {
    /// `condition`, counting a skip `reason` ("without libdeflate") when it
    /// does not hold.
    public static func holds(_ condition: Bool, else reason: String) -> Bool {
        if !condition { ck_test_skipped(reason) }
        return condition
    }

    /// Whether `/proc` gives a process's peak memory (Linux), which the
    /// memory tests read.
    public static var procStatus: Bool {
        holds(
            FileManager.default.fileExists(atPath: "/proc/self/status"),
            else: "without /proc (peak memory is read from /proc/PID/status)")
    }
}
