import Foundation
import TestSupport

/// Root with iproute2, on a kernel that lets us create network namespaces (a locked-down
/// container may not; the live suites then show as skipped with this reason, not as passed).
/// Checked once for every suite that builds namespaces.
let canUseNamespaces: Bool = {
    guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") else { return false }
    let probe = "dsprobe\(getpid())"
    guard let r = try? runProcess("/usr/sbin/ip", ["netns", "add", probe]), r.status == 0 else { return false }
    _ = try? runProcess("/usr/sbin/ip", ["netns", "del", probe])
    return true
}()

/// Kills whatever still runs in each namespace, then deletes it (which removes the veth
/// ends inside): the live suites' teardown.
func deleteNamespaces(_ names: [String]) {
    for ns in names {
        if let pids = try? runProcess("/usr/sbin/ip", ["netns", "pids", ns]) {
            for p in pids.lines { kill(pid_t(p) ?? 0, SIGKILL) }
        }
        _ = try? runProcess("/usr/sbin/ip", ["netns", "del", ns])
    }
}
