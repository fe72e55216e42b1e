import Dispatch

/// One piece of work started on another core at once, its result waited
/// for where it is needed: an animation's frames decoded and coded ahead
/// of the frame being composited (``AnimationCropper``).
final class BackgroundJob<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Written once by the work, read after `done` is signalled.
    private var result: Result<T, ImagingError>?

    /// Starts `work` on the global queue, counted in `group` (which a
    /// caller waits for before it returns, so no work outlives it).
    init(in group: DispatchGroup, _ work: @escaping @Sendable () throws(ImagingError) -> T) {
        DispatchQueue.global().async(group: group) { [self] in
            do throws(ImagingError) {
                result = .success(try work())
            } catch {
                result = .failure(error)
            }
            done.signal()
        }
    }

    /// Waits for the work to end; its result, or what it threw.
    func value() throws(ImagingError) -> T {
        done.wait()
        // A later call finds it done too.
        defer { done.signal() }
        guard let result else { preconditionFailure("the work stores a result before it signals") }
        return try result.get()
    }
}
