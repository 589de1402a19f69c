import ArgumentParser
import Glibc

/// Keeps an output path from destroying an input: a report, packet file or baseline written
/// onto a capture being read would truncate it. Files are compared by identity (device and
/// inode), so another spelling of the path, a symbolic link or a hard link to an input is
/// caught too. Checked before any output is opened.
enum OutputGuard {
    /// The file `path` names (following symbolic links); nil when there is none yet.
    private static func identity(_ path: String) -> (dev: UInt, ino: UInt)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (UInt(st.st_dev), UInt(st.st_ino))
    }

    /// The file on standard input, when it is a regular file (`- < file.pcap`).
    private static func standardInputIdentity() -> (dev: UInt, ino: UInt)? {
        var st = stat()
        guard fstat(0, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (UInt(st.st_dev), UInt(st.st_ino))
    }

    /// Why output `path` (given with `flag`) cannot be written: it is one of `inputs` (`-`:
    /// standard input). Nil when it is none of them, or does not exist yet.
    static func problem(output path: String, flag: String, inputs: [String]) -> String? {
        guard path != "-", let out = identity(path) else { return nil }
        for input in inputs {
            let id = input == "-" ? standardInputIdentity() : identity(input)
            guard let id, id.dev == out.dev, id.ino == out.ino else { continue }
            let which = input == "-" ? "the capture read from standard input" : "the input capture \(input)"
            let same = input == path || input == "-" ? "" : " (the same file by another path or link)"
            return
                "\(flag) \(path): refused: it is \(which)\(same), and writing there would destroy it; give another path"
        }
        return nil
    }

    /// The first problem among `outputs` (flag, path) against `inputs`, or between two
    /// outputs that name the same file (one would overwrite the other).
    static func problem(outputs: [(flag: String, path: String?)], inputs: [String]) -> String? {
        for (flag, path) in outputs {
            if let path, let p = problem(output: path, flag: flag, inputs: inputs) { return p }
        }
        let given = outputs.compactMap { o in o.path.map { (o.flag, $0) } }.filter { $0.1 != "-" }
        for (k, a) in given.enumerated() {
            for b in given[(k + 1)...] {
                let same: Bool
                if let x = identity(a.1), let y = identity(b.1) {
                    same = x.dev == y.dev && x.ino == y.ino
                } else {
                    same = a.1 == b.1
                }
                if same { return "\(a.0) \(a.1) and \(b.0) \(b.1) name the same file: give each output its own path" }
            }
        }
        return nil
    }
}

/// `-o PATH` of `inventory`, `diff` and `explain`: a usage error (said, exit 2) when PATH is
/// one of the inputs.
func refuseOutputOntoInput(_ output: String?, inputs: [String]) throws {
    guard let output, let problem = OutputGuard.problem(output: output, flag: "-o", inputs: inputs) else { return }
    Frontend.warn(problem)
    throw ExitCode(2)
}
