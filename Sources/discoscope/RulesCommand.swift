import Analyzer
import ArgumentParser
import Findings
import Reporting
import Rules

extension DiscoScope {
    /// `discoscope rules [--format text|json]` and `discoscope rules explain ID`. `--format`
    /// is the command's own option (so `rules --help` shows it); `list` reads it from here.
    struct RulesCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rules",
            abstract: "List the rule catalog (the default), or explain one rule.",
            subcommands: [List.self, Explain.self],
            defaultSubcommand: List.self
        )

        @Option(name: .long, help: "text (a table) or json (one array of rule objects).")
        var format: CatalogFormat = .text

        @Option(
            name: .long,
            help: ArgumentHelp(
                "List only the rules of this service profile (repeatable): \(ServiceProfile.allCases.map(\.rawValue).joined(separator: ", "))."
            ))
        var profile: [ServiceProfile] = []
    }

    enum CatalogFormat: String, CaseIterable, ExpressibleByArgument { case text, json }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every rule: ID, name, severity, scope, spec section.")

        @ParentCommand var rules: RulesCommand
        var format: CatalogFormat { rules.format }

        func run() throws {
            let wanted = ServiceProfiles(rules.profile)
            let all =
                wanted == [] ? RuleCatalog.all : RuleCatalog.all.filter { $0.profiles.rawValue & wanted.rawValue != 0 }
            switch format {
            case .json:
                let rules: [JSONValue] = all.map { d in
                    var fields: [(String, JSONValue)] = [
                        ("id", .string(d.id.rawValue)), ("name", .string(d.name)),
                        ("severity", .string(d.severity.rawValue)),
                        ("lowest_severity", .string(d.lowestSeverity.rawValue)),
                        ("protocol", .string(d.proto.rawValue)), ("scope", .string(d.scope.rawValue)),
                        ("spec", .string(d.spec)),
                        ("title", .string(d.title)), ("description", .string(d.description)),
                        ("interop", d.interop.map { .string($0) } ?? .null), ("example", .string(d.example)),
                    ]
                    // Profile rules only: the base rules' objects stay as they were.
                    if d.profiles != [] {
                        fields.append(("profiles", .array(d.profiles.members.map { .string($0.rawValue) })))
                        fields.append(("basis", .string(d.basis.rawValue)))
                    }
                    return .object(fields)
                }
                print(JSONValue.array(rules).serialized())
            case .text:
                let nameWidth = all.map(\.name.count).max() ?? 20
                print(
                    "ID".pad(9) + "NAME".pad(nameWidth + 1) + "DEFAULT".pad(8) + "REPORTS".pad(14) + "SCOPE".pad(10)
                        + "SPEC")
                for d in all {
                    print(
                        d.id.rawValue.pad(9) + d.name.pad(nameWidth + 1) + d.severity.rawValue.pad(8)
                            + d.severityRange.pad(14)
                            + d.scope.rawValue.pad(10) + d.spec)
                }
                print("\n\(all.count) rules. `discoscope rules explain ID` shows one in full.")
            }
        }
    }

    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a rule's description, spec reference, interop note and an example violation.")

        @Argument(help: "Rule ID (SSDP-104) or name (mx-range).", completion: ruleCompletion)
        var rule: String

        func run() throws {
            guard let d = RuleCatalog.find(rule) else {
                FileHandleStderr.write("discoscope: \(RuleSuggestion.unknownRule(rule))\n")
                throw ExitCode(2)
            }
            print("\(d.id) \(d.name)  [\(d.severityRange), \(d.proto == .ssdp ? "SSDP" : "mDNS"), \(d.scope.rawValue)]")
            print("")
            print(d.title + ".")
            if !d.description.isEmpty { print(d.description) }
            print("")
            print("Spec:     " + d.spec)
            if let i = d.interop { print("Interop:  " + i) }
            if d.profiles != [] {
                print("Profile:  " + d.profiles.members.map { "\($0.title) (\($0.rawValue))" }.joined(separator: ", "))
            }
            switch d.basis {
            case .specified: break
            case .deFacto:
                print(
                    "Basis:    de facto: no public specification states it; it is the contract the reference implementations set (see Spec)."
                )
            case .notConfirmed:
                print(
                    "Basis:    not confirmed: the source's wording or section could not be confirmed, so the rule reports a warning at most."
                )
            }
            print("Example:  " + d.example)
            print(
                "Severity: MUST → error, SHOULD → warning, MAY/INFO → info; this rule's default is \(d.severity.rawValue)"
                    + (d.lowestSeverity < d.severity ? ", and some of its findings are \(d.severityRange)." : "."))
        }
    }
}

extension ServiceProfile: ExpressibleByArgument {}

extension RuleDescriptor {
    /// `warning–error` for a rule whose findings range over severities, else its one severity.
    var severityRange: String {
        lowestSeverity < severity ? "\(lowestSeverity.rawValue)–\(severity.rawValue)" : severity.rawValue
    }
}

extension String {
    func pad(_ w: Int) -> String { count >= w ? self + " " : self + String(repeating: " ", count: w - count) }
}
