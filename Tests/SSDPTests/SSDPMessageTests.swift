import SSDP
import TestSupport
import Testing

private let notify = Array(
    ("NOTIFY * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nCACHE-CONTROL: max-age = 1800\r\n"
        + "NT: upnp:rootdevice\r\nNTS: ssdp:alive\r\nSERVER: Linux/6.1 UPnP/1.1 x/1\r\n"
        + "USN: uuid:4d696e69-444c-164e-9d41-b827eb000001::upnp:rootdevice\r\n\r\n").utf8)

@Suite struct SSDPMessageTests {
    @Test func notifyAliveIsTyped() {
        let m = SSDPMessage(parsing: notify)
        #expect(m.kind == .notify)
        #expect(m.notificationSubtype == .alive)
        #expect(m.headers.count == 6)
        #expect(m.maxAge == 1800)
        #expect(m.claimedUPnPVersion == .v1_1)
        #expect(m.usnUUID.map { Array($0) } == Array("4d696e69-444c-164e-9d41-b827eb000001".utf8))
        #expect(m.usnType.map { Array($0) } == Array("upnp:rootdevice".utf8))
        #expect(m.anomalies.isEmpty)
    }

    /// The one-scan split of a USN (what the decoding's facts keep) reads its UUID and type as
    /// `uuid(inUSN:)` and `suffix(ofUSN:)` do, `uuid::` and a USN without `uuid:` included.
    @Test func splittingAUSNAgreesWithReadingItsUUIDAndTypeApart() {
        let usns = [
            "uuid:4d69::upnp:rootdevice", "uuid:4d69", "UUID:4d69::urn:x:device:y:1", "uuid::abc", "uuid::abc::def",
            "uuid:::x", "abc::def", "abc", "uuid:", "uuid:a::", "::", "uuid:a:b::c::d",
        ]
        for text in usns {
            let usn = ArraySlice(Array(text.utf8))
            let parts = SSDPSyntax.split(usn: usn)
            #expect(parts.uuid.map { Array($0) } == SSDPSyntax.uuid(inUSN: usn).map { Array($0) }, "\(text)")
            #expect(parts.type.map { Array($0) } == SSDPSyntax.suffix(ofUSN: usn).map { Array($0) }, "\(text)")
        }
    }

    /// The sub-kind comes from the first NTS, exactly as written; only a NOTIFY has one.
    @Test func notificationSubtypeIsReadFromTheFirstNTS() {
        let cases: [(String, SSDPMessage.NotificationSubtype?)] = [
            ("NOTIFY * HTTP/1.1\r\nNTS: ssdp:byebye\r\nNTS: ssdp:alive\r\n", .byebye),
            ("NOTIFY * HTTP/1.1\r\nnts:ssdp:update\r\n", .update), ("NOTIFY * HTTP/1.1\r\nNTS: SSDP:ALIVE\r\n", .other),
            ("NOTIFY * HTTP/1.1\r\nNT: ssdp:alive\r\n", .other),
            ("HTTP/1.1 200 OK\r\nNTS: ssdp:alive\r\n", nil), ("M-SEARCH * HTTP/1.1\r\nNTS: ssdp:alive\r\n", nil),
        ]
        for (text, subtype) in cases {
            #expect(SSDPMessage(parsing: Array((text + "\r\n").utf8)).notificationSubtype == subtype, "\(text)")
        }
    }

    /// max-age is found among other CACHE-CONTROL directives, with spaces and quotes around
    /// its value; a max-age without `=` ends the search; empty directives are skipped.
    @Test func maxAgeAmongCacheControlDirectives() {
        let cases: [(String, UInt64?)] = [
            ("max-age=1800", 1800), ("no-cache, max-age = \"60\"", 60), (",,private,,max-age=5,", 5),
            ("no-cache", nil), ("max-age, max-age=10", nil), ("MAX-AGE=7", 7), ("", nil), ("max-age=", nil),
        ]
        for (value, expected) in cases {
            #expect(SSDPSyntax.maxAge(in: ArraySlice(value.utf8)) == expected, "\(value)")
        }
    }

    @Test func headerNamesMatchCaseInsensitivelyAndKeepTheirCase() {
        let m = SSDPMessage(parsing: Array("M-SEARCH * HTTP/1.1\r\nst: ssdp:all\r\nMx: 3\r\nST: dup\r\n\r\n".utf8))
        #expect(m.kind == .mSearch)
        #expect(m.value(.st).map { Array($0) } == Array("ssdp:all".utf8))
        #expect(m.count(.st) == 2)
        #expect(m.mx == 3)
        #expect(m.headers.first.map { Array(m.name(of: $0)) } == Array("st".utf8))
    }

