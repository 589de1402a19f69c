import Analyzer
import Capture
import NetLayers
import Reporting
import WireFormat

/// The threads a run's batches are processed on (`Analysis(…, makePool: workerThreads)`): a
/// `WorkerPool` of the given workers, with the mDNS session rules as its in-order step (see
/// `BatchScheduler`).
package let workerThreads: BatchPoolMaker = { workers, inOrder in WorkerPool(workers: workers, inOrder: inOrder) }

extension Analysis {
    /// Reads one opened source to its end. A read error (damaged file) ends this source;
    /// everything before it has been analysed, and the error is returned for the summary and
    /// the exit status.
    @discardableResult
    public func run(_ handle: PcapHandle, fileIndex: Int, shouldStop: () -> Bool = { false }) -> CaptureError? {
        beginInput(handle.input, fileIndex: fileIndex)
        defer { endInput() }
        let framesBefore = summary.framesRead
        let unsupportedBefore = unsupportedFrames
        // Live capture: once a second, the session rules conclude what became certain.
        var nextConclusion = handle.isLive ? PcapHandle.clockNow().seconds + 1 : Int64.max
        do {
            while !shouldStop() {
                let step = try handle.next(whenIdle: caughtUp) { frame, bytes in
                    self.frame(frame, bytes)
                }
                if case .end = step { break }
                if nextConclusion != Int64.max {
                    let now = PcapHandle.clockNow()
                    if now.seconds >= nextConclusion {
                        nextConclusion = now.seconds + 1
                        conclude(by: now)
                    }
                }
            }
        } catch {
            inputError(error.description)
            return error
        }
        // A source none of whose frames could be decoded was not analysed at all: that is an
        // input error, not a clean result.
        let frames = summary.framesRead - framesBefore
        if frames > 0 && unsupportedFrames - unsupportedBefore == frames {
            let error = CaptureError(
                input: handle.input,
                reason:
                    "nothing could be analysed: all \(frames) frame(s) have link type \(handle.linkType) (\(handle.linkType.rawValue)), which DiscoScope does not decode"
            )
            inputError(error.description)
            return error
        }
        return nil
    }

    /// Records an input that could not be opened at all.
    public func inputFailed(_ error: CaptureError) {
        inputError(error.description)
    }
}
