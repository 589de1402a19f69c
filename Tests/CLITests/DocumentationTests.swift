import Foundation
import TestSupport
import Testing

private func readRepoFile(_ relative: String) throws -> String {
    try String(contentsOfFile: Fixtures.packageRoot + "/" + relative, encoding: .utf8)
}

/// Fenced blocks of a Markdown text: (info string, lines).
private func fencedBlocks(_ text: String) -> [(info: String, lines: [String])] {
    var blocks: [(String, [String])] = []
    var current: (String, [String])? = nil
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
        if line.hasPrefix("```") {
            if let c = current {
                blocks.append(c)
                current = nil
            } else {
                current = (String(line.dropFirst(3)), [])
            }
        } else if current != nil {
            current?.1.append(line)
        }
    }
    return blocks
}

/// #21 point 8: the README is a newcomer's README, and stays true.
@Suite struct ReadmeTests {
    @Test func opensWithTheSetUpAndRunCommandThenTheTestCommand() throws {
        let readme = try readRepoFile("README.md")
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Title, then the two commands, nothing in between.
        #expect(
            lines.prefix(10) == [
                "# DiscoScope", "", "```", lines[3], "```", "", "```", "scripts/test.sh", "```", "",
            ])
        let first = lines[3]
        #expect(first.hasPrefix("scripts/setup.sh && swift run -c release discoscope analyze captures/"))
        let capture = String(first.split(separator: " ").last ?? "")
        #expect(FileManager.default.fileExists(atPath: Fixtures.packageRoot + "/" + capture), "\(capture)")
        for script in ["scripts/setup.sh", "scripts/test.sh", "scripts/install.sh"] {
            #expect(FileManager.default.isExecutableFile(atPath: Fixtures.packageRoot + "/" + script), "\(script)")
        }
        // The README's main job exits 0 on its capture.
        let r = try run(["analyze", capture], cwd: Fixtures.packageRoot)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
    }

    @Test func consoleExamplesPrintWhatTheREADMEShows() throws {
        let blocks = fencedBlocks(try readRepoFile("README.md")).filter { $0.info == "console" }
        #expect(blocks.count >= 2)
        for block in blocks {
            var commands: [(String, [String])] = []
            for line in block.lines {
                if line.hasPrefix("$ ") {
                    commands.append((String(line.dropFirst(2)), []))
                } else if !commands.isEmpty {
                    commands[commands.count - 1].1.append(line)
                }
            }
            for (command, expected) in commands {
                let words = command.split(separator: " ").map(String.init)
                #expect(words.first == "discoscope", "\(command)")
                let r = try run(Array(words.dropFirst()), cwd: Fixtures.packageRoot)
                #expect(r.status == 0 || r.status == 1, "\(command): \(r.stderr)")
                if expected.isEmpty {
                    #expect(!r.stdout.isEmpty, "\(command)")
                } else {
                    let actual = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    let trimmed = actual.last == "" ? Array(actual.dropLast()) : actual
                    #expect(trimmed == expected, "README example `\(command)` is stale; actual output:\n\(r.stdout)")
                }
            }
        }
    }

    @Test func tcpdumpTableCommandsWork() throws {
        let readme = try readRepoFile("README.md")
        guard let start = readme.range(of: "## For tcpdump users") else {
            Issue.record("no 'For tcpdump users' section")
            return
        }
        let section = readme[start.upperBound...].split(separator: "\n").prefix { !$0.hasPrefix("## ") }
        let rows = section.filter { $0.hasPrefix("| `") }
        #expect(rows.count >= 10)
        let dir = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var ran = 0
        for row in rows {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count > 2 else { continue }
            // Code spans of the DiscoScope column that analyse a file (live capture needs root
            // and an interface; the live tests cover it).
            let column: String = cells[2...].joined(separator: "|")
            let pieces: [String] = column.components(separatedBy: "`")
            var spans: [String] = []
            for k in stride(from: 1, to: pieces.count, by: 2) { spans.append(pieces[k]) }
            for span in spans {
                guard span.hasPrefix("discoscope analyze ") else { continue }
                let command = span.components(separatedBy: " \\| ")[0]
                    .replacingOccurrences(of: "lan.pcap", with: "captures/link/ethernet.pcap")
                    .replacingOccurrences(of: "out.pcap", with: dir + "/out.pcap")
                    .replacingOccurrences(of: "'udp port 5353'", with: "udp-port-5353")
                var words: [String] = command.split(separator: " ").dropFirst().map(String.init)
                if let k = words.firstIndex(of: "udp-port-5353") { words[k] = "udp port 5353" }
                let r = try run(words, cwd: Fixtures.packageRoot)
                #expect(r.status == 0 || r.status == 1, "README: `\(span)` → \(r.stderr)")
                #expect(r.stderr.isEmpty, "README: `\(span)` → \(r.stderr)")
                ran += 1
            }
        }
        #expect(ran >= 10)
    }

    /// docs/PROFILE-RULES.md lists the registered profile rules by profile: it is what
    /// scripts/profile-rules-doc.py makes of `discoscope rules --format json`.
    @Test func theProfileRulesDocumentListsTheRegisteredRules() throws {
        let json = try run(["rules", "--format", "json"], cwd: Fixtures.packageRoot)
        let doc = try runProcess(
            "/usr/bin/python3", [Fixtures.packageRoot + "/scripts/profile-rules-doc.py"], stdin: Data(json.stdout.utf8))
        #expect(doc.status == 0, "\(doc.stderr)")
        #expect(doc.stdout.contains("69 rules, 16 profiles."))
        #expect(
            doc.stdout == (try readRepoFile("docs/PROFILE-RULES.md")),
            "docs/PROFILE-RULES.md is stale: rerun scripts/profile-rules-doc.py")
    }

    @Test func pointsOnlyAtFilesInTheRepository() throws {
        for doc in ["README.md", "docs/FORMATS.md"] {
            let text = try readRepoFile(doc)
            #expect(!text.contains("../shared"), "\(doc) refers to material outside the repository")
            // Relative links resolve.
            let pattern = try NSRegularExpression(pattern: #"\]\(([^)#:]+)\)"#)
            let ns = text as NSString
            for m in pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
                let target = ns.substring(with: m.range(at: 1))
                let base = (doc as NSString).deletingLastPathComponent
                let path = Fixtures.packageRoot + "/" + (base.isEmpty ? "" : base + "/") + target
                #expect(FileManager.default.fileExists(atPath: path), "\(doc) links to missing \(target)")
            }
        }
        // The performance diary lives with the benchmarks, not in the user's README.
        #expect(!(try readRepoFile("README.md")).contains("pkt/s"))
        #expect((try readRepoFile("Benchmarks/README.md")).contains("pkt/s"))
    }
}

