import Foundation
import TestSupport
import Testing

/// DiscoScopeKit builds wherever Swift does: neither it nor any target it depends on imports
/// libpcap, Glibc, Foundation or a threading module.
@Suite struct KitDependencyTests {
    static let forbidden = ["CPcap", "Capture", "Glibc", "Foundation", "FoundationEssentials", "Dispatch", "Darwin"]

    /// Each target's dependencies on other targets of the package, read from Package.swift
    /// (`.target(name: "X", dependencies: ["A", "B", …])`).
    static func targetDependencies() throws -> [String: [String]] {
        let manifest = try String(contentsOfFile: Fixtures.packageRoot + "/Package.swift", encoding: .utf8)
        var graph: [String: [String]] = [:]
        let calls =
            manifest.components(separatedBy: ".target(").dropFirst()
            + manifest.components(separatedBy: ".executableTarget(").dropFirst()
        for call in calls {
            guard let name = Self.quoted(after: "name:", in: call) else { continue }
            var deps: [String] = []
            if let open = call.range(of: "dependencies: ["), let close = call[open.upperBound...].firstIndex(of: "]") {
                let list = call[open.upperBound..<close]
                // Target names are plain quoted strings; products are `.product(name: …)`.
                for part in list.components(separatedBy: ",") {
                    let p = part.trimmingCharacters(in: .whitespacesAndNewlines)
                    if p.hasPrefix("\""), p.hasSuffix("\""), p.count > 2 {
                        deps.append(String(p.dropFirst().dropLast()))
                    }
                    if p.hasPrefix(".product(") { deps.append("product " + p) }
                }
            }
            graph[name] = deps
        }
        return graph
    }

    static func quoted(after label: String, in text: String) -> String? {
        guard let l = text.range(of: label), let a = text[l.upperBound...].firstIndex(of: "\"") else { return nil }
        let rest = text[text.index(after: a)...]
        guard let b = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<b])
    }

    @Test func kitAndItsTargetsImportNeitherLibpcapNorGlibcNorFoundation() throws {
        let graph = try Self.targetDependencies()
        var closure: Set<String> = []
        var todo = ["DiscoScopeKit"]
        while let t = todo.popLast() {
            guard closure.insert(t).inserted else { continue }
            let deps = try #require(graph[t], "target \(t) not found in Package.swift")
            #expect(!deps.contains { $0.hasPrefix("product ") }, "\(t) depends on another package: \(deps)")
            todo += deps.filter { !$0.hasPrefix("product ") }
        }
        #expect(closure.contains("Analyzer") && closure.contains("Rules"), "closure: \(closure.sorted())")
        for t in closure.sorted() {
            #expect(!Self.forbidden.contains(t), "DiscoScopeKit depends on \(t)")
            let dir = Fixtures.packageRoot + "/Sources/" + t
            let files = FileManager.default.enumerator(atPath: dir)?.compactMap { $0 as? String } ?? []
            #expect(!files.isEmpty, "no sources in \(dir)")
            for f in files where f.hasSuffix(".swift") {
                let text = try String(contentsOfFile: dir + "/" + f, encoding: .utf8)
                for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.contains(" import ") {
                    let module = line.split(separator: " ").last.map(String.init) ?? ""
                    #expect(!Self.forbidden.contains(module), "Sources/\(t)/\(f) imports \(module)")
                }
            }
        }
    }
}
