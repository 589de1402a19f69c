import Findings
import Reporting
import Rules

/// Scheduling, the middle of the pipeline: datagrams are gathered into batches; a batch is
/// decoded, judged by the stateless rules and formatted on a worker thread (`MessageWorker`),
/// then the session rules run over its messages in capture order on the pool's ordering
/// thread (`SessionSettler`); results come back in capture order to `emit`.
///
/// With one job, or no pool to run on (`BatchPool`: the driver's threads; the pipeline starts
/// none itself), the calling thread processes each batch itself, session rules included,
/// when it is full, when the input ends, when a live capture has caught up (`caughtUp`) and
/// when a caller drains (`drain`: conclusions, an embedder's `feed`). Each stage runs over a
/// whole batch before the next starts, as on a pool. With more jobs, the calling thread (the
/// reading thread) is one of the jobs: it processes a queued batch itself when the workers
/// are behind. Results are the same for any number of jobs.
struct BatchScheduler {
    /// The batch being filled (its buffer also holds the payloads `Intake` copied into it).
    var batch = Batch()
    /// The run's segment names (`Segments`), handed on with each batch.
    var segmentNames: [String] = [""]
    /// Batches back from the workers, emptied, for the next ones (see `Batch`).
    private var spare: [Batch] = []
    /// Per-message work: used inline with one job, copied to each pool thread otherwise.
    private var inline: MessageWorker
    private(set) var pool: (any BatchPool<MessageWorker>)? = nil
    /// Whether `pool` is set. Tested per datagram instead of `pool` itself: binding the pool
    /// retains it, an atomic update of a line the worker threads write (the pool's lock and
    /// queue).
    private let pooled: Bool
    /// The session rules, run over each batch in capture order (by the pool's ordering
    /// thread, or by this one with one job).
    let settler: SessionSettler
    private let jobs: Int
    /// Datagrams per batch: fewer hand-offs, each freeing more at once (the size was chosen
    /// by measurement: Benchmarks/README.md).
    static let batchSize = 1024
    /// Batches in flight per worker thread before the reader waits for output (with the
    /// batch, this bounds the datagrams held: 2048 per worker thread).
    static let batchesPerWorker = 2

    init(
        options: Analysis.Options, reporter: any Reporter, policy: (@Sendable (Finding) -> Finding?)?,
        makePool: BatchPoolMaker?
    ) {
        jobs = options.jobs
        settler = SessionSettler(
            options: options, renderer: reporter.makeRenderer(),
            worker: MessageWorker(options: options, policy: policy, renderer: nil), policy: policy)
        inline = MessageWorker(options: options, policy: policy, renderer: reporter.makeRenderer())
        if options.jobs > 1, let makePool {
            // The reading thread is one of the `jobs`: it processes a batch itself when the
            // pool's threads are behind.
            let workers = (1..<options.jobs).map { _ in
                MessageWorker(options: options, policy: policy, renderer: reporter.makeRenderer())
            }
            if let p = makePool(workers, { [settler] in settler.settle(&$0) }), p.isRunning { pool = p }
        }
        pooled = pool != nil
        batch.items.reserveCapacity(Self.batchSize)
    }

    /// Adds one datagram; hands on what is ready. A full batch is processed here (one job) or
    /// goes to the pool, and once per batch (not per datagram: each look takes the pool's
    /// lock, which the workers contend for) what is ready is emitted. When the workers are too
    /// far behind (bounded memory), this thread works on a batch still queued for them, and
    /// waits only when none is.
    mutating func add(_ item: WorkItem, emit: (borrowing BatchOutput) -> Void) {
        batch.items.append(item)
        guard batch.items.count >= Self.batchSize else { return }
        guard pooled else {
            processHere(emit: emit)
            return
        }
        submitBatch()
        guard let pool else { return }
        let limit = jobs * Self.batchesPerWorker
        while true {
            if var r = pool.next(wait: false) {
                emit(r)
                recycle(&r)
                continue
            }
            guard pool.inFlight > limit else { break }
            if pool.runQueued(with: &inline) { continue }
            guard var r = pool.next(wait: true) else { break }
            emit(r)
            recycle(&r)
        }
    }

    /// Hands the batch filled so far to the pool.
    mutating func submitBatch() {
        guard let pool, !batch.items.isEmpty else { return }
        // The reading thread works on a batch itself only when two were waiting before this
        // one: with one, the pool's thread ran out of work while the reading thread was busy
        // with its batch. It takes the oldest queued batch, not the one just filled: every
        // worker formats its batches in capture order (`WorkerPool`), which the text
        // renderer's interop notes rely on. When the batches in flight reach the limit, it
        // works on the queued ones too (see `add`).
        let busy = pool.queued > 1
        pool.submit(takeBatch())
        if busy { _ = pool.runQueued(with: &inline) }
    }

    /// The batch filled so far, replaced by a spare one.
    private mutating func takeBatch() -> Batch {
        var next = spare.popLast() ?? Batch()
        if next.items.capacity == 0 { next.items.reserveCapacity(Self.batchSize) }
        swap(&next, &batch)
        next.segmentNames = segmentNames
        return next
    }

    /// Keeps an emitted result's batch (`r.spent`), emptied here on the thread that allocated
    /// it, for reuse with the written chunk's buffer.
    private mutating func recycle(_ r: inout BatchOutput) {
        guard spare.count < Self.batchesPerWorker * max(1, jobs) + 1 else { return }
        var b = Batch()
        swap(&b, &r.spent)
        b.removeAll()
        swap(&b.output, &r.chunk.bytes)
        b.output.removeAll(keepingCapacity: true)
        spare.append(b)
    }

    /// Live capture with no packet waiting in the kernel: what was read is analysed and
    /// emitted now, so the output keeps up with the packets. With nothing in flight, the
    /// partial batch is processed here like one job's (no hand-off to the pool's threads for
    /// a few packets); otherwise it joins the batches in flight and all are waited for.
    /// Under load the kernel always has packets waiting, so whole batches go to the pool.
    mutating func caughtUp(emit: (borrowing BatchOutput) -> Void) {
        guard let pool, pool.inFlight > 0 else {
            // Every earlier batch has been through the in-order step and emitted: this one
            // comes next in capture order on every worker and on the session stage.
            processHere(emit: emit)
            return
        }
        drain(emit: emit)
    }

    /// Processes the batch filled so far on this thread, session rules included, and emits
    /// it: only when no batch is in flight (one job, or a pool with nothing pending).
    private mutating func processHere(emit: (borrowing BatchOutput) -> Void) {
        guard !batch.items.isEmpty else { return }
        var r = inline.process(takeBatch())
        settler.settle(&r)
        emit(r)
        recycle(&r)
    }

    /// Processes (one job) or waits for every batch not yet emitted, and emits its results.
    mutating func drain(emit: (borrowing BatchOutput) -> Void) {
        guard let pool else {
            processHere(emit: emit)
            return
        }
        submitBatch()
        while var r = pool.next(wait: true) {
            emit(r)
            recycle(&r)
        }
    }

    /// Findings made without a message to show them under (session rules concluding), made
    /// into output as a batch's are.
    mutating func conclude(_ findings: [Finding], mdnsHosts: [String: UInt64]) -> BatchOutput {
        inline.useSegmentNames(segmentNames)
        return inline.conclude(findings, mdnsHosts: mdnsHosts)
    }

    func shutdown() { pool?.shutdown() }
}
