import NetLayers
import WireFormat

// The keys of the mDNS rules' verdict rows (`MDNSVerdicts`) hash as words, like the model's
// keys (`WordHashable`): their tables are looked up for each record of a response.

extension MDNSRecordKey: WordHashable {
    func feedWords<S: WordSink>(into sink: inout S) {
        set.feedWords(into: &sink)
        sink.add(rdata)
    }
}

extension WholeRRSetRule.Key: WordHashable {
    func feedWords<S: WordSink>(into sink: inout S) {
        source.feedWords(into: &sink)
        set.feedWords(into: &sink)
    }
}

extension PeriodicAnnouncementRule.Key: WordHashable {
    func feedWords<S: WordSink>(into sink: inout S) {
        source.feedWords(into: &sink)
        record.feedWords(into: &sink)
    }
}

extension UpdateRateRule.Key: WordHashable {
    func feedWords<S: WordSink>(into sink: inout S) {
        set.feedWords(into: &sink)
        source.feedWords(into: &sink)
    }
}
