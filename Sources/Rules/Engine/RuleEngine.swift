import Findings
import WireFormat

/// The datagram-level input of a protocol's stateless rules, and the part of it that message
/// rules see (`view`: the message alone, shared by datagrams that repeat a payload).
public protocol RuleInput: AnyObject {
    associatedtype View: AnyObject
    var view: View { get }
    /// The snap length cut the datagram: rules that need the whole message are not run.
    var isTruncated: Bool { get }
    /// The service profiles the message claims: a rule of other profiles
    /// (`RuleDescriptor.profiles`) has nothing in it to judge, and is not called. Every
    /// profile by default.
    var claimedProfiles: ServiceProfiles { get }
}

extension RuleInput {
    public var claimedProfiles: ServiceProfiles { ServiceProfiles(rawValue: .max) }
}

/// Whether a rule of `profiles` (none: a rule of every message) has anything to judge in a
/// message that claims `claimed`: what both engines ask before calling a rule.
@inline(__always)
private func applies(_ profiles: ServiceProfiles, _ claimed: ServiceProfiles) -> Bool {
    profiles.isEmpty || claimed.intersects(profiles)
}

/// Rules (or an engine's steps) in registry order, compiled once per run by the service
/// profiles they judge (`RuleDescriptor.profiles`, `SessionRule.observedProfiles`; none: every
/// message): a message or event that claims no profile (most of them) meets only the rules of
/// every message, one that claims one profile (most instances claim one, by their service
/// type) that profile's list; one that claims several has each rule's profiles tested.
struct ProfilePlan<Element> {
    private let all: [Element]
    private let profiles: [ServiceProfiles]
    private let ofEveryMessage: [Element]
    /// By the profile's bit (`ServiceProfile.bit`: its place among the cases).
    private let ofOneProfile: [[Element]]

    init(_ elements: [Element], profiles: (Element) -> ServiceProfiles) {
        let masks = elements.map(profiles)
        all = elements
        self.profiles = masks
        ofEveryMessage = elements.indices.filter { masks[$0].isEmpty }.map { elements[$0] }
        ofOneProfile = ServiceProfile.allCases.indices.map { bit in
            let one = ServiceProfiles(rawValue: 1 << UInt32(bit))
            return elements.indices.filter { applies(masks[$0], one) }.map { elements[$0] }
        }
    }

    /// What a message claiming `claimed` walks: a list made at the start and, when it claims
    /// several profiles (the list of every element), that each element's profiles are to be
    /// tested (`element(_:appliesTo:)`). A list, not a closure, so that an engine can pass its
    /// event on without copying it into a closure's context.
    @inline(__always)
    func candidates(claiming claimed: ServiceProfiles) -> (elements: [Element], tested: Bool) {
        let bits = claimed.rawValue
        if bits == 0 { return (ofEveryMessage, false) }
        if bits & (bits &- 1) == 0, bits.trailingZeroBitCount < ofOneProfile.count {
            return (ofOneProfile[bits.trailingZeroBitCount], false)
        }
        return (all, true)
    }

    /// Whether the element at `k` of the list of every element applies to a message claiming
    /// `claimed`.
    @inline(__always)
    func element(_ k: Int, appliesTo claimed: ServiceProfiles) -> Bool { applies(profiles[k], claimed) }

    /// Runs `body` on each element that applies to a message claiming `claimed`, in order:
    /// `candidates`' choice, with a loop of its own for each case (through `candidates`, the
    /// tuple and the test per element cost the message engine about 200 instructions a
    /// packet; Benchmarks/README.md, "The profile rules' checks, #53").
    @inline(__always)
    func forEach(claiming claimed: ServiceProfiles, _ body: (Element) -> Void) {
        let bits = claimed.rawValue
        if bits == 0 {
            for k in ofEveryMessage.indices { body(ofEveryMessage[k]) }
        } else if bits & (bits &- 1) == 0, bits.trailingZeroBitCount < ofOneProfile.count {
            let one = ofOneProfile[bits.trailingZeroBitCount]
            for k in one.indices { body(one[k]) }
        } else {
            for k in all.indices where applies(profiles[k], claimed) { body(all[k]) }
        }
    }
}

extension ProfilePlan: Sendable where Element: Sendable {}

/// Runs one protocol's stateless rules: the only code that picks the enabled rules, calls
/// them in registry order, and replays what message rules found in an earlier datagram with
/// the same payload. Each worker thread has its own copy.
///
/// The enabled rules are compiled once, at the start of the run, into the lists each kind of
/// call walks (`Plan`): a message that claims no service profile (most of them) meets only the
/// rules of every message, a truncated one only the rules that can judge a cut message, and a
/// replay only the datagram rules, in their places among the kept findings.
public struct RuleEngine<Input: RuleInput>: Sendable {
    /// A registered rule, by kind.
    public enum Entry: @unchecked Sendable {
        // Metatypes of stateless rule types: no state, nothing shared but code.
        case message(any MessageRule<Input.View>.Type)
        case datagram(any DatagramRule<Input>.Type)

        public var rule: any Rule.Type {
            switch self {
            case .message(let r): r
            case .datagram(let r): r
            }
        }
    }

    /// A message rule's finding kept with its payload's decoding, with the rule's position
    /// in the enabled rules (findings are replayed in the same places among the others).
    public struct Kept: Sendable {
        var position: Int
        var finding: Finding
    }

    /// An enabled rule as the plans list it: its place among the enabled rules (registry
    /// order), the rule, and its profiles (`RuleDescriptor.profiles`; empty for a rule of
    /// every message).
    struct Step: Sendable {
        var position: Int
        var entry: Entry
        var profiles: ServiceProfiles
    }