/// #21 point 8: the JSON lines format is documented inside the repository, field by field.
@Suite struct FormatDocumentationTests {
    @Test func everyJSONLinesFieldIsDocumentedInDocsFormats() throws {
        let doc = try readRepoFile("docs/FORMATS.md")
        var keys: Set<String> = []
        func walk(_ value: Any, dynamicKeys: Bool = false) {
            if let o = value as? [String: Any] {
                for (k, v) in o {
                    if !dynamicKeys { keys.insert(k) }
                    // Rule IDs and skip reasons are data, not field names.
                    walk(v, dynamicKeys: k == "findings_by_rule" || k == "skipped")
                }
            } else if let a = value as? [Any] {
                for v in a { walk(v) }
            }
        }
        let captures =
            GoldenFileTests.textCaptures + ["captures/testbed/h4-any-sll2.pcap", "captures/damaged/garbage.pcap"]
        for capture in captures {
            let r = try run(["analyze", capture, "--format", "jsonl", "--fail-on", "never"], cwd: Fixtures.packageRoot)
            for record in jsonRecords(r) { walk(record) }
        }
        #expect(keys.count > 60)
        for k in keys.sorted() {
            #expect(doc.contains("`\(k)`") || doc.contains("\"\(k)\""), "docs/FORMATS.md does not describe field \(k)")
        }
    }
}

/// #21 point 8: DiscoScope has a licence, and every bundled capture may be redistributed.
@Suite struct LicenceTests {
    static let redistributable: Set<String> = [
        "Apache-2.0", "MIT", "BSD-2-Clause", "BSD-3-Clause", "ISC", "CC0-1.0", "LGPL-2.1", "LGPL-3.0", "GPL-2.0",
        "GPL-3.0",
    ]

    @Test func repositoryCarriesTheApacheLicence() throws {
        let license = try readRepoFile("LICENSE")
        #expect(license.contains("Apache License") && license.contains("Version 2.0, January 2004"))
        #expect(license.contains("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION"))
    }

    @Test func everyPublicCaptureIsListedWithARedistributableLicenceAndItsNotice() throws {
        let readme = try readRepoFile("captures/README.md")
        let notices = try readRepoFile("captures/public/LICENSES.md")
        let files = try FileManager.default.contentsOfDirectory(atPath: Fixtures.capture("public"))
            .filter { !$0.hasSuffix(".md") && $0 != "licenses" }
        #expect(files.count >= 5)
        for file in files {
            let row = readme.split(separator: "\n").first { $0.hasPrefix("| public/\(file) |") }
            let cells = row.map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
            #expect(cells.count > 2, "captures/README.md has no row for public/\(file)")
            guard cells.count > 2 else { continue }
            #expect(Self.redistributable.contains(cells[2]), "public/\(file): licence '\(cells[2])'")
            #expect(notices.contains("`\(file)`"), "captures/public/LICENSES.md has no notice for \(file)")
            if cells[2].hasPrefix("LGPL") || cells[2].hasPrefix("GPL") {
                let version = cells[2].hasSuffix("3.0") ? "3.0" : "2"
                #expect(FileManager.default.fileExists(atPath: Fixtures.capture("public/licenses/GPL-\(version).txt")))
            }
        }
    }
}
