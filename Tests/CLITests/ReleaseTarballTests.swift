import Foundation
import TestSupport
import Testing

/// #32: `discoscope --version` names the commit the binary was built from (Plugins/BuildInfo).
@Suite struct VersionTests {
    @Test func versionNamesTheVersionAndACommitOfThisCheckout() throws {
        let r = try run(["--version"])
        let line = r.stdout.trimmingCharacters(in: .newlines)
        #expect(r.status == 0 && ReleaseTarball.isVersionLine(line), "\(line)")
        // The plugin's prebuild command runs whenever SwiftPM plans the build: always in
        // `swift test` and scripts/package.sh, but an incremental `swift build` may reuse its
        // cached plan (swiftlang/swift-package-manager#5476) and keep an earlier commit. So:
        // a commit of this checkout here; HEAD itself for the release binary (below).
        let expected = try ReleaseTarball.checkedOutCommit()
        let commit = String(line.split(separator: " ").last?.dropLast() ?? "")
        if expected == "unknown" {
            #expect(commit == "unknown", "\(line)")
        } else {
            let known = try ReleaseTarball.git(["cat-file", "-e", commit + "^{commit}"])
            #expect(known.status == 0, "\(line): not a commit of this repository")
        }
    }
}

/// #32: scripts/package.sh's tarball holds what it says, and its binary runs where no Swift
/// toolchain is: no Swift library in `ldd`, run with a scrubbed environment and inside a root
/// holding only the binary, the libraries `ldd` lists and a capture. The first release build
/// takes minutes; later ones are incremental (seconds when no source changed).
@Suite(
    .enabled(if: !ReleaseTarball.skippedByRequest, "DISCOSCOPE_SKIP_PACKAGE=1: the release tarball is not built"),
    .enabled(if: ReleaseTarball.swiftIsOnPath, "no `swift` on PATH to run scripts/package.sh with"),
    .serialized)
struct ReleaseTarballTests {
    @Test func tarballHoldsTheBinaryManPageCompletionsLicenceAndReadme() throws {
        let t = try ReleaseTarball.unpacked()
        let listing = try runProcess("/usr/bin/tar", ["-tzf", t.tarball])
        let entries = Set(listing.lines.map { String($0) }.filter { !$0.hasSuffix("/") })
        let expected: Set<String> = [
            "bin/discoscope", "share/man/man1/discoscope.1", "share/bash-completion/completions/discoscope",
            "share/zsh/site-functions/_discoscope", "share/fish/vendor_completions.d/discoscope.fish", "LICENSE",
            "README.md",
        ]
        #expect(entries == Set(expected.map { t.name + "/" + $0 }))
        #expect(FileManager.default.isExecutableFile(atPath: t.binary))
        let read = { (path: String) in (try? String(contentsOfFile: t.root + "/" + path, encoding: .utf8)) ?? "" }
        #expect(read("LICENSE") == (try String(contentsOfFile: Fixtures.packageRoot + "/LICENSE", encoding: .utf8)))
        let manual = read("share/man/man1/discoscope.1")
        #expect(manual.contains(".Dt DISCOSCOPE 1") && manual.contains("analyze"), "\(manual.prefix(300))")
        #expect(read("share/bash-completion/completions/discoscope").contains("complete -o filenames -F _discoscope"))
        #expect(read("share/zsh/site-functions/_discoscope").hasPrefix("#compdef discoscope"))
        #expect(read("share/fish/vendor_completions.d/discoscope.fish").contains("complete -c 'discoscope'"))
        let readme = read("README.md")
        for needed in ["analyze", "libpcap0.8", "--format sarif", "status=$?", t.name + ".tar.gz"] {
            #expect(readme.contains(needed), "README.md lacks \(needed)")
        }
        // The libraries it names are those the binary loads.
        for library in try ReleaseTarball.linkedLibraries(t.binary) {
            let name = (library.name as NSString).lastPathComponent
            #expect(readme.contains("`\(name)`"), "README.md does not name \(name)")
        }
    }

    @Test func binaryLoadsNoSwiftLibrary() throws {
        let t = try ReleaseTarball.unpacked()
        let ldd = try runProcess("/usr/bin/ldd", [t.binary])
        #expect(ldd.status == 0, "\(ldd.stderr)")
        for line in ldd.lines {
            for swift in ["libswift", "libFoundation", "libdispatch", "libBlocksRuntime", "lib_Foundation"] {
                #expect(!line.contains(swift), "\(line)")
            }
        }
        #expect(ldd.stdout.contains("libpcap.so"))
    }