    /// The steps one kind of call walks, in registry order.
    typealias Plan = ProfilePlan<Step>

    /// The registered rules that are not disabled, in registry order. Fixed for the run:
    /// kept findings always come from the same list.
    public let enabled: [Entry]
    /// The profiles the enabled rules are gated on (`RuleDescriptor.profiles`): a message's
    /// claims matter only among them, and not at all when there are none.
    public let judgedProfiles: ServiceProfiles
    /// Every enabled rule; those that judge a truncated datagram (not `needsWholeMessage`);
    /// the datagram rules, which a replay runs again.
    private let whole: Plan
    private let cut: Plan
    private let datagramRules: Plan

    public init(_ registered: [Entry], disabled: Set<RuleID> = []) {
        let enabled = registered.filter { !disabled.contains($0.rule.descriptor.id) }
        let steps = enabled.indices.map {
            Step(position: $0, entry: enabled[$0], profiles: enabled[$0].rule.descriptor.profiles)
        }
        self.enabled = enabled
        judgedProfiles = steps.reduce(into: ServiceProfiles()) { $0.formUnion($1.profiles) }
        whole = Plan(steps, profiles: \.profiles)
        cut = Plan(steps.filter { !$0.entry.rule.needsWholeMessage }, profiles: \.profiles)
        datagramRules = Plan(
            steps.filter {
                if case .datagram = $0.entry { true } else { false }
            }, profiles: \.profiles)
    }

    /// Runs every enabled rule on `input` (on a truncated one, those that can judge it).
    public func run(_ input: Input, into sink: inout FindingSink) {
        let plan = input.isTruncated ? cut : whole
        plan.forEach(claiming: input.claimedProfiles) { step in
            switch step.entry {
            case .message(let r): r.check(input.view, into: &sink)
            case .datagram(let r): r.check(input, into: &sink)
            }
        }
    }

    /// Runs every enabled rule on `input`, keeping what message rules found (for `replay`).
    /// Only for a whole datagram: what was found in a truncated one is not worth keeping.
    public func run(_ input: Input, keeping kept: inout [Kept], into sink: inout FindingSink) {
        whole.forEach(claiming: input.claimedProfiles) { step in
            switch step.entry {
            case .message(let r):
                let before = sink.findings.count
                r.check(input.view, into: &sink)
                for f in before..<sink.findings.count {
                    kept.append(Kept(position: step.position, finding: sink.findings[f]))
                }
            case .datagram(let r):
                r.check(input, into: &sink)
            }
        }
    }

    /// Runs the datagram rules on `input`, and reports again what the message rules found in
    /// the first datagram with the same payload (`kept`, from `run(_:keeping:into:)`), each in
    /// its place among the others.
    public func replay(_ kept: [Kept], on input: Input, into sink: inout FindingSink) {
        var next = 0
        datagramRules.forEach(claiming: input.claimedProfiles) { step in
            while next < kept.count, kept[next].position < step.position {
                sink.repeatFinding(kept[next].finding)
                next += 1
            }
            if case .datagram(let r) = step.entry { r.check(input, into: &sink) }
        }
        while next < kept.count {
            sink.repeatFinding(kept[next].finding)
            next += 1
        }
    }
}

/// Runs one protocol's session rules over its events in capture order, and owns the
/// protocol's session store: each event is judged by every enabled rule in registry order
/// with the store as it was before the event, then taken into the store.
public struct SessionEngine<Event: SessionEvent> {
    private let rules: [any SessionRule<Event>.Type]
    /// The rules by the profiles each reads events of (`SessionRule.observedProfiles`;
    /// empty: all).
    private let plan: ProfilePlan<any SessionRule<Event>.Type>
    /// Everything the session has shown, and the rules' verdict rows.
    public private(set) var store = Event.Store()

    public init(_ registered: [any SessionRule<Event>.Type], disabled: Set<RuleID> = []) {
        rules = registered.filter { !disabled.contains($0.descriptor.id) }
        plan = ProfilePlan(rules) { $0.observedProfiles }
    }

    public var isEmpty: Bool { rules.isEmpty }

    /// Judges `event` with every rule, then takes it into the store.
    public mutating func observe(_ event: Event, into out: inout SessionReports) {
        var event = event
        judge(&event, into: &out)
        store.update(with: event)
    }

    /// Sets the store up before the first event, as the session's owner asks (such as
    /// `MDNSSessionStore.followRecordTrails`).
    public mutating func configureStore(_ body: (inout Event.Store) -> Void) { body(&store) }

    /// Takes `event` (as `judge` returned it) into the store.
    public mutating func update(with event: Event) { store.update(with: event) }

    /// Judges `event` with every rule, without taking it in (`update(with:)` does; the end of
    /// the input is judged only). The store resolves the event in place first (an event is
    /// not copied: an SSDP event is close to a kilobyte), and `update` takes it so.
    public mutating func judge(_ event: inout Event, into out: inout SessionReports) {
        store.resolve(&event)
        let claimed = event.claimedProfiles
        let (candidates, tested) = plan.candidates(claiming: claimed)
        for k in candidates.indices where !tested || plan.element(k, appliesTo: claimed) {
            candidates[k].judge(event, in: &store, into: &out)
        }
    }

    /// Live capture's timer: what became certain by `now` (see `SessionRule`).
    public mutating func conclude(by now: Timestamp, into out: inout SessionReports) {
        for rule in rules { rule.conclude(by: now, in: &store, into: &out) }
    }

    public mutating func finish(into out: inout SessionReports) {
        for rule in rules { rule.finish(in: &store, into: &out) }
    }
}
