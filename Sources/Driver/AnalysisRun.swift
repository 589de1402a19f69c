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
    /// Reads one opened source to its end: one session (an input file, a live capture, or
    /// the segments of a merged session). A read error (a damaged file) ends the source;
    /// everything before it has been analysed. Returns the source's errors, each also in the
    /// summary and told to `onInputError` as soon as it is known: the one that ended it, and
    /// those of its parts that ended early while the rest went on (a damaged file of a merged
    /// session; live, an interface of several that went down, told within the second).
    @discardableResult
    public func run(_ source: any FrameSource, fileIndex: Int, shouldStop: () -> Bool = { false }) -> [CaptureError] {
        beginInput(source.input, fileIndex: fileIndex)
        defer { endInput() }
        let framesBefore = summary.framesRead
        let unsupportedBefore = unsupportedFrames
        // A source with named segments: its own segment indices → the run's (`Segments`),
        // extended as the source names more.
        let named = !source.segmentNames.isEmpty
        var runSegments: [UInt16] = []
        // Live capture: once a second, the session rules conclude what became certain.
        var nextConclusion = source.isLive ? PcapHandle.clockNow().seconds + 1 : Int64.max
        var errors: [CaptureError] = []
        func take(_ found: [CaptureError]) {
            for e in found {
                errors.append(e)
                inputError(e.description)
                onInputError?(e.description)
            }
        }
        do {
            while !shouldStop() {
                let step = try source.next(whenIdle: caughtUp) { frame, bytes in
                    guard named else {
                        self.frame(frame, bytes)
                        return
                    }
                    let own = Int(frame.segment)
                    if own >= runSegments.count {
                        let names = source.segmentNames
                        while runSegments.count < names.count {
                            runSegments.append(segment(named: names[runSegments.count]))
                        }
                    }
                    var f = frame
                    f.segment = own < runSegments.count ? runSegments[own] : 0
                    self.frame(f, bytes)
                }
                if case .end = step { break }
                if nextConclusion != Int64.max {
                    let now = PcapHandle.clockNow()
                    if now.seconds >= nextConclusion {
                        nextConclusion = now.seconds + 1
                        conclude(by: now)
                        take(source.takeLaterErrors())
                    }
                }
            }
        } catch {
            take(source.takeLaterErrors() + [error])
        }
        take(source.takeLaterErrors())
        guard errors.isEmpty else { return errors }
        // A source none of whose frames could be decoded was not analysed at all: that is an
        // input error, not a clean result.
        let frames = summary.framesRead - framesBefore
        if frames > 0 && unsupportedFrames - unsupportedBefore == frames {
            // Its link type; of a source of several interfaces, those left undecoded.
            let types = (named ? unsupportedLinkTypes : [source.linkType]).map { "\($0) (\($0.rawValue))" }
            let error = CaptureError(
                input: source.input,
                reason:
                    "nothing could be analysed: all \(frames) frame(s) have link type \(types.joined(separator: " or ")), which DiscoScope does not decode"
            )
            take([error])
            return errors
        }
        return []
    }

    /// Records an input that could not be opened at all.
    public func inputFailed(_ error: CaptureError) {
        inputError(error.description)
    }
}
