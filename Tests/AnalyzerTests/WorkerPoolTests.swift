import Driver
import Glibc
import Testing

@testable import Analyzer

/// A job that says when it is freed.
final class Tracked: Sendable {
    let n: Int
    init(_ n: Int) { self.n = n }
}

/// Doubles the job's number and hands the job back with the result (as `MessageWorker` hands
/// back its batch).
struct Doubler: BatchWorker {
    mutating func process(_ job: Tracked) -> (Int, Tracked) { (job.n * 2, job) }
}

/// Which worker processed which job, in the order each did.
final class OrderLog: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var entries: [(worker: Int, job: Int)] = []
    init() { pthread_mutex_init(&lock, nil) }
    func add(worker: Int, job: Int) {
        pthread_mutex_lock(&lock)
        entries.append((worker, job))
        pthread_mutex_unlock(&lock)
    }
    func byWorker() -> [Int: [Int]] {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return Dictionary(grouping: entries, by: \.worker).mapValues { $0.map(\.job) }
    }
}

/// Records the jobs it processes, taking `delay` microseconds over each.
struct Recorder: BatchWorker {
    let id: Int
    let log: OrderLog
    var delay: UInt32 = 0
    mutating func process(_ job: Tracked) -> Int {
        log.add(worker: id, job: job.n)
        if delay > 0 { usleep(delay) }
        return job.n
    }
}

/// What the pool's in-order step saw: the results in the order it got them, and whether two
/// threads were ever inside it at once.
final class StepLog: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var inside = 0
    private(set) var overlapped = false
    private(set) var seen: [Int] = []
    init() { pthread_mutex_init(&lock, nil) }
    /// Enters the step, takes `delay` microseconds (outside the log's lock, so that another
    /// thread could enter meanwhile if the pool let it), and leaves.
    func step(_ n: Int, delay: UInt32) {
        pthread_mutex_lock(&lock)
        inside += 1
        if inside > 1 { overlapped = true }
        seen.append(n)
        pthread_mutex_unlock(&lock)
        if delay > 0 { usleep(delay) }
        pthread_mutex_lock(&lock)
        inside -= 1
        pthread_mutex_unlock(&lock)
    }
}

@Suite struct WorkerPoolTests {
    @Test func eachWorkerTakesItsJobsInSubmissionOrderTheCallersToo() {
        // The text renderer places a rule's interop note after the first finding its worker
        // formats: a worker that took a newer batch before an older one moved the note (and
        // made `-j 2` text differ from run to run). The threads are slow, so jobs queue up;
        // the caller takes queued ones between submissions as the reading thread does. Each
        // worker's own sequence must rise.
        let log = OrderLog()
        let pool = WorkerPool(workers: [Recorder(id: 1, log: log, delay: 200), Recorder(id: 2, log: log, delay: 200)])
        var local = Recorder(id: 0, log: log)
        for n in 0..<3000 {
            pool.submit(Tracked(n))
            if n % 2 == 0 { _ = pool.runQueued(with: &local) }
        }
        while pool.runQueued(with: &local) {}
        var got: [Int] = []
        while let r = pool.next(wait: true) { got.append(r) }
        #expect(got == Array(0..<3000))
        let byWorker = log.byWorker()
        #expect(byWorker.values.reduce(0) { $0 + $1.count } == 3000)
        #expect(byWorker[0, default: []].count > 0, "the caller took no queued job")
        for (id, seqs) in byWorker {
            let backwards = zip(seqs, seqs.dropFirst()).first { $0 > $1 }
            #expect(backwards == nil, "worker \(id) took job \(backwards?.1 ?? 0) after job \(backwards?.0 ?? 0)")
        }
        pool.shutdown()
    }

    @Test func theInOrderStepSeesEveryResultOnceInSubmissionOrderOneThreadAtATime() {
        // The mDNS session rules run as the pool's in-order step: they must see every batch
        // once, in capture order, and never on two threads at once (their state is not
        // locked). Three threads with uneven delays deliver out of order; the step is slow,
        // so deliveries pile up behind it.
        let log = OrderLog()
        let steps = StepLog()
        let pool = WorkerPool(
            workers: [Recorder(id: 1, log: log, delay: 300), Recorder(id: 2, log: log, delay: 50)],
            inOrder: { steps.step($0, delay: 100) })
        var local = Recorder(id: 0, log: log)
        var got: [Int] = []
        for n in 0..<1000 {
            pool.submit(Tracked(n))
            if n % 3 == 0 { _ = pool.runQueued(with: &local) }
            while let r = pool.next(wait: false) { got.append(r) }
        }
        while pool.runQueued(with: &local) {}
        while let r = pool.next(wait: true) { got.append(r) }
        #expect(got == Array(0..<1000))
        #expect(steps.seen == Array(0..<1000), "the in-order step saw results out of order or more than once")
        #expect(!steps.overlapped, "two threads ran the in-order step at once")
        pool.shutdown()
    }

    @Test func theCallerCanTakeQueuedJobsAndEachRunsOnce() {
        // The reading thread works on queued batches instead of waiting (`runQueued`): every
        // job still runs exactly once and the results still come in submission order.
        let pool = WorkerPool(workers: [Doubler()])
        var local = Doubler()
        var stolen = 0
        for n in 0..<300 {
            pool.submit(Tracked(n))
            if n % 2 == 0, pool.runQueued(with: &local) { stolen += 1 }
        }
        while pool.runQueued(with: &local) { stolen += 1 }
        #expect(!pool.runQueued(with: &local))
        var got: [Int] = []
        while let r = pool.next(wait: true) { got.append(r.0) }
        #expect(got == (0..<300).map { $0 * 2 })
        #expect(stolen > 0)
        pool.shutdown()
    }

    @Test func theQueueKeepsNoJobOnceItIsTaken() {
        // A processed job is freed with its result, not kept until the queue's taken slots
        // are dropped in bulk (that kept dozens of batches alive).
        let pool = WorkerPool(workers: [Doubler()])
        var refs: [() -> Tracked?] = []
        for n in 0..<10 {
            let t = Tracked(n)
            refs.append { [weak t] in t }
            pool.submit(t)
        }
        var taken = 0
        while let r = pool.next(wait: true) {
            #expect(r.0 == taken * 2)
            taken += 1
        }
        #expect(taken == 10)
        // The worker thread lets go of its last job just after publishing the result: give
        // it a moment (bounded) before looking.
        for _ in 0..<200 where !refs.allSatisfy({ $0() == nil }) { usleep(10_000) }
        #expect(refs.allSatisfy { $0() == nil })
        pool.shutdown()
    }
}
