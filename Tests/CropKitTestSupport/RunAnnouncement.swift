import CTestHooks
import Testing

/// The trait every CropKit suite carries: as the first suite of a run
/// starts, it prints the line that says how many tests and suites the run
/// will skip and why. Swift Testing evaluates every test's conditions while
/// it plans the run, before any test starts, so the count is final then.
public struct AnnouncesSkips: SuiteTrait, TestScoping {
    /// Once per suite, not per test: the first call prints.
    public var isRecursive: Bool { false }

    /// Prints the line (once in the run), then runs the suite.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        ck_run_begins()
        try await function()
    }
}

extension Trait where Self == AnnouncesSkips {
    /// Says, as the run's first suite starts, how many tests it will skip and why.
    public static var announcesSkips: Self { AnnouncesSkips() }
}
