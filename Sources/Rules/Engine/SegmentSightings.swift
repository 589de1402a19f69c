import NetLayers
import WireFormat

/// Where something the session models keep (a DNS-SD service instance, an SSDP device) first
/// appeared on each segment of a session of several: which source showed it there, in which
/// frame, when. The inventory's `forwarded` is made from it. Empty when the session names no
/// segments; at most `max` segments.
public struct SegmentSightings: Sendable {
    /// One segment's first appearance.
    public struct Sighting: Sendable {
        public var segment: UInt16
        public var source: IPAddress
        public var frame: Int
        public var time: Timestamp

        /// Earlier in time, or at the same time in an earlier frame. By time first: a pcapng
        /// file of several interfaces (dumpcap's) holds each interface's packets in time order
        /// but writes the interfaces' buffers in turn, so its frame order is not time order
        /// across segments.
        public func isBefore(_ o: Sighting) -> Bool { (time, frame) < (o.time, o.frame) }
    }

    /// The sightings, earliest first (`Sighting.isBefore`).
    public var inOrder: [Sighting] { all.sorted { $0.isBefore($1) } }

    public private(set) var all: [Sighting] = []

    public static let max = 8

    public init() {}

    /// Notes a message of `segment` (the unnamed segment 0 is not noted): kept when it is the
    /// first there, or earlier than the one kept (`merge` of several records' sightings).
    public mutating func note(on segment: UInt16, from source: IPAddress, frame: Int, time: Timestamp) {
        guard segment != 0 else { return }
        let s = Sighting(segment: segment, source: source, frame: frame, time: time)
        if let k = all.firstIndex(where: { $0.segment == segment }) {
            if s.isBefore(all[k]) { all[k] = s }
            return
        }
        guard all.count < Self.max else { return }
        all.append(Sighting(segment: segment, source: source, frame: frame, time: time))
    }

    /// Adds what `other` saw: per segment, the earlier appearance.
    public mutating func merge(_ other: SegmentSightings) {
        for s in other.all { note(on: s.segment, from: s.source, frame: s.frame, time: s.time) }
    }
}
