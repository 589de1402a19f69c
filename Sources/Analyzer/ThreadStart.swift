import Glibc

/// Starts a POSIX thread that runs `body`: the one place where a Swift closure crosses
/// `pthread_create`'s untyped context pointer. The closure is retained for the new thread,
/// which takes ownership of it; if the thread cannot be started the retain is given back.
///
/// Returns the thread (to join, or to detach) or nil when it could not be started.
public func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
    let box = ThreadBody(body)
    let context = Unmanaged.passRetained(box).toOpaque()
    var tid = pthread_t()
    let rc = pthread_create(
        &tid, nil,
        { raw in
            guard let raw else { return nil }
            let body = Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue()
            body.run()
            return nil
        }, context)
    guard rc == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        return nil
    }
    return tid
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
