/// Work done on a pool thread: each thread owns one worker value (its caches), so workers
/// share nothing but the jobs and results passed through the pool.
package protocol BatchWorker: Sendable {
    associatedtype Job: Sendable
    associatedtype Output: Sendable
    mutating func process(_ job: consuming Job) -> Output
}

/// Threads that process jobs and hand the results back in submission order, with an
/// optional in-order step over each result (the driver's `WorkerPool`). The pipeline starts
/// no thread itself: without a pool, it processes every batch on the calling thread.
package protocol BatchPool<Worker>: AnyObject, Sendable {
    associatedtype Worker: BatchWorker
    /// Whether any thread started (if none did, the caller processes jobs itself).
    var isRunning: Bool { get }
    /// Jobs submitted and not yet taken back with `next`.
    var inFlight: Int { get }
    /// Jobs submitted and not yet taken by a thread.
    var queued: Int { get }
    /// Takes the oldest queued job, if any, and processes it on the calling thread with
    /// `worker`; false when none is queued.
    func runQueued(with worker: inout Worker) -> Bool
    func submit(_ job: consuming Worker.Job)
    /// The result of the oldest job not yet taken; waits for it when `wait`. Nil when
    /// nothing is in flight (or, without `wait`, when it is not ready).
    func next(wait: Bool) -> Worker.Output?
    func shutdown()
}

/// Makes the pool of a run from its workers and its in-order step; nil, or a pool that
/// could start no thread, leaves the run on the calling thread.
package typealias BatchPoolMaker =
    @Sendable ([MessageWorker], @escaping @Sendable (inout BatchOutput) -> Void) -> (any BatchPool<MessageWorker>)?
