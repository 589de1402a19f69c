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

/// Runs one protocol's stateless rules: the only code that picks the enabled rules, calls
/// them in registry order, and replays what message rules found in an earlier datagram with
/// the same payload. Each worker thread has its own copy.
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
    /// in `enabled` (findings are replayed in the same places among the others).
    public struct Kept: Sendable {
        var position: Int
        var finding: Finding
    }

    /// The registered rules that are not disabled, in registry order. Fixed for the run:
    /// kept findings always come from the same list.
    public let enabled: [Entry]
    /// Each enabled rule's profiles (`RuleDescriptor.profiles`; empty for a rule of none).
    private let profiles: [ServiceProfiles]
    /// `enabled` without the rules that need the whole message, for truncated datagrams.
    private let enabledWhenCut: [Entry]
    private let profilesWhenCut: [ServiceProfiles]

    public init(_ registered: [Entry], disabled: Set<RuleID> = []) {
        enabled = registered.filter { !disabled.contains($0.rule.descriptor.id) }
        profiles = enabled.map { $0.rule.descriptor.profiles }
        enabledWhenCut = enabled.filter { !$0.rule.needsWholeMessage }
        profilesWhenCut = enabledWhenCut.map { $0.rule.descriptor.profiles }
    }

    /// Runs every enabled rule on `input` (on a truncated one, those that can judge it).
    public func run(_ input: Input, into sink: inout FindingSink) {
        let cut = input.isTruncated
        let rules = cut ? enabledWhenCut : enabled
        let of = cut ? profilesWhenCut : profiles
        let claimed = input.claimedProfiles
        for k in rules.indices where applies(of[k], claimed) {
            switch rules[k] {
            case .message(let r): r.check(input.view, into: &sink)
            case .datagram(let r): r.check(input, into: &sink)
            }
        }
    }

    /// Runs every enabled rule on `input`, keeping what message rules found (for `replay`).
    /// Only for a whole datagram: what was found in a truncated one is not worth keeping.
    public func run(_ input: Input, keeping kept: inout [Kept], into sink: inout FindingSink) {
        let claimed = input.claimedProfiles
        for k in enabled.indices where applies(profiles[k], claimed) {
            switch enabled[k] {
            case .message(let r):
                let before = sink.findings.count
                r.check(input.view, into: &sink)
                for f in before..<sink.findings.count { kept.append(Kept(position: k, finding: sink.findings[f])) }
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
        let claimed = input.claimedProfiles
        for k in enabled.indices {
            switch enabled[k] {
            case .message:
                while next < kept.count, kept[next].position == k {
                    sink.repeatFinding(kept[next].finding)
                    next += 1
                }
            case .datagram(let r):
                if applies(profiles[k], claimed) { r.check(input, into: &sink) }
            }
        }
    }
}

/// Runs one protocol's session rules over its events in capture order, and owns the
/// protocol's session store: each event is judged by every enabled rule in registry order
/// with the store as it was before the event, then taken into the store.
public struct SessionEngine<Event: SessionEvent> {
    private let rules: [any SessionRule<Event>.Type]
    /// The profiles each rule reads events of (`SessionRule.observedProfiles`; empty: all).
    private let profiles: [ServiceProfiles]
    /// Everything the session has shown, and the rules' verdict rows.
    public private(set) var store = Event.Store()

    public init(_ registered: [any SessionRule<Event>.Type], disabled: Set<RuleID> = []) {
        rules = registered.filter { !disabled.contains($0.descriptor.id) }
        profiles = rules.map { $0.observedProfiles }
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
        for k in rules.indices where applies(profiles[k], claimed) {
            rules[k].judge(event, in: &store, into: &out)
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
