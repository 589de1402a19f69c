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

@Suite struct WorkerPoolTests {
    @Test func resultsComeInSubmissionOrderWhetherAThreadOrTheCallerRanTheJob() {
        let pool = WorkerPool(workers: [Doubler(), Doubler()])
        var local = Doubler()
        for n in 0..<200 {
            if n % 3 == 0 { pool.run(Tracked(n), with: &local) } else { pool.submit(Tracked(n)) }
        }
        var got: [Int] = []
        while let r = pool.next(wait: true) { got.append(r.0) }
        #expect(got == (0..<200).map { $0 * 2 })
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
