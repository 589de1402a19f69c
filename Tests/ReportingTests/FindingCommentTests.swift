import Findings
import Reporting
import Testing
import WireFormat

private let descriptor = RuleDescriptor(
    id: "SSDP-005", name: "header-syntax", title: "Headers are NAME: value", severity: .error, proto: .ssdp,
    spec: "UDA 1.1 §1.1.2", description: "Each header line is a name, a colon and a value.", example: "NT uuid:1")

private func finding(_ message: String) -> Finding {
    Finding(
        descriptor: descriptor, frame: 12, related: [9], time: Timestamp(seconds: 1_700_000_000, nanoseconds: 0),
        message: message, source: "10.0.0.5")
}

/// `-w FILE.pcapng`: the packet comment of a finding (`FindingComment`).
@Suite struct FindingCommentTests {
    @Test func aCommentIsDiscoScopeAndTheTextReportsLineOfTheFinding() {
        #expect(
            FindingComment.text(finding("header 3 has no colon"))
                == "DiscoScope: frame 12 from 10.0.0.5: error SSDP-005 header-syntax: header 3 has no colon [UDA 1.1 §1.1.2] (frames 12, 9)"
        )
    }

    @Test func packetTextInTheMessageIsEscapedToPrintableUTF8() {
        let text = FindingComment.text(finding("SERVER: a\r\nb\u{1B}[31mred\u{202E}x é"))
        #expect(text.contains("a^M^Jb^[[31mred"))
        #expect(text.contains("x é"))
        #expect(
            !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || TerminalText.isHidden($0.value) })
    }

    @Test func aLongMessageIsCutAtACharacterAndTheRestOfTheLineKept() {
        let long = String(repeating: "é", count: 3000) + "\u{7}"
        let text = FindingComment.text(finding(long))
        let message = FindingComment.maxMessageBytes
        #expect(text.utf8.count <= message + 200)
        #expect(text.contains("é…") && text.hasSuffix("… [UDA 1.1 §1.1.2] (frames 12, 9)"))
        #expect(!text.contains("^G"))
    }
}
