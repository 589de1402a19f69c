import Glibc

/// Starts a POSIX thread that runs `body`: the one place where a Swift closure crosses
/// `pthread_create`'s untyped context pointer. The closure is retained for the new thread,
/// which takes ownership of it; if the thread cannot be started the retain is given back.
///
/// `name` (at most 15 bytes) is what `top -H`, `ps -L` and `perf` show for the thread.
///
/// Returns the thread (to join, or to detach) or nil when it could not be started.
public func startThread(named name: String? = nil, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
    let box = ThreadBody {
        if let name { nameThisThread(name) }
        body()
    }
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

/// Names the calling thread through `/proc/thread-self/comm` (Glibc's module does not export
/// `pthread_setname_np`); a name that cannot be set is left as it was.
private func nameThisThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
