import CPcap
import Glibc

/// A capture that is not root but holds capabilities (systemd's `AmbientCapabilities=`, a
/// binary given them with `setcap`): once its handles are open it needs none of them, and it
/// decodes hostile packets, so it gives them all up, as it drops root when started as root.
enum Capabilities {
    /// The capability sets of thread `task` of this process (`/proc/self/task/TASK/status`;
    /// `self`: the calling thread's process), or nil when they cannot be read.
    static func sets(task: String? = nil) -> [String: UInt64]? {
        let path = task.map { "/proc/self/task/\($0)/status" } ?? "/proc/thread-self/status"
        guard let text = readFile(path, limit: 1 << 16) else { return nil }
        var out: [String: UInt64] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("Cap") {
            let parts = line.split(whereSeparator: { $0 == ":" || $0 == "\t" || $0 == " " })
            guard parts.count == 2, let v = UInt64(parts[1], radix: 16) else { continue }
            out[String(parts[0])] = v
        }
        return out.isEmpty ? nil : out
    }

    /// Whether the calling thread holds any capability it could use (permitted, effective or
    /// ambient; the bounding set only limits what could be gained, which nothing here can).
    static func held(task: String? = nil) -> Bool {
        guard let s = sets(task: task) else { return true }
        return (s["CapPrm"] ?? 1) | (s["CapEff"] ?? 1) | (s["CapAmb"] ?? 1) != 0
    }

    /// Gives up every capability of the calling thread; false (with the reason said) when some
    /// remain.
    static func dropAll() -> Bool {
        guard discoscope_drop_capabilities() == 0 else {
            Frontend.warn("cannot give up the capabilities: \(String(cString: strerror(errno)))")
            return false
        }
        guard !held() else {
            Frontend.warn("capabilities remain after giving them up")
            return false
        }
        return true
    }
}