    /// A message repeats a known name exactly when `count` says so for one of them; unknown
    /// names do not count.
    @Test func repeatedKnownNamesAreSeenAtOnce() {
        let cases: [(String, Bool)] = [
            ("st: a\r\nMx: 3\r\nST: dup\r\n", true), ("ST: a\r\nMX: 3\r\n", false),
            ("X-A: 1\r\nx-a: 2\r\nST: a\r\n", false), ("ST: a\r\n b\r\nnocolon\r\nnocolon\r\n", false),
            ("", false),
        ]
        for (headers, repeats) in cases {
            let m = SSDPMessage(parsing: Array(("M-SEARCH * HTTP/1.1\r\n" + headers + "\r\n").utf8))
            #expect(m.repeatsAKnownName == repeats, "\(headers)")
            #expect(SSDPHeaderName.known.contains { m.count($0) > 1 } == repeats, "\(headers)")
        }
    }

    /// A folded line continues the previous header's value, or the previous line itself when
    /// that line had no colon (it has no value to continue).
    @Test func foldedLinesContinueThePreviousHeaderOrLine() {
        let m = SSDPMessage(
            parsing: Array("NOTIFY * HTTP/1.1\r\nSERVER: a\r\n b\r\nGarbage\r\n more\r\nNT: x\r\n\r\n".utf8))
        #expect(m.anomalies.contains { $0.kind == .obsoleteLineFolding })
        #expect(m.headers.count == 3)
        #expect(m.value(.server).map { Array($0) } == Array("a\r\n b".utf8))
        #expect(m.headers[1].missingColon)
        #expect(Array(m.name(of: m.headers[1])) == Array("Garbage\r\n more".utf8))
        #expect(m.value(of: m.headers[1]).isEmpty)
        #expect(m.value(.nt).map { Array($0) } == Array("x".utf8))
    }

    @Test func bareLFMissingBlankLineAndBodyAreDecodedAndNoted() {
        let m = SSDPMessage(parsing: Array("HTTP/1.1 200 OK\nST: upnp:rootdevice\nEXT:\n\nbody".utf8))
        #expect(m.kind == .response)
        #expect(m.statusCode == 200)
        #expect(m.value(.st) != nil)
        #expect(m.value(.ext)?.isEmpty == true)
        #expect(m.anomalies.contains { $0.kind == .bareLF })
        #expect(m.anomalies.contains { $0.kind == .body })
        let cut = SSDPMessage(parsing: Array("NOTIFY * HTTP/1.1\r\nNT: a\r\n".utf8))
        #expect(cut.anomalies.contains { $0.kind == .missingBlankLine })
    }

    @Test func otherStartLinesAreKept() {
        let m = SSDPMessage(parsing: Array("SUBSCRIBE * HTTP/1.1\r\n\r\n".utf8))
        #expect(m.kind == .other)
        #expect(Array(m.startLine) == Array("SUBSCRIBE * HTTP/1.1".utf8))
    }

    /// Every proper prefix of a valid message decodes without trapping (drip feed).
    @Test func everyPrefixDecodes() {
        for n in 0..<notify.count {
            let m = SSDPMessage(parsing: Array(notify.prefix(n)))
            #expect(m.headers.count <= 6)
        }
    }

