import Foundation

/// The pipeline's one way to run a stage beside another: a dedicated
/// thread (a renderer drawing bands while the decoder fills its region, an
/// encoder draining a ring, a CRC check beside a decode), with a 1 MiB
/// stack for libjpeg's and the resampler's frames, that can be joined.
///
/// Stages hand rows to each other under an `NSCondition` of their own;
/// data-parallel work within a stage (a HEIF's tiles, a resampler's bands)
/// runs in `DispatchQueue.concurrentPerform` instead. The PNG compressor's
/// band threads are C's (`ck_stream`).
final class StageThread: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `body` on a thread of its own.
    init(_ body: @escaping @Sendable () -> Void) {
        let finished = finished
        let thread = Thread {
            body()
            finished.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Waits until the body has returned.
    func join() { finished.wait() }
}
