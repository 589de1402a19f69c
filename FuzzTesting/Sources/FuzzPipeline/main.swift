import Analyzer
import Findings
import Foundation
import FuzzCommon
import Glibc
import NetLayers
import Reporting
import Rules
import WireFormat

/// Every reporter at once behind one analysis (one pipeline per input, as the CLI runs one
/// reporter): each message and finding goes to all of them.
final class AllReporters: Reporter {
    var reporters: [any Reporter]
    /// The rules whose findings the reporters were given.
    var rules: Set<RuleID> = []
    init(_ reporters: [any Reporter]) { self.reporters = reporters }
    var isStreaming: Bool { true }
    func message(_ message: MessageRecord, findings: [Finding]) {
        for f in findings { rules.insert(f.rule) }
        for k in reporters.indices { reporters[k].message(message, findings: findings) }
    }
    func finding(_ finding: Finding) {
        rules.insert(finding.rule)
        for k in reporters.indices { reporters[k].finding(finding) }
    }
    func beginFile(_ index: Int, name: String) {
        for k in reporters.indices { reporters[k].beginFile(index, name: name) }
    }
    func finish(_ summary: RunSummary) {
        for k in reporters.indices { reporters[k].finish(summary) }
    }
}

/// One datagram from a piece: its first byte says who sent it where (SSDP multicast,
/// unicast response to a searcher, mDNS multicast or legacy unicast, IPv4 or IPv6, one of
/// eight hosts, the IP TTL), the rest is the UDP payload.
func datagram(_ piece: [UInt8], index: Int) -> Datagram? {
    guard let h = piece.first else { return nil }
    let payload = Array(piece.dropFirst())
    let v6 = h & 0x04 != 0
    let host = UInt32((h >> 3) & 0x07)
    let ttl: [UInt8] = [255, 1, 2, 64]
    let me: IPAddress = v6 ? .v6(0xFE80_0000_0000_0000, 0x10 + UInt64(host)) : .v4(0xC0A8_0114 + host)
    let searcher: IPAddress = v6 ? .v6(0xFE80_0000_0000_0000, 0x99) : .v4(0xC0A8_0163)
    let ssdpGroup: IPAddress = v6 ? .v6(0xFF02_0000_0000_0000, 0x0C) : .v4(0xEFFF_FFFA)
    let mdnsGroup: IPAddress = v6 ? .v6(0xFF02_0000_0000_0000, 0xFB) : .v4(0xE000_00FB)
    let (src, sport, dst, dport): (IPAddress, UInt16, IPAddress, UInt16)
    switch h & 0x03 | (h & 0x40) >> 4 {
    case 0: (src, sport, dst, dport) = (me, 1900, ssdpGroup, 1900)
    case 1: (src, sport, dst, dport) = (searcher, 50000, ssdpGroup, 1900)
    case 2: (src, sport, dst, dport) = (me, 1900, searcher, 50000)
    case 3: (src, sport, dst, dport) = (me, 5353, mdnsGroup, 5353)
    case 4: (src, sport, dst, dport) = (me, 40000, searcher, 50000)
    case 5: (src, sport, dst, dport) = (searcher, 50001, mdnsGroup, 5353)
    case 6: (src, sport, dst, dport) = (me, 5353, searcher, 50001)
    default: (src, sport, dst, dport) = (me, 5353, searcher, 5353)
    }
    // A third of a second apart: M-SEARCH windows, probe intervals and re-announcements
    // fall inside the sequence.
    let time = Timestamp(seconds: 1_700_000_000 + Int64(index / 3), nanoseconds: UInt32(index % 3) * 333_000_000)
    var d = Datagram(
        frame: index + 1, time: time, src: src, dst: dst, srcPort: sport, dstPort: dport,
        hopLimit: ttl[Int(h >> 7) * 2 + Int((h >> 5) & 1)], payload: payload,
        srcMAC: [0x02, 0, 0, 0, 0, UInt8(host)])
    // Some datagrams claim more payload than was captured (snap length).
    if h & 0x10 != 0 && index % 4 == 3 { d.udpPayloadLength = payload.count + 64 }
    return d
}

/// Strips DiscoScope's own colour sequences (`ESC [ digits m`) from text output (to show
/// text that failed `isSafeText`).
func withoutOwnColour(_ b: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(b.count)
    var i = 0
    while i < b.count {
        if b[i] == 0x1B, i + 1 < b.count, b[i + 1] == 0x5B {
            var j = i + 2
            while j < b.count, ASCII.isDigit(b[j]) { j += 1 }
            if j < b.count, b[j] == 0x6D, j > i + 2 {
                i = j + 1
                continue
            }
        }
        out.append(b[i])
        i += 1
    }
    return out
}