    /// Seeded random bytes (and random header-like text) never trap; header count is bounded.
    @Test func randomInputNeverTraps() {
        var rng = SplitMix64(seed: 0x5eed)
        func next() -> UInt64 { rng.next() }
        let alphabet = Array("AZaz09:\r\n \t\"-./".utf8) + [0x00, 0xFF, 0xC3]
        for _ in 0..<3000 {
            let n = Int(next() % 600)
            let bytes = (0..<n).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
            let m = SSDPMessage(parsing: bytes)
            #expect(m.headers.count <= SSDPMessage.maxHeaders)
        }
        let many = Array(("NOTIFY * HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 5000) + "\r\n").utf8)
        let m = SSDPMessage(parsing: many)
        #expect(m.headers.count == SSDPMessage.maxHeaders)
        #expect(m.anomalies.contains { $0.kind == .tooManyHeaders })
    }

    /// Header names are matched to the known ones by length first; every known name must
    /// still be found in any case, and a same-length stranger must not.
    @Test func everyKnownHeaderNameGetsItsCodeInAnyCase() {
        for (k, name) in SSDPHeaderName.known.enumerated() {
            #expect(Int(name.code) == k + 1)
            let upper = Array(name.bytes)
            let lower = upper.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            #expect(SSDPHeaderName.code(of: upper[...]) == name.code, "\(name.text)")
            #expect(SSDPHeaderName.code(of: lower[...]) == name.code, "\(name.text)")
            var other = upper
            other[other.count - 1] = 0x5F  // `_`: in no known name
            #expect(SSDPHeaderName.code(of: other[...]) == 0, "\(name.text)")
        }
        #expect(SSDPHeaderName.code(of: Array("X-USER-AGENT-EXTENDED-HEADER-NAME-LONGER-THAN-32".utf8)[...]) == 0)
        #expect(SSDPHeaderName.code(of: [UInt8]()[...]) == 0)
    }

    /// The token bit set is RFC 9110's tchar, byte for byte.
    @Test func tokenBytesAreRFC9110TChar() {
        let tchar = Set(Array("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8))
        for b in 0...255 {
            #expect(SSDPSyntax.isTokenByte(UInt8(b)) == tchar.contains(UInt8(b)), "byte \(b)")
        }
    }
}

/// The start-line check of the reading thread's multicast stage must tell what the full
/// decoding tells: the same kind.
@Suite struct SSDPStartLineKindTests {
    static func agree(_ bytes: [UInt8], _ note: String) {
        let m = SSDPMessage(parsing: bytes)
        // Checked inside a bigger buffer, as the reading thread does (the payload in its frame).
        let frame: [UInt8] = [0xAA, 0x0D, 0x0A] + bytes + [0x0D, 0x0A, 0x0D, 0x0A]
        #expect(SSDPMessage.kind(ofStartLineIn: frame, 3..<(3 + bytes.count)) == m.kind, "\(note)")
    }

    @Test func findsWhatTheDecodingFinds() {
        let cases: [(String, String)] = [
            ("plain", "NOTIFY * HTTP/1.1\r\nSERVER: a UPnP/1.1 b\r\nUSN: uuid:x::y\r\nNTS: ssdp:update\r\n\r\n"),
            (
                "lower-case names, spaces",
                "m-search * HTTP/1.1\r\nst :  ssdp:all \r\nmx:\t3\r\nuser-agent: UPnP/2.0\r\n\r\n"
            ),
            ("folded values", "HTTP/1.1 200 OK\r\nSERVER: a\r\n UPnP/1.1\r\n\tmore\r\nST: x\r\n\r\n"),
            ("folding onto a line without colon", "NOTIFY * HTTP/1.1\r\nSERVER: a\r\nnocolon\r\n UPnP/1.1\r\n\r\n"),
            (
                "duplicates: the first counts",
                "NOTIFY * HTTP/1.1\r\nNTS: ssdp:alive\r\nNTS: ssdp:byebye\r\nSERVER:\r\nSERVER: x\r\n\r\n"
            ),
            ("a fold after a later duplicate", "NOTIFY * HTTP/1.1\r\nUSN: a\r\nUSN: b\r\n c\r\n\r\n"),
            ("bare LF and CR", "NOTIFY * HTTP/1.1\nSERVER: UPnP/1.0\rUSN: uuid:1\n\n"),
            ("leading empty lines, no blank line", "\r\n\r\nHTTP/1.1 200 OK\r\nST: a:b"),
            ("headers after the blank line", "NOTIFY * HTTP/1.1\r\n\r\nSERVER: UPnP/1.1\r\n"),
            ("empty values", "M-SEARCH * HTTP/1.1\r\nMX:\r\nST:\r\n\r\n"),
            ("other start lines", "GET / HTTP/1.1\r\nSERVER: x\r\n\r\n"),
            ("a start line only", "NOTIFY * HTTP/1.1"),
            ("a colon in the start line", "NOTIFY http://a:1/ HTTP/1.1\r\nST: b\r\n\r\n"),
            ("similar names", "NOTIFY * HTTP/1.1\r\nNT: a\r\nEXT:\r\nSERVERS: b\r\nX-USER-AGENT: c\r\nST: d\r\n\r\n"),
            ("empty", ""),
            ("line breaks only", "\r\n\n\r"),
            ("lower-case request lines", "notify * http/1.1\r\n\r\n"),
            ("HTTP/1.0 response", "HTTP/1.0 200 OK\r\n\r\n"),
            ("method without target", "M-SEARCH\r\n\r\n"),
        ]
        for (note, text) in cases { Self.agree(Array(text.utf8), note) }
    }

    /// Seeded random header-like text: the check and the decoding still agree.
    @Test func agreesOnRandomHeaderText() {
        var rng = SplitMix64(seed: 0xC0FFEE)
        func next() -> UInt64 { rng.next() }
        let pieces = [
            "SERVER", "server", "USN", "NTS", "MX", "ST", "st", "USER-AGENT", "NT", "X", ":", " ", "\t", "\r\n", "\n",
            "\r", "UPnP/1.1", "uuid:a::b", "HTTP/1.1 ", "NOTIFY * ", "M-SEARCH * ",
        ]
        for _ in 0..<3000 {
            var text = ["NOTIFY * HTTP/1.1\r\n", "HTTP/1.1 200 OK\r\n", "M-SEARCH * HTTP/1.1\r\n", ""][Int(next() % 4)]
            for _ in 0..<Int(next() % 40) { text += pieces[Int(next() % UInt64(pieces.count))] }
            Self.agree(Array(text.utf8), text)
        }
    }
}
