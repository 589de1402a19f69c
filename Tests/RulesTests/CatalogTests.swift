import Findings
import Foundation
import TestSupport
import Testing

@testable import Rules

/// The registered rules against the catalog. The catalog's rule IDs and scopes are read from
/// `../shared/rules/*.md` when it is beside the repository; `catalog-ids.txt` is a committed
/// copy of that list (one `ID Scope` line each), so the check also runs in a clone without it.
@Suite struct CatalogTests {
    static let copyPath = Fixtures.packageRoot + "/Tests/RulesTests/catalog-ids.txt"
    static let sharedRules = Fixtures.packageRoot + "/../shared/rules"
    static var sharedPresent: Bool { FileManager.default.fileExists(atPath: sharedRules + "/ssdp.md") }

    /// `ID Scope` pairs of the committed copy.
    static func committedCopy() throws -> [String: String] {
        let text = try String(contentsOfFile: copyPath, encoding: .utf8)
        var out: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2 { out[String(parts[0])] = String(parts[1]) }
        }
        return out
    }

    /// The rules DiscoScope adds to the catalog itself (SSDP-520, 521; SSDP-6xx, `probe`'s
    /// description checks; SEG-xxx), documented in the repository until the shared catalog takes them.
    static let repoAdditions = [
        Fixtures.packageRoot + "/docs/PROBE-RULES.md", Fixtures.packageRoot + "/docs/SEGMENT-RULES.md",
        Fixtures.packageRoot + "/docs/MDNS-RULES.md", Fixtures.packageRoot + "/docs/SSDP-RULES.md",
    ]

    /// `ID Scope` pairs from the catalog's tables: rows that start with an ID and end with a
    /// scope cell (`Stateless` or `Stateful …`).
    static func sharedCatalog() throws -> [String: String] {
        try catalogTables(["ssdp.md", "mdns.md", "profiles.md"].map { sharedRules + "/" + $0 })
    }

    /// `ID Scope` pairs of the tables in `files`.
    static func catalogTables(_ files: [String]) throws -> [String: String] {
        var out: [String: String] = [:]
        for file in files {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for line in text.split(separator: "\n")
            where line.hasPrefix("| SSDP-") || line.hasPrefix("| MDNS-") || line.hasPrefix("| SEG-")
                || line.hasPrefix("| PROF-")
            {
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard cells.count > 2, let scope = cells[cells.count - 2].split(separator: " ").first else { continue }
                // `Stateless; change: …` (PROF-109) is a stateless rule with a stateful half.
                out[cells[1]] = String(scope.filter { $0.isLetter })
            }
        }
        return out
    }

    @Test(
        .enabled(
            if: CatalogTests.sharedPresent, "../shared/rules is not beside the repository; the committed copy stands in"
        ))
    func theCommittedCopyMatchesTheSharedCatalog() throws {
        #expect(
            try Self.sharedCatalog() == Self.committedCopy(),
            "update Tests/RulesTests/catalog-ids.txt from ../shared/rules")
    }

    /// The repository's additions are new IDs, not in the shared catalog nor its copy.
    @Test func theRepositoryAdditionsAreNewIDs() throws {
        let additions = try Self.catalogTables(Self.repoAdditions)
        #expect(
            additions.keys.sorted() == ["MDNS-323", "MDNS-520", "MDNS-521", "MDNS-522"]
                + ["SEG-001", "SEG-002", "SEG-003", "SEG-101", "SEG-102", "SEG-103", "SEG-104"]
                + ["SSDP-520", "SSDP-521"] + (601...606).map { "SSDP-\($0)" })
        #expect(Set(additions.keys).isDisjoint(with: try Self.committedCopy().keys))
        if Self.sharedPresent { #expect(Set(additions.keys).isDisjoint(with: try Self.sharedCatalog().keys)) }
    }

    @Test func everyStatelessCatalogRuleIsRegisteredAndNothingElse() throws {
        var catalog = try Self.committedCopy()
        #expect(catalog.count == 216)
        catalog.merge(try Self.catalogTables(Self.repoAdditions)) { a, _ in a }
        let registered = Set(RuleCatalog.all.map(\.id.rawValue))
        let stateless = Set(catalog.filter { $0.value == "Stateless" }.keys)
        #expect(
            stateless.subtracting(registered).isEmpty, "not registered: \(stateless.subtracting(registered).sorted())")
        #expect(
            registered.subtracting(catalog.keys).isEmpty,
            "not in the catalog: \(registered.subtracting(catalog.keys).sorted())")
    }

    @Test func statefulCatalogRulesAreSessionRules() throws {
        var catalog = try Self.committedCopy()
        catalog.merge(try Self.catalogTables(Self.repoAdditions)) { a, _ in a }
        for type in RuleRegistry.ssdpSession {
            let id = type.descriptor.id.rawValue
            // SSDP-205 is mixed: a stateless check plus the pairing half.
            #expect(catalog[id] == "Stateful" || id == "SSDP-205", "\(id)")
            #expect(type.descriptor.scope == .stateful, "\(id)")
        }
    }

    /// Every stateful SSDP rule of the catalog is a session rule.
    @Test func everyStatefulSSDPCatalogRuleIsASessionRule() throws {
        let catalog = try Self.committedCopy()
        let stateful = Set(catalog.filter { $0.key.hasPrefix("SSDP-") && $0.value == "Stateful" }.keys)
        let session = Set(RuleRegistry.ssdpSession.map { $0.descriptor.id.rawValue })
        #expect(stateful.subtracting(session).isEmpty, "not session rules: \(stateful.subtracting(session).sorted())")
    }

    /// mDNS session rules are the catalog's stateful rules (and the repository's additions),
    /// plus MDNS-308's in-order half.
    @Test func mdnsSessionRulesAreStatefulCatalogRules() throws {
        var catalog = try Self.committedCopy()
        catalog.merge(try Self.catalogTables(Self.repoAdditions)) { a, _ in a }
        for type in RuleRegistry.mdnsSession where type.descriptor.id.rawValue != "MDNS-308" {
            // A profile rule with a stateless and a session half (PROF-109's change check).
            if catalog[type.descriptor.id.rawValue] == "Stateless", type.descriptor.profiles != [] { continue }
            let id = type.descriptor.id.rawValue
            #expect(catalog[id] == "Stateful", "\(id)")
            #expect(type.descriptor.scope == .stateful, "\(id)")
        }
    }

    /// The stateful mDNS catalog rules implemented so far are session rules; those not yet
    /// implemented are listed here, so that adding one means removing it from this list.
    @Test func statefulMDNSCatalogRulesAreSessionRulesExceptThoseListedAsMissing() throws {
        let catalog = try Self.committedCopy()
        let stateful = Set(catalog.filter { $0.key.hasPrefix("MDNS-") && $0.value == "Stateful" }.keys)
        let session = Set(RuleRegistry.mdnsSession.map { $0.descriptor.id.rawValue })
        let missing: Set<String> = []
        #expect(stateful.subtracting(session) == missing)
    }

    /// Every PROF rule of the catalog is registered, with the catalog's scope, and claims at
    /// least one profile; `discoscope rules` lists them all.
    @Test func everyProfileCatalogRuleIsRegisteredWithItsScope() throws {
        let catalog = try Self.committedCopy().filter { $0.key.hasPrefix("PROF-") }
        #expect(catalog.count == 69)
        // PROF-109 is mixed, like SSDP-205: the catalog's row says "Stateless; change: Stateful",
        // its two types (the stateless check and the change half) share a stateful descriptor.
        let registered = Dictionary(
            grouping: RuleRegistry.all.map { $0.descriptor }.filter { $0.id.rawValue.hasPrefix("PROF-") },
            by: \.id.rawValue
        )
        #expect(
            Set(catalog.keys).subtracting(registered.keys).isEmpty,
            "not registered: \(Set(catalog.keys).subtracting(registered.keys).sorted())")
        for (id, scope) in catalog {
            guard let ds = registered[id] else { continue }
            #expect(
                ds.allSatisfy {
                    $0.scope.rawValue == scope.lowercased() || (id == "PROF-109" && $0.scope == .stateful)
                },
                "\(id): \(ds.map(\.scope)) against the catalog's \(scope)")
            #expect(ds.allSatisfy { $0.profiles != [] }, "\(id) names no profile")
        }
    }

    @Test func eachRuleIDHasOneDescriptorWithNameSpecAndExample() {
        var byID: [RuleID: RuleDescriptor] = [:]
        for type in RuleRegistry.all {
            let d = type.descriptor
            if let earlier = byID[d.id] { #expect(earlier == d, "\(d.id) is declared twice differently") }
            byID[d.id] = d
            #expect(!d.spec.isEmpty && !d.title.isEmpty && !d.example.isEmpty, "\(d.id)")
            #expect(d.name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }, "\(d.id) name \(d.name)")
        }
        let names = RuleCatalog.all.map(\.name)
        #expect(names.count == Set(names).count)
        #expect(RuleCatalog.all.map(\.id) == RuleCatalog.all.map(\.id).sorted())
    }

    /// Whether a rule's interop note says stacks lose its messages is read from the note's
    /// bytes: for every rule it must agree with reading the lower-cased text by characters.
    @Test func aNoteThatSaysStacksLoseTheMessageIsReadAsItsTextSays() {
        let words = ["drop", "ignore", "discard", "reject", "never"]
        var losing = 0
        for d in RuleCatalog.all {
            let byText = d.interop.map { note in words.contains { note.lowercased().contains($0) } } ?? false
            #expect(d.interopLosesMessage == byText, "\(d.id)")
            if byText { losing += 1 }
        }
        #expect(losing > 0)
        #expect(Impact.losesMessage("Avahi DROPS it"))
        #expect(!Impact.losesMessage("shown as is") && !Impact.losesMessage(nil))
    }

    @Test func aRuleIsFoundByIDOrName() {
        #expect(RuleCatalog.find("ssdp-104")?.name == "mx-range")
        #expect(RuleCatalog.find("mx-range")?.id == "SSDP-104")
        #expect(RuleCatalog.find("SSDP-999") == nil)
    }
}