/// Whether text output is safe for a terminal once DiscoScope's own colour sequences
/// (`ESC [ digits m`) are set aside: each run of bytes between them must pass
/// `TerminalText.isSafe`. A run is judged on its own, so a colour sequence inside a UTF-8
/// sequence fails too. (In place: no copy of the text without its colours.)
func isSafeText(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = text.baseAddress else { return true }
    var runStart = 0
    var i = 0
    while i < text.count, let esc = memchr(base + i, 0x1B, text.count - i) {
        let j = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(esc))
        i = j + 1
        guard j + 1 < text.count, text[j + 1] == 0x5B else { continue }
        var k = j + 2
        while k < text.count, ASCII.isDigit(text[k]) { k += 1 }
        guard k < text.count, text[k] == 0x6D, k > j + 2 else { continue }
        if !TerminalText.isSafe(UnsafeBufferPointer(rebasing: text[runStart..<j])) { return false }
        runStart = k + 1
        i = k + 1
    }
    return TerminalText.isSafe(UnsafeBufferPointer(rebasing: text[runStart...]))
}

func checkJSON(_ bytes: [UInt8], _ what: String, secondOpinion: Bool) {
    if let f = JSONCheck.failure(bytes) {
        FuzzInput.fail("\(what) is not JSON (\(f)): \(String(decoding: bytes.prefix(300), as: UTF8.self))")
    }
    if secondOpinion && !JSONCheck.foundationReads(bytes[...]) {
        FuzzInput.fail("\(what) passes JSONCheck but Foundation does not read it")
    }
}

func checkJSONLines(_ bytes: [UInt8], secondOpinion: Bool) {
    if let (line, f) = bytes.withUnsafeBufferPointer({ JSONCheck.linesFailure($0) }) {
        FuzzInput.fail("JSON line \(line) is not JSON (\(f))")
    }
    if secondOpinion {
        for line in bytes.split(separator: 0x0A) where !JSONCheck.foundationReads(line) {
            FuzzInput.fail("a JSON line passes JSONCheck but Foundation does not read it")
        }
    }
}

/// JUnit XML carries no character XML 1.0 forbids: no C0 control but tab, LF and CR, and no
/// U+FFFE or U+FFFF (`EF BF BE`, `EF BF BF`).
func checkJUnit(_ bytes: [UInt8]) {
    for (k, b) in bytes.enumerated() {
        if b < 0x20 && b != 0x0A && b != 0x09 && b != 0x0D { FuzzInput.fail("JUnit XML carries control byte \(b)") }
        if b == 0xEF && k + 2 < bytes.count && bytes[k + 1] == 0xBF && (bytes[k + 2] == 0xBE || bytes[k + 2] == 0xBF) {
            FuzzInput.fail("JUnit XML carries U+FFFE or U+FFFF")
        }
    }
}

