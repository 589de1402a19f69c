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
