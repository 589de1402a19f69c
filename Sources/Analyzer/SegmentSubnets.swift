import NetLayers

/// The subnets each segment of the run is known to have (`Analysis.Options.subnets`, by
/// segment name), looked up by the segment index a datagram carries: the table by index is
/// made again only when the run has named more segments.
struct SegmentSubnets: Sendable {
    private let byName: [String: LinkSubnets]
    private var byIndex: [LinkSubnets] = []
    private var namesSeen = 0

    init(_ byName: [String: LinkSubnets]) {
        self.byName = byName
        byIndex = [byName[""] ?? LinkSubnets()]
    }

    /// Takes the run's segment names (index 0 the unnamed segment); the table only grows.
    mutating func use(_ names: [String]) {
        guard !byName.isEmpty, names.count > namesSeen else { return }
        namesSeen = names.count
        byIndex = names.map { byName[$0] ?? LinkSubnets() }
    }

    /// The subnets of the segment at `index` (none known: empty).
    subscript(index: UInt16) -> LinkSubnets {
        Int(index) < byIndex.count ? byIndex[Int(index)] : LinkSubnets()
    }
}
