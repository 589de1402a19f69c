import Findings
import NetLayers
import WireFormat

/// What every rule declares: its catalog entry and executable examples.
///
/// A rule is one type. Its kind says what it may look at, and so how the engine may run it:
/// - `MessageRule`: one message alone. Its findings depend on the payload bytes only, so the
///   engine may keep them and report them again for a datagram repeating the payload.
/// - `DatagramRule`: one message in its datagram (addresses, ports, hop limit, truncation).
/// - `SessionRule`: messages across packets, observed in capture order, with state of its own.
///
/// Adding a rule is one new type in its family's file and one line in `RuleRegistry`.
public protocol Rule: Sendable {
    /// ID, name, severity, spec reference, interop note: what reports print.
    static var descriptor: RuleDescriptor { get }
    /// Inputs that must raise the rule and near misses that must not. The generated tests
    /// run every example through the whole analysis, so a rule cannot exist without them.
    static var examples: RuleExamples { get }
    /// Whether the rule concludes from what a message lacks (a required header, the SRV of an
    /// announced instance). Such a rule cannot judge a datagram the capture's snap length cut
    /// short, and the engine does not run it there.
    static var needsWholeMessage: Bool { get }
}

extension Rule {
    public static var needsWholeMessage: Bool { false }
}

/// A rule judged from one message alone (see `Rule`). `Message` holds no datagram.
public protocol MessageRule<Message>: Rule {
    associatedtype Message
    static func check(_ message: Message, into out: inout FindingSink)
}

/// A rule judged from one message and the datagram that carried it.
public protocol DatagramRule<Input>: Rule {
    associatedtype Input
    static func check(_ input: Input, into out: inout FindingSink)
}

/// An event of a protocol's session, and the store that keeps the session's state.
public protocol SessionEvent {
    associatedtype Store: SessionStore where Store.Event == Self
    /// The service profiles the event's message claims (`MDNSMessageView.claimedProfiles`):
    /// a rule of other profiles (`RuleDescriptor.profiles`) has nothing in it to judge, and
    /// the engine does not call it. Every profile by default.
    var claimedProfiles: ServiceProfiles { get }
}

extension SessionEvent {
    public var claimedProfiles: ServiceProfiles { ServiceProfiles(rawValue: .max) }
}

/// All of a protocol's session state, in one place: the entities the capture has shown
/// (hosts, services, records, devices, searches), the windows several rules read (the
/// queries of the last second), and what each rule still has to decide about them (its
/// verdict rows). Rules read the store and keep their verdict state in it; the store alone
/// takes events in (`update(with:)`, after the rules judged them), bounds every table with
/// one policy and counts what it evicted.
public protocol SessionStore {
    associatedtype Event
    init()
    /// Settles, once per event and before any rule judges it, what the event is to the
    /// session as it stands (identities, roles) and records it in the event, so rules read it
    /// instead of each deriving it again. Nothing to settle by default.
    func resolve(_ event: inout Event)
    /// Takes in one event after the rules judged it: rules see the store as it was before.
    mutating func update(with event: Event)
    /// Table entries dropped because their table was full (the summary's `state_evicted`).
    var evicted: Int { get }
}

/// A rule judged across packets. A session rule has no state of its own (its type is empty,
/// which a test checks): it is its descriptor, its examples and `judge`, which the engine
/// calls for every event of its protocol in capture order with the session store as it was
/// before the event. What the rule still has to decide it keeps in the store's verdict rows
/// for it, which the store bounds and evicts like every other table. `finish` runs at the end
/// of the input; reports name the frames they are about.
///
/// Live capture also calls `conclude(by:)` from a timer while packets may still come: a rule
/// whose conclusion waits for a deadline (a continuation that must follow within 0.5 s, an
/// initial announcement that must be repeated within seconds) reports what became certain
/// by `now`, as it would at the end of the input, and forgets it, so `finish` does not
/// report it again. Offline, the end of the input is the only such moment.
extension SessionStore {
    public func resolve(_ event: inout Event) {}
}

public protocol SessionRule<Event>: Rule {
    associatedtype Event: SessionEvent
    static func judge(_ event: Event, in store: inout Event.Store, into out: inout SessionReports)
    static func conclude(by now: Timestamp, in store: inout Event.Store, into out: inout SessionReports)
    static func finish(in store: inout Event.Store, into out: inout SessionReports)
    /// The profiles an event must claim for the rule to read it (`SessionEvent
    /// .claimedProfiles`; empty: every event): its descriptor's, unless it joins an
    /// instance's claim with records that other messages bring.
    static var observedProfiles: ServiceProfiles { get }
}

extension SessionRule {
    public static func conclude(by now: Timestamp, in store: inout Event.Store, into out: inout SessionReports) {}
    public static func finish(in store: inout Event.Store, into out: inout SessionReports) {}
    public static var observedProfiles: ServiceProfiles { descriptor.profiles }
}

/// What session rules concluded on one event: reported with the findings of the message
/// that revealed them (the current one), naming the related frames. At the end of the input
/// (`finish`), reports name all their frames, the one that shows the violation first, and
/// carry that frame's time and source.
public struct SessionReports: Sendable {
    public struct Report: Sendable {
        public var descriptor: RuleDescriptor
        public var severity: Severity?
        public var message: String
        public var related: [Int]
        /// Concluded at the end of the input: `related` is all of its frames.
        public var atEnd = false
        public var time: Timestamp = .zero
        public var source: IPAddress = .v4(0)
        /// The device it is about (SSDP `uuid:…`), for an end-of-input report.
        public var device: String? = nil
        /// The service profile of the instance it is about (a PROF rule's report).
        public var profile: ServiceProfile? = nil
        /// The instance it is about (`Finding.profileInstance`).
        public var instance: UInt64 = 0
    }
    public private(set) var reports: [Report] = []
    /// Verdict rows the rules' tables in the store dropped because a table was full.
    public internal(set) var evictions = 0
    public init() {}

    public var isEmpty: Bool { reports.isEmpty }

    public mutating func report(
        _ descriptor: RuleDescriptor, severity: Severity? = nil, _ message: String, related: [Int],
        profile: ServiceProfile? = nil, instance: UInt64 = 0
    ) {
        reports.append(
            Report(
                descriptor: descriptor, severity: severity, message: message, related: related, profile: profile,
                instance: instance))
    }

    /// A conclusion of the end of the input about `frames` (the first shows it), which the
    /// packet of `time` from `source` showed first.
    public mutating func reportAtEnd(
        _ descriptor: RuleDescriptor, severity: Severity? = nil, _ message: String, frames: [Int], time: Timestamp,
        source: IPAddress, device: String? = nil, profile: ServiceProfile? = nil, instance: UInt64 = 0
    ) {
        reports.append(
            Report(
                descriptor: descriptor, severity: severity, message: message, related: frames, atEnd: true, time: time,
                source: source, device: device, profile: profile, instance: instance))
    }

    /// A rule dropped `n` entries of its state because its table was full.
    public mutating func evicted(_ n: Int = 1) { evictions &+= n }

    public mutating func removeAll() { reports.removeAll(keepingCapacity: true) }

    /// Adds what `other` reported (not its evictions, which its taker counted).
    public mutating func append(contentsOf other: SessionReports) { reports += other.reports }
}
