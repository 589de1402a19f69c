import Analyzer
import Findings
import NetLayers
import Reporting
import Rules
import WireFormat

/// Keeps what the analysis hands to reporters.
final class FindingCollector: Reporter {
    var findings: [Finding] = []
    var summary: RunSummary? = nil
    var isStreaming: Bool { true }
    func message(_ m: MessageRecord, findings f: [Finding]) { findings += f }
    func finding(_ f: Finding) { findings.append(f) }
    func finish(_ s: RunSummary) { summary = s }
}

/// Runs `datagrams` through the whole analysis (routing, the in-order stage, every rule) in
/// capture order, numbered as frames 1, 2, …, and returns every finding and the summary.
func analyse(_ datagrams: [Datagram]) -> (findings: [Finding], summary: RunSummary) {
    let collector = FindingCollector()
    let analysis = Analysis(reporter: collector)
    feed(datagrams, to: analysis)
    let summary = analysis.finish()
    return (collector.findings, summary)
}

/// Hands `datagrams` to `analysis` in order, numbered as frames 1, 2, ….
func feed(_ datagrams: [Datagram], to analysis: Analysis) {
    for (k, d) in datagrams.enumerated() {
        var numbered = d
        numbered.frame = k + 1
        analysis.datagram(numbered)
    }
}

/// Hands an example's packets to `analysis` in order, numbered as frames 1, 2, ….
func feed(_ packets: [ExamplePacket], to analysis: Analysis) {
    for (k, p) in packets.enumerated() {
        switch p {
        case .datagram(var d):
            d.frame = k + 1
            analysis.datagram(d)
        case .membership(var m):
            m.frame = k + 1
            analysis.membership(m)
        }
    }
}

/// Runs an example's packets through the whole analysis, as `analyse(_:)`, on a link of
/// `subnets` (as `--subnet` states them).
func analyse(
    _ packets: [ExamplePacket], subnets: LinkSubnets = LinkSubnets()
) -> (findings: [Finding], summary: RunSummary) {
    let collector = FindingCollector()
    let analysis = Analysis(reporter: collector, options: exampleOptions(subnets))
    feed(packets, to: analysis)
    let summary = analysis.finish()
    return (collector.findings, summary)
}

/// Findings on the last of `datagrams`, or made at the end of the input.
func findingsOnLast(_ datagrams: [Datagram]) -> [Finding] {
    findingsOnLast(datagrams.map { .datagram($0) })
}

/// The analysis options of an example on a link of `subnets`.
func exampleOptions(_ subnets: LinkSubnets) -> Analysis.Options {
    var o = Analysis.Options()
    if !subnets.isEmpty { o.subnets = ["": subnets] }
    return o
}

/// Findings on the last of `packets`, or made at the end of the input.
func findingsOnLast(_ packets: [ExamplePacket], subnets: LinkSubnets = LinkSubnets()) -> [Finding] {
    analyse(packets, subnets: subnets).findings.filter {
        $0.atEnd || $0.firstFrame == nil || $0.firstFrame == packets.count
    }
}

/// An example's findings on its last datagram, or at the end of the input; for a description
/// example (SSDP-6xx), the findings of its fetched description, reported through the analysis
/// after its datagrams as `probe` reports them.
func findingsOnLast(_ example: RuleExample) -> [Finding] {
    guard let input = example.description else { return findingsOnLast(example.packets, subnets: example.subnets) }
    let collector = FindingCollector()
    let analysis = Analysis(reporter: collector, options: exampleOptions(example.subnets))
    feed(example.packets, to: analysis)
    analysis.report(external: DescriptionChecks.run(input))
    _ = analysis.finish()
    return collector.findings
}

/// Every finding of an example: on any of its datagrams, at the end of the input, and of its
/// fetched description (SSDP-6xx).
func allFindings(_ example: RuleExample) -> [Finding] {
    example.description == nil ? analyse(example.packets, subnets: example.subnets).findings : findingsOnLast(example)
}

func ssdpFindings(_ datagrams: [Datagram]) -> [Finding] { findingsOnLast(datagrams) }
func mdnsFindings(_ d: Datagram) -> [Finding] { findingsOnLast([d]) }