    @Test func binaryRunsWithAScrubbedEnvironmentAndPrintsWhatTheDebugBuildPrints() throws {
        let t = try ReleaseTarball.unpacked()
        // Out of the package and away from the toolchain: the capture copied into a
        // directory of its own, and nothing but /usr/bin:/bin to search.
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/captures/link", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Fixtures.capture("link/ethernet.pcap"), toPath: dir + "/captures/link/ethernet.pcap")
        let environment = ["PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": "", "TZ": "UTC"]
        for arguments in [
            ["analyze", "captures/link/ethernet.pcap"], ["analyze", "-q", "captures/link/ethernet.pcap"],
        ] {
            let released = try runProcess(t.binary, arguments, currentDirectory: dir, environment: environment)
            let debug = try run(arguments, cwd: Fixtures.packageRoot)
            #expect(released.status == debug.status && released.stderr == debug.stderr, "\(released.stderr)")
            #expect(released.stdout == debug.stdout, "\(arguments): release printed\n\(released.stdout)")
        }
        let version = try runProcess(t.binary, ["--version"], environment: environment)
        let line = version.stdout.trimmingCharacters(in: .newlines)
        #expect(ReleaseTarball.isVersionLine(line), "\(line)")
        // scripts/package.sh plans the build afresh: the commit is HEAD's.
        #expect(line.hasSuffix("(commit \(try ReleaseTarball.checkedOutCommit()))"), "\(line)")
    }

    @Test(
        .enabled(
            if: ReleaseTarball.canEnterARoot,
            "user namespaces (`unshare --map-root-user`) are not allowed here: no minimal root"))
    func binaryRunsInARootHoldingOnlyItAndItsLibraries() throws {
        let t = try ReleaseTarball.unpacked()
        let root = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let fm = FileManager.default
        func place(_ source: String, at path: String) throws {
            try fm.createDirectory(
                atPath: root + (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            // The file's bytes (through any symbolic link), executable.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
            guard fm.createFile(atPath: root + path, contents: bytes, attributes: [.posixPermissions: 0o755]) else {
                throw ReleaseTarball.Failure(description: "cannot write \(root + path)")
            }
        }
        try place(t.binary, at: "/discoscope")
        for library in try ReleaseTarball.linkedLibraries(t.binary) { try place(library.path, at: library.path) }
        try place(Fixtures.capture("link/ethernet.pcap"), at: "/captures/link/ethernet.pcap")
        // A /proc of its own (Swift's runtime reads the arguments from /proc/self/cmdline; every
        // Linux system and container has one), in new user, mount and PID namespaces.
        try fm.createDirectory(atPath: root + "/proc", withIntermediateDirectories: false)
        let released = try runProcess(
            "/usr/bin/unshare",
            [
                "--map-root-user", "--mount", "--pid", "--fork", "--mount-proc=\(root)/proc", "/usr/sbin/chroot", root,
                "/discoscope", "analyze", "captures/link/ethernet.pcap",
            ],
            environment: ["PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": "", "TZ": "UTC"])
        let debug = try run(["analyze", "captures/link/ethernet.pcap"], cwd: Fixtures.packageRoot)
        #expect(released.status == debug.status && released.stderr == debug.stderr, "\(released.stderr)")
        #expect(released.stdout == debug.stdout, "release printed\n\(released.stdout)")
    }

    /// README: the CI job of "Release tarball / Use in CI", run as written, with the tarball
    /// served from a file URL: its SARIF is the debug build's, and its exit status is kept.
    @Test func readmeCIJobRunsAndKeepsTheExitStatus() throws {
        let t = try ReleaseTarball.unpacked()
        let readme = try String(contentsOfFile: Fixtures.packageRoot + "/README.md", encoding: .utf8)
        guard let start = readme.range(of: "## Release tarball / Use in CI") else {
            Issue.record("README has no 'Release tarball / Use in CI' section")
            return
        }
        let section = String(readme[start.upperBound...]).components(separatedBy: "\n## ")[0]
        let blocks = section.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        #expect(
            blocks.contains { $0.hasPrefix("sh\nscripts/package.sh\n") },
            "README does not build with scripts/package.sh")
        guard let job = blocks.first(where: { $0.contains("analyze --format sarif") }) else {
            Issue.record("README's CI job does not run `analyze --format sarif`")
            return
        }
        // Findings at error level: the job's status is 1, as discoscope's is.
        for capture in ["testbed/lan-dualstack.pcapng", "link/ethernet-ipv6.pcapng"] {
            let dir = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try FileManager.default.copyItem(atPath: Fixtures.capture(capture), toPath: dir + "/capture.pcapng")
            let ci = try runProcess(
                "/bin/bash", ["-eu", "-c", String(job.drop { $0 != "\n" })], currentDirectory: dir,
                environment: ["PATH": "/usr/bin:/bin", "TZ": "UTC", "DISCOSCOPE_URL": "file://" + t.tarball])
            let debug = try runProcess(
                Fixtures.binary, ["analyze", "--format", "sarif", "-o", "debug.sarif", "capture.pcapng"],
                currentDirectory: dir, environment: ["PATH": "/usr/bin:/bin", "TZ": "UTC"])
            #expect(ci.status == debug.status, "\(capture): \(ci.stderr)")
            let sarif = try String(contentsOfFile: dir + "/results.sarif", encoding: .utf8)
            #expect(sarif == (try String(contentsOfFile: dir + "/debug.sarif", encoding: .utf8)), "\(capture)")
        }
    }
}

/// The tarball under test, built (or found up to date) once per test run.
enum ReleaseTarball {
    struct Unpacked {
        /// `discoscope-VERSION-linux-ARCH`, the tarball's top directory.
        var name: String
        var tarball: String
        /// Where it is unpacked (a directory of the test run's temporary directory).
        var root: String
        var binary: String { root + "/bin/discoscope" }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let skippedByRequest = ProcessInfo.processInfo.environment["DISCOSCOPE_SKIP_PACKAGE"] == "1"

