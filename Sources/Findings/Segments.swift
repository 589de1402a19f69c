/// The segments (links) of a run: several capture files that are segments of one network
/// (`analyze --segments`), the interfaces of a pcapng file, or those of a live capture on
/// several interfaces. Records and findings carry a small index (`MessageRecord.segment`,
/// `Finding.segment`); this is the table of names it indexes.
///
/// Index 0 is the unnamed segment of every source that has one link only (a plain capture
/// file, a capture on one interface): it is never shown, so the output of such a run is what
/// it was before segments existed. Names are only ever appended (an index keeps its name for
/// the whole run), so a copy made earlier names every index that existed then.
public enum Segments {
    /// Named segments a run holds at most (the index is 16 bits; a source cannot name more
    /// than a few thousand: `PcapNGReader.maxInterfaces`).
    public static let maxNamed = Int(UInt16.max)

    /// The name of segment `index` in `names` (the run's table, index 0 the unnamed one); nil
    /// for the unnamed segment or an index the table does not hold.
    @inlinable
    public static func name(_ index: UInt16, in names: [String]) -> String? {
        guard index != 0, Int(index) < names.count else { return nil }
        return names[Int(index)]
    }
}
