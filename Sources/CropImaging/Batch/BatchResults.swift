import Foundation

/// A ``Batch``'s results as an `AsyncSequence`, in line order
/// (``Batch/results()``).
///
/// The batch starts when the sequence is first iterated, on threads of its
/// own (its crops block a thread each, so they do not run on the
/// concurrency pool). A slow consumer slows the batch: at most
/// ``bufferedResults`` results wait to be taken. Cancelling the iterating
/// task, or dropping the iterator, stops it: no line is begun after that,
/// the report is not written, and `next()` throws `CancellationError`.
/// A ``BatchError`` that stops the batch is thrown by `next()`.
public struct BatchResults: AsyncSequence, Sendable {
    /// One line's result.
    public typealias Element = BatchLineResult

    /// The results that may wait to be taken before the batch waits.
    public static let bufferedResults = 64

    let batch: Batch

    /// An iterator that starts the batch on its first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(owner: BatchRunOwner(channel: BatchChannel(batch: batch)))
    }

    /// Hands out the results; dropping it stops the batch.
    public struct Iterator: AsyncIteratorProtocol {
        let owner: BatchRunOwner

        /// The next line's result, `nil` after the last.
        ///
        /// - Throws: ``BatchError`` when the batch stopped (the manifest
        ///   was refused, the report could not be written), and
        ///   `CancellationError` when the task was cancelled.
        public mutating func next() async throws -> BatchLineResult? {
            try await owner.channel.next()
        }
    }
}

/// Held by the iterator alone: when it goes, the batch is stopped.
final class BatchRunOwner: Sendable {
    let channel: BatchChannel

    init(channel: BatchChannel) { self.channel = channel }

    deinit { channel.cancel() }
}

/// The results between the batch's threads and the iterating task: a
/// bounded buffer, the one task waiting for a result, and the end.
final class BatchChannel: @unchecked Sendable {
    private let condition = NSCondition()
    private let batch: Batch
    private var started = false
    private var buffer: [BatchLineResult] = []
    private var waiter: CheckedContinuation<BatchLineResult?, any Error>?
    /// Whether the batch has ended, and the error it ended with (thrown
    /// once).
    private var ended = false
    private var endError: (any Error)?
    let cancellation = BatchCancellation()

    init(batch: Batch) { self.batch = batch }

    /// Starts the batch on a thread of its own, once.
    private func startIfNeeded() {
        condition.lock()
        defer { condition.unlock() }
        guard !started else { return }
        started = true
        let thread = Thread { [self] in
            do throws(BatchError) {
                try batch.run(cancellation: cancellation) { push($0) }
                finish(nil)
            } catch {
                finish(error)
            }
        }
        // A crop may run on it (the first of each chunk's jobs).
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Called by the batch, in line order: waits while the buffer is full.
    private func push(_ result: BatchLineResult) {
        condition.lock()
        while buffer.count >= BatchResults.bufferedResults && waiter == nil
            && !cancellation.isCancelled
        {
            condition.wait()
        }
        if let waiter {
            self.waiter = nil
            condition.unlock()
            waiter.resume(returning: result)
            return
        }
        if !cancellation.isCancelled { buffer.append(result) }
        condition.unlock()
    }

    private func finish(_ error: BatchError?) {
        var thrown: (any Error)? = error
        if case .cancelled? = error { thrown = CancellationError() }
        condition.lock()
        ended = true
        let waiter = self.waiter
        self.waiter = nil
        if waiter == nil { endError = thrown }
        condition.unlock()
        if let waiter {
            if let thrown { waiter.resume(throwing: thrown) } else { waiter.resume(returning: nil) }
        }
    }

    /// Stops the batch and wakes whatever waits.
    func cancel() {
        cancellation.cancel()
        condition.lock()
        let waiter = self.waiter
        self.waiter = nil
        condition.broadcast()
        condition.unlock()
        waiter?.resume(throwing: CancellationError())
    }

    func next() async throws -> BatchLineResult? {
        startIfNeeded()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                condition.lock()
                if !buffer.isEmpty {
                    let result = buffer.removeFirst()
                    condition.signal()
                    condition.unlock()
                    continuation.resume(returning: result)
                } else if ended {
                    // The error is thrown once; after it, the end.
                    let error = endError
                    endError = nil
                    condition.unlock()
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: nil)
                    }
                } else if cancellation.isCancelled {
                    condition.unlock()
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiter = continuation
                    condition.unlock()
                }
            }
        } onCancel: {
            cancel()
        }
    }
}