    static let swiftIsOnPath: Bool = (try? runProcess("/usr/bin/env", ["swift", "--version"]).status) == 0

    static let canEnterARoot: Bool =
        (try? runProcess("/usr/bin/unshare", ["--map-root-user", "--mount", "--pid", "--fork", "/bin/true"]).status)
        == 0

    /// Runs `git -C <package root>` with `arguments`.
    static func git(_ arguments: [String]) throws -> ProcessResult {
        try runProcess(
            "/usr/bin/env", ["git", "-C", Fixtures.packageRoot] + arguments, environment: ["PATH": "/usr/bin:/bin"])
    }

    /// The commit by the plugin's rule: HEAD, abbreviated as `git` does, when the package root
    /// is the top of a git checkout; "unknown" otherwise (a source tarball, or a copy inside
    /// some other repository).
    static func checkedOutCommit() throws -> String {
        let top = try git(["rev-parse", "--show-toplevel"])
        let path = { (p: String) in URL(fileURLWithPath: p).resolvingSymlinksInPath().path }
        guard top.status == 0, path(top.stdout.trimmingCharacters(in: .newlines)) == path(Fixtures.packageRoot) else {
            return "unknown"
        }
        let head = try git(["rev-parse", "--short", "HEAD"])
        return head.status == 0 ? head.stdout.trimmingCharacters(in: .newlines) : "unknown"
    }

    /// `discoscope 1.2.3 (commit 0123abc)`, or `(commit unknown)` when built outside a checkout.
    static func isVersionLine(_ line: String) -> Bool {
        line.wholeMatch(of: /discoscope [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{7,}|unknown)\)/) != nil
    }

    static func unpacked() throws -> Unpacked {
        try built.get()
    }

    private static let built: Result<Unpacked, Failure> = Result { try build() }.mapError {
        $0 as? Failure ?? Failure(description: "\($0)")
    }

    /// Runs scripts/package.sh: a release build in its own build directory (.build-package),
    /// incremental, so a tarball whose sources did not change is repacked in seconds.
    private static func build() throws -> Unpacked {
        let root = Fixtures.packageRoot
        let r = try runProcess("/bin/bash", [root + "/scripts/package.sh"], currentDirectory: root)
        guard r.status == 0, let tarball = r.lines.last?.split(separator: " ").first.map(String.init) else {
            throw Failure(description: "scripts/package.sh failed (\(r.status)):\n\(r.stderr.suffix(3000))")
        }
        print("scripts/package.sh: \(r.lines.last ?? "")")
        // Unpacked under .build (ignored by git), replacing the previous run's copy.
        let name = String((tarball as NSString).lastPathComponent.dropLast(".tar.gz".count))
        let dir = root + "/.build/release-tarball-test"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let tar = try runProcess("/usr/bin/tar", ["-xzf", root + "/" + tarball, "-C", dir])
        guard tar.status == 0 else { throw Failure(description: "tar -xzf \(tarball): \(tar.stderr)") }
        return Unpacked(name: name, tarball: root + "/" + tarball, root: dir + "/" + name)
    }

    /// The files `ldd` says the binary loads (name as `ldd` prints it, and path), without the
    /// kernel's vDSO.
    static func linkedLibraries(_ binary: String) throws -> [(name: String, path: String)] {
        let ldd = try runProcess("/usr/bin/ldd", [binary])
        guard ldd.status == 0 else { throw Failure(description: "ldd \(binary): \(ldd.stderr)") }
        return ldd.lines.compactMap { line in
            let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard let name = words.first, !name.hasPrefix("linux-vdso") else { return nil }
            // `libpcap.so.0.8 => /lib/x86_64-linux-gnu/libpcap.so.0.8 (0x…)`, or the loader's
            // `/lib64/ld-linux-x86-64.so.2 (0x…)`.
            let path = words.count > 2 && words[1] == "=>" ? words[2] : name
            return path.hasPrefix("/") ? (name, path) : nil
        }
    }
}
