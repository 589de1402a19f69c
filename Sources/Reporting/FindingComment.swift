import Findings
import WireFormat

/// A finding as a pcapng packet comment (`analyze -w FILE.pcapng`, `capture -w FILE.pcapng`):
/// `DiscoScope: ` and the line the text report prints for the finding on its own (`-q`),
///
///     DiscoScope: frame 11 from 10.99.0.1: warning MDNS-501 probing: probing for h1-avahi.local.: … [RFC 6762 §8.1, §8.2] (frames 11, 10, 7, 5)
///
/// without colour, segment or line feed, so a Wireshark filter such as
/// `frame.comment contains "MDNS-501"` finds the packets, and the comment reads as the report
/// does (its frame numbers are the input's, as the report's are). The message is escaped as
/// for a terminal (`TerminalText`: control characters as `^M`, hidden ones as `M-…`), so the
/// comment is valid UTF-8 without control characters whatever packet text it quotes, and cut
/// to `maxMessageBytes` (ending in `…`), so one comment stays short.
public enum FindingComment {
    public static let prefix = "DiscoScope: "
    /// The most bytes of a finding's escaped message a comment keeps.
    public static let maxMessageBytes = 1024

    public static func text(_ finding: Finding) -> String {
        var f = finding
        // Escaping is idempotent: the line's own escaping leaves this text as it is.
        let escaped = TerminalText.escaped(f.message)
        if escaped.utf8.count > maxMessageBytes {
            var kept = String.UnicodeScalarView()
            var n = 0
            for s in escaped.unicodeScalars {
                let width = UTF8.width(s)
                if n + width > maxMessageBytes { break }
                n += width
                kept.append(s)
            }
            f.message = String(kept) + "…"
        } else {
            f.message = escaped
        }
        var line: [UInt8] = Array(prefix.utf8)
        let bound =
            64 + f.source.utf8.count + f.severity.rawValue.utf8.count + f.rule.rawValue.utf8.count
            + f.name.utf8.count + f.message.utf8.count + f.spec.utf8.count + 22 * f.frames.count
        withUnsafePointer(to: f) { fp in
            line.append(sizedFor: bound) { o in
                TextRenderer.writeFinding(fp, indent: 0, segment: "", frameDescription: true, color: false, into: &o)
            }
        }
        if line.last == 0x0A { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }
}
