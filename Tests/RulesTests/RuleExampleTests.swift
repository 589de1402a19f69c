import Findings
import Testing

@testable import Rules

/// One registered rule type, as a test argument.
struct RegisteredRule: CustomTestStringConvertible, Sendable {
    let type: any Rule.Type
    var id: RuleID { type.descriptor.id }
    var testDescription: String { "\(id) \(type)" }
}

/// The tests generated from the rules' own examples: every registered rule has at least one
/// triggering and one non-triggering example, each run through the whole analysis.
@Suite struct RuleExampleTests {
    static let rules = RuleRegistry.all.map(RegisteredRule.init)

    @Test(arguments: rules)
    func everyRuleHasATriggeringAndANonTriggeringExample(_ r: RegisteredRule) {
        #expect(!r.type.examples.triggering.isEmpty, "\(r.id) has no triggering example")
        #expect(!r.type.examples.nonTriggering.isEmpty, "\(r.id) has no non-triggering example")
    }

    @Test(arguments: rules)
    func triggeringExamplesRaiseTheRule(_ r: RegisteredRule) {
        for example in r.type.examples.triggering {
            let place = SourceLocation(fileID: example.file, filePath: example.file, line: example.line, column: 1)
            let hit = findingsOnLast(example).filter { $0.rule == r.id }
            #expect(!hit.isEmpty, "\(r.id) did not fire on its triggering example", sourceLocation: place)
            if let s = example.severity {
                #expect(
                    hit.contains { $0.severity == s }, "\(r.id) severity \(hit.map(\.severity))", sourceLocation: place)
            }
            for f in hit {
                #expect(!f.message.isEmpty && !f.spec.isEmpty, "\(r.id)", sourceLocation: place)
                let d = r.type.descriptor
                #expect(
                    d.lowestSeverity <= f.severity && f.severity <= d.severity,
                    "\(r.id) reported \(f.severity), outside its declared \(d.lowestSeverity)...\(d.severity)",
                    sourceLocation: place)
            }
        }
    }

    @Test(arguments: rules)
    func nonTriggeringExamplesDoNotRaiseIt(_ r: RegisteredRule) {
        for example in r.type.examples.nonTriggering {
            let place = SourceLocation(fileID: example.file, filePath: example.file, line: example.line, column: 1)
            // A near miss raises the rule on none of its frames, nor at the end of the input:
            // a finding on an earlier frame is as wrong as one on the last.
            let miss = allFindings(example).filter { $0.rule == r.id }
            #expect(
                miss.isEmpty,
                "\(r.id) fired on its non-triggering example: \(miss.map { "frame \($0.firstFrame ?? 0): \($0.message)" })",
                sourceLocation: place)
        }
    }
}