/// The HTML report keeps wire text inside its data block: between the block's opening tag and
/// its end there is no `<` (so no `</script>`, `<!--` or tag) and no U+2028/U+2029, and the
/// page has exactly two script ends (the data block's and its own script's).
func checkHTML(_ bytes: [UInt8]) {
    let open = Array(#"<script type="application/json" id="ds-data">"#.utf8)
    let close = Array("</script>".utf8)
    func find(_ needle: [UInt8], from: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var k = from
        while k + needle.count <= bytes.count {
            if bytes[k] == needle[0] && Array(bytes[k..<(k + needle.count)]) == needle { return k }
            k += 1
        }
        return nil
    }
    guard let start = find(open, from: 0), let end = find(close, from: start + open.count) else {
        FuzzInput.fail("HTML report without its data block")
        return
    }
    for k in (start + open.count)..<end {
        if bytes[k] == 0x3C { FuzzInput.fail("HTML data block carries '<' at byte \(k)") }
        if bytes[k] == 0xE2 && k + 2 < end && bytes[k + 1] == 0x80 && (bytes[k + 2] == 0xA8 || bytes[k + 2] == 0xA9) {
            FuzzInput.fail("HTML data block carries U+2028 or U+2029")
        }
    }
    var ends = 0
    var at = 0
    while let k = find(close, from: at) {
        ends += 1
        at = k + close.count
    }
    if ends != 2 { FuzzInput.fail("HTML report has \(ends) script ends") }
}

/// The file name every input is reported under: a terminal escape and a BEL in it must come
/// out escaped.
let fileName = "fuzz\u{1B}]0;input\u{07}.pcap"

/// The rule catalog in SARIF (`tool.driver.rules`) and JUnit (a test case per rule), as the
/// CLI writes it for a run with every rule enabled: the catalog's text does not depend on
/// the input, so it is checked once, here, and each input's reports list the rules that
/// found something in it.
func checkCatalogReports() {
    var s = RunSummary()
    s.files = [fileName]
    s.rulesChecked = RuleCatalog.all
    let sarif = MemorySink()
    let junit = MemorySink()
    SARIFReporter(sink: sarif, toolVersion: "fuzz").finish(s)
    JUnitReporter(sink: junit).finish(s)
    checkJSON(sarif.bytes, "SARIF of the rule catalog", secondOpinion: true)
    checkJUnit(junit.bytes)
}

/// The whole per-packet pipeline through the analyzer's public API: SSDP and mDNS decoding,
/// every rule (the session rules over the sequence of datagrams), every reporter. Text
/// output may hold no control byte but line feeds and DiscoScope's own colours, every JSON
/// line and the SARIF document are JSON (`JSONCheck`; for one input in 64, chosen by its
/// bytes, Foundation reads them too), and JUnit XML carries no character XML 1.0 forbids.
/// SARIF and JUnit list the rules that found something as checked (JUnit then has a test
/// case, failed or with output, for each), with a `--fail-on` threshold that depends on the
/// input.
func fuzzPipeline(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let text = MemorySink()
    let quiet = MemorySink()
    let jsonl = MemorySink()
    let sarif = MemorySink()
    let junit = MemorySink()
    let html = MemorySink()
    var verbose = TextReporter.Options()
    verbose.verbose = true
    verbose.color = true
    // tcpdump's -X, -A, -e and -tttt: payload dumps and sender MACs are packet text too.
    verbose.hexDump = true
    verbose.asciiDump = true
    verbose.showMAC = true
    verbose.timeStyle = .date
    var q = TextReporter.Options()
    q.quiet = true
    let all = AllReporters([
        TextReporter(sink: text, options: verbose), TextReporter(sink: quiet, options: q),
        JSONLinesReporter(sink: jsonl),
        SARIFReporter(sink: sarif, toolVersion: "fuzz"), JUnitReporter(sink: junit),
        HTMLReporter(sink: html, files: [fileName], toolVersion: "fuzz"),
    ])
    var options = Analysis.Options()
    options.verbose = true
    options.messageFields = true
    options.findingDetails = true
    options.jobs = 1
    options.recordMAC = true
    options.recordPayload = true
    let analysis = Analysis(reporter: all, options: options)
    // As `Analysis.run` does for each file: SARIF names each result's file from here.
    all.beginFile(0, name: fileName)
    for (k, piece) in FuzzInput.pieces(input).enumerated() {
        if let d = datagram(piece, index: k) { analysis.datagram(d) }
    }
    let failOn: [Severity?] = [.error, .warning, .info, nil]
    _ = analysis.finish {
        $0.files = [fileName]
        $0.rulesChecked = RuleCatalog.all.filter { all.rules.contains($0.id) }
        $0.failOn = failOn[count % failOn.count]
    }

    for (name, sink) in [("text", text), ("quiet text", quiet)]
    where !sink.bytes.withUnsafeBufferPointer({ isSafeText($0) }) {
        let plain = withoutOwnColour(sink.bytes)
        FuzzInput.fail(
            "\(name) output carries a control byte: \(String(decoding: plain, as: UTF8.self).debugDescription)")
    }
    if !jsonl.bytes.withUnsafeBufferPointer({ TerminalText.isSafe($0) }) {
        FuzzInput.fail("JSON lines carry a control byte")
    }
    let secondOpinion = input.contentHash % 64 == 0
    checkJSONLines(jsonl.bytes, secondOpinion: secondOpinion)
    checkJSON(sarif.bytes, "SARIF", secondOpinion: secondOpinion)
    checkJUnit(junit.bytes)
    checkHTML(html.bytes)
    return 0
}

/// libFuzzer's own `main` (linked with the fuzzer runtime) looks for this symbol.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt { fuzzPipeline(start, count) }

JSONCheck.selfTest()
checkCatalogReports()
runFuzzer { fuzzPipeline($0, $1) }
