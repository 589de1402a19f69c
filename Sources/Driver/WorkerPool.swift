import Analyzer
import Glibc

/// A fixed set of threads that process jobs and hand the results back in submission order.
/// The submitting thread bounds the jobs in flight (`inFlight`), so memory stays bounded
/// however fast the input arrives.
///
/// An optional in-order step runs over each result in submission order before it is handed
/// back, on a thread of its own (the ordering thread): no other thread runs it, and the
/// submitting thread is free to read meanwhile, and what the step allocates stays in one
/// thread's allocator arena (Benchmarks/README.md, "Fourth round").
///
/// Invariant: every worker, a thread's or the caller's (`runQueued`), processes the jobs it
/// takes in submission order, because the only way to take a job is to take the oldest
/// queued one. Workers whose state affects their output (the text renderer's interop notes)
/// rely on it.
package final class WorkerPool<W: BatchWorker>: BatchPool, @unchecked Sendable {
    // Heap-allocated: pthread objects must not move (a stored property's address is not stable).
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let workReady = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let resultReady = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let processedReady = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Jobs in submission order; a thread takes its job out of the queue (the slot is left
    /// nil), so the queue holds no job once it is taken: nothing stays alive in it until the
    /// taken slots are dropped in bulk.
    private var jobs: [(seq: Int, job: W.Job?)] = []
    private var jobHead = 0
    /// Results processed and waiting for the in-order step.
    private var processed: [Int: W.Output] = [:]
    /// Results ready for `next`.
    private var results: [Int: W.Output] = [:]
    private let inOrder: (@Sendable (inout W.Output) -> Void)?
    /// The next result for the in-order step.
    private var ordered = 0
    private var submitted = 0
    private var delivered = 0
    private var stopping = false
    private var threads: [pthread_t] = []

    package init(workers: [W], inOrder: (@Sendable (inout W.Output) -> Void)? = nil) {
        self.inOrder = inOrder
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(workReady, nil)
        pthread_cond_init(resultReady, nil)
        pthread_cond_init(processedReady, nil)
        for w in workers {
            if let tid = startThread(named: "ds-worker", { [unowned self] in self.loop(w) }) { threads.append(tid) }
        }
        if inOrder != nil, !threads.isEmpty {
            // Without its ordering thread no result would ever be handed back: then no thread
            // runs at all, and the caller processes jobs itself.
            guard let tid = startThread(named: "ds-ordering", { [unowned self] in self.orderLoop() }) else {
                shutdown()
                return
            }
            threads.append(tid)
        }
    }

    /// Whether any thread started (if none did, the caller processes jobs itself).
    package var isRunning: Bool { !threads.isEmpty }

    /// Jobs submitted and not yet taken back with `next`.
    package var inFlight: Int { submitted - delivered }

    /// Jobs submitted and not yet taken by a thread.
    package var queued: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return jobs.count - jobHead
    }

    /// Takes the oldest queued job, if any, and processes it on the calling thread with
    /// `worker` (its result is taken back with `next` like the others'). False when none
    /// is queued.
    package func runQueued(with worker: inout W) -> Bool {
        pthread_mutex_lock(mutex)
        let taken = takeQueued()
        pthread_mutex_unlock(mutex)
        guard let (seq, job) = taken else { return false }
        deliver(worker.process(job), seq)
        return true
    }

    package func submit(_ job: consuming W.Job) {
        pthread_mutex_lock(mutex)
        jobs.append((submitted, job))
        submitted += 1
        pthread_cond_signal(workReady)
        pthread_mutex_unlock(mutex)
    }

    /// The result of the oldest job not yet taken; waits for it when `wait`, else nil when
    /// it is not ready. Nil when nothing is in flight.
    package func next(wait: Bool) -> W.Output? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            guard delivered < submitted else { return nil }
            if let r = results.removeValue(forKey: delivered) {
                delivered += 1
                return r
            }
            if !wait { return nil }
            pthread_cond_wait(resultReady, mutex)
        }
    }

    private func loop(_ initial: W) {
        var worker = initial
        while true {
            pthread_mutex_lock(mutex)
            while jobHead == jobs.count && !stopping { pthread_cond_wait(workReady, mutex) }
            if jobHead == jobs.count {
                pthread_mutex_unlock(mutex)
                return
            }
            let taken = takeQueued()
            pthread_mutex_unlock(mutex)
            guard let (seq, job) = taken else { continue }
            deliver(worker.process(job), seq)
        }
    }

    /// Stores the result of job `seq`: for `next` (waking a caller waiting for it), or with an
    /// in-order step for the ordering thread (waking it when this is the result it waits for).
    private func deliver(_ out: consuming W.Output, _ seq: Int) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard inOrder != nil else {
            results[seq] = out
            pthread_cond_broadcast(resultReady)
            return
        }
        processed[seq] = out
        if seq == ordered { pthread_cond_signal(processedReady) }
    }

    /// The ordering thread: runs the in-order step over each result as soon as it and all
    /// before it have been processed, until the pool stops.
    private func orderLoop() {
        guard let inOrder else { return }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if var r = processed.removeValue(forKey: ordered) {
                pthread_mutex_unlock(mutex)
                inOrder(&r)
                pthread_mutex_lock(mutex)
                results[ordered] = r
                ordered += 1
                pthread_cond_broadcast(resultReady)
                continue
            }
            if stopping { return }
            pthread_cond_wait(processedReady, mutex)
        }
    }

    /// The oldest queued job with its sequence number, taken out of the queue (the mutex held).
    private func takeQueued() -> (seq: Int, job: W.Job)? {
        guard jobHead < jobs.count else { return nil }
        let seq = jobs[jobHead].seq
        let job = jobs[jobHead].job.take()
        jobHead += 1
        if jobHead > 64 && jobHead * 2 > jobs.count {
            jobs.removeFirst(jobHead)
            jobHead = 0
        }
        return job.map { (seq, $0) }
    }

    /// Lets the threads finish the queued jobs and exit; results not taken are dropped.
    package func shutdown() {
        pthread_mutex_lock(mutex)
        stopping = true
        pthread_cond_broadcast(workReady)
        pthread_cond_broadcast(processedReady)
        pthread_mutex_unlock(mutex)
        for t in threads { pthread_join(t, nil) }
        threads.removeAll()
    }

    deinit {
        shutdown()
        pthread_cond_destroy(workReady)
        pthread_cond_destroy(resultReady)
        pthread_cond_destroy(processedReady)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        workReady.deallocate()
        resultReady.deallocate()
        processedReady.deallocate()
    }
}
