import DNS
import NetLayers
import TestSupport
import Testing
import WireFormat

@testable import Rules

/// The mDNS session model: what it keeps of hosts, services and records, and its bounds.
@Suite struct MDNSSessionModelTests {
    static func feed(_ datagrams: [Datagram], into model: inout MDNSSessionModel) {
        for (k, d) in datagrams.enumerated() {
            var numbered = d
            numbered.frame = k + 1
            let input = MDNSInput(message: DNSMessage(parsing: numbered.payload), datagram: numbered)
            model.update(with: MDNSEvent(input, time: numbered.time, timeWentBack: false))
        }
    }

    /// The keys the decoding worker computes for the session stage are the names' own keys,
    /// whatever case and compression pointers the message uses.
    @Test func precomputedKeysEqualTheNamesKeys() throws {
        let r = response { b in
            b.question("Office._IPP._tcp.local", 255)
            b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("OFFICE._ipp._TCP.local"))
            b.record(.answer, "office._ipp._tcp.local", 33, ttl: 120, rdata: B.srv(631, "Printer.local"))
            b.record(.additional, "printer.LOCAL", 1, ttl: 120, rdata: B.a("192.168.1.20"))
        }
        let message = DNSMessage(parsing: mdns(r).payload)
        let view = MDNSMessageView(message: message)
        let p = message.payload
        #expect(view.records.count == 3 && view.questionNames.count == 1)
        #expect(view.questionNames[0].key == message.questions[0].name.key(in: p))
        for info in view.records {
            #expect(info.nameKey == info.record.name.key(in: p))
            #expect(info.rdataKey == MDNSSessionModel.rdataKey(info.record, p))
        }
        // Case-folded: the PTR's target, the SRV's owner and the question are one name.
        #expect(view.records[0].target?.key == view.records[1].nameKey)
        #expect(view.questionNames[0].key == view.records[1].nameKey)
        #expect(view.records[1].target?.key == view.records[2].nameKey)
    }

    /// What the decoding worker groups for the session rules: each name a response claims
    /// once (a cache-flush answer with a TTL), and each RRSet's cache-flush members outside
    /// the authority section, distinct and at most 16, goodbyes and shared records left out.
    @Test func precomputedClaimsAndFlushedRRSetsFollowTheRecords() throws {
        let r = response { b in
            b.record(.answer, "printer.local", 1, flush: true, rdata: B.a("192.168.1.20"))
            b.record(.answer, "printer.local", 1, flush: true, rdata: B.a("192.168.1.20"))
            // A goodbye, a shared PTR, a record without the bit: none is a claim or a member.
            b.record(.answer, "printer.local", 28, flush: true, ttl: 0, rdata: [UInt8](repeating: 0, count: 16))
            b.record(.answer, "_ipp._tcp.local", 12, ttl: 4500, rdata: B.name("office._ipp._tcp.local"))
            b.record(.answer, "office._ipp._tcp.local", 16, ttl: 4500, rdata: [0])
            for k in 1...20 {
                b.record(.additional, "big.local", 1, flush: true, rdata: B.a("10.0.0.\(k)"))
            }
        }
        let view = MDNSMessageView(message: DNSMessage(parsing: mdns(r).payload))
        #expect(view.claimedAnswers == [0])
        #expect(view.flushedRRSets.count == 2)
        #expect(view.flushedRRSets[0].set == MDNSRecordKey(view.records[0]).set)
        #expect(view.flushedRRSets[0].rdata == [view.records[0].rdataKey])
        let big = view.records.filter { $0.section == DNSSection.additional }.map { $0.rdataKey }
        #expect(view.flushedRRSets[1].rdata == Array(big.prefix(MDNSMessageView.maxFlushedMembers)))
        #expect(MDNSMessageView.maxFlushedMembers == 16)
        // A query claims nothing.
        let q = query { b in
            b.question("printer.local", 1)
            b.record(.answer, "printer.local", 1, flush: true, rdata: B.a("192.168.1.20"))
        }
        let asked = MDNSMessageView(message: DNSMessage(parsing: mdns(q).payload))
        #expect(asked.claimedAnswers.isEmpty && asked.flushedRRSets.isEmpty)
    }

    /// A query the store pairs responses with asks for every name of its questions, also
    /// past the first 64 (kept apart, sorted), in whatever order they came, and for no other.
    @Test func aRecentQueryAsksForEveryQuestionNamePastTheFirst64() {
        let names = (0..<100).map { "h\((37 * $0) % 100).local" }
        let d = mdns(query { b in for n in names { b.question(n, 1) } })
        let input = MDNSInput(message: DNSMessage(parsing: d.payload), datagram: d)
        let q = MDNSRecentQuery(MDNSEvent(input, time: d.time, timeWentBack: false), input)
        let keys = input.questionNames.map(\.key)
        #expect(keys.count == 100)
        for k in keys { #expect(q.asks(name: k)) }
        let other = response { $0.record(.answer, "h100.local", 1, ttl: 120, rdata: B.a("192.168.1.9")) }
        let o = DNSMessage(parsing: mdns(other).payload)
        #expect(!q.asks(name: MDNSMessageView(message: o).records[0].nameKey))
    }

    @Test func anAnnouncedServiceGivesItsHostAndInstance() throws {
        var model = MDNSSessionModel()
        let sub = response { b in
            b.record(.answer, "_printer._sub._ipp._tcp.local", 12, ttl: 4500, rdata: B.name("Office._ipp._tcp.local"))
        }
        Self.feed([mdns(service()), mdns(sub, at: 1)], into: &model)
        let host = try #require(model.hosts.values.first)
        #expect(model.hosts.count == 1)
        #expect(host.name == "printer.local.")
        #expect(host.addresses == [.v4(0xC0A8_0114)])
        #expect(host.sources == [.v4(0xC0A8_0114)])
        #expect(host.services == ["Office._ipp._tcp.local."])
        #expect(host.messages == 1 && host.firstFrame == 1 && !host.goodbye)
        let s = try #require(model.services.values.first)
        #expect(model.services.count == 1)
        #expect(s.instance == "Office._ipp._tcp.local.")
        #expect(s.serviceType == "_ipp._tcp")
        #expect(s.host == "printer.local." && s.port == 631)
        #expect(s.txt == ["rp=ipp/print"])
        #expect(s.subtypes == ["_printer"])
        #expect(s.firstFrame == 1 && s.lastFrame == 2 && !s.goodbye)
    }

    @Test func recordsKeepTheirOriginalTTLOwnerAndLastMulticast() throws {
        var model = MDNSSessionModel()
        let goodbye = response {
            $0.record(.answer, "printer.local", 1, flush: true, ttl: 0, rdata: B.a("192.168.1.20"))
        }
        Self.feed([mdns(aResponse("192.168.1.20")), mdns(goodbye, at: 2)], into: &model)
        let name = nameKey("printer.local")
        let set = try #require(model.rrset(name, .a, 1))
        #expect(set.unique)
        let m = try #require(set.members.first)
        #expect(set.members.count == 1)
        #expect(m.owner == IPAddress.v4(0xC0A8_0114) && m.ttl == 120 && m.lastTTL == 0 && m.goodbye)
        #expect(m.lastMulticast?.frame == 2)
        #expect(model.hosts[name]?.goodbye == true)
    }

    @Test func probesAndQuestionsAreKeptPerSender() throws {
        var model = MDNSSessionModel()
        let probe = query { b in
            b.question("printer.local", 255, qu: true)
            b.record(.authority, "printer.local", 1, rdata: B.a("192.168.1.20"))
        }
        Self.feed([mdns(probe), mdns(probe, at: 0.25), mdns(ask("_ipp._tcp.local"), at: 1)], into: &model)
        let p = try #require(model.probes[MDNSProbeKey(source: .v4(0xC0A8_0114), name: nameKey("printer.local"))])
        #expect(p.count == 2 && p.qu == [true, true])
        #expect(model.questions.count == 1)
        #expect(model.senders[.v4(0xC0A8_0114)]?.lastUnicastQuery?.frame == 2)
    }

    @Test func everyTableIsBoundedAndCountsWhatItDrops() {
        var model = MDNSSessionModel()
        var datagrams: [Datagram] = []
        for k in 0..<(MDNSSessionModel.maxHosts + 100) {
            datagrams.append(mdns(aResponse("10.0.0.1", owner: "h\(k).local"), at: Double(k) * 0.001))
        }
        Self.feed(datagrams, into: &model)
        #expect(model.hosts.count <= MDNSSessionModel.maxHosts)
        #expect(model.evicted > 0)
        #expect(model.mayHaveForgotten(nameKey("h0.local")))
        #expect(!model.mayHaveForgotten(nameKey("h\(MDNSSessionModel.maxHosts + 99).local")))
    }

    /// Whether anyone probed a name is kept beside the probes (MDNS-503 asks it for a host's
    /// first packet): it agrees with a scan of the probes as rows come, are evicted past the
    /// cap, and age out.
    @Test func probedNamesFollowTheProbesThroughEvictionAndAgeing() {
        var model = MDNSSessionModel()
        func probe(_ name: String, from src: String, at t: Double) -> Datagram {
            mdns(query { $0.record(.authority, name, 1, rdata: B.a("10.0.0.9")) }, src: src, at: t)
        }
        func agrees(_ names: [String]) -> Bool {
            names.allSatisfy { n in
                model.isProbed(nameKey(n)) == model.probes.keys.contains { $0.name == nameKey(n) }
            }
        }
        // Two probers of one name, then past the cap (the earliest rows go), then an age-out.
        var seq = [probe("shared.local", from: "10.0.1.1", at: 0), probe("shared.local", from: "10.0.1.2", at: 0.1)]
        for k in 0..<(MDNSSessionModel.maxProbes + 50) {
            seq.append(probe("p\(k).local", from: "10.0.2.\(k % 200 + 1)", at: 1 + Double(k) * 0.001))
        }
        Self.feed(seq, into: &model)
        let names = ["shared.local", "p0.local", "p49.local", "p50.local", "p\(MDNSSessionModel.maxProbes + 49).local"]
        #expect(model.evicted > 0)
        let late = nameKey("p\(MDNSSessionModel.maxProbes + 40).local")
        #expect(
            !model.isProbed(nameKey("shared.local")) && !model.isProbed(nameKey("p0.local")) && model.isProbed(late))
        #expect(agrees(names))
        // Past the phase horizon, a new packet sweeps every probe out.
        Self.feed(seq + [mdns(ask("_ipp._tcp.local"), at: 2000)], into: &model)
        #expect(model.probes.isEmpty && !model.isProbed(late))
        #expect(agrees(names))
    }

    @Test func entriesAgeOutByPacketTime() {
        var model = MDNSSessionModel()
        Self.feed(
            [mdns(ask("_ipp._tcp.local")), mdns(ask("_http._tcp.local"), src: "192.168.1.30", at: 4000)], into: &model)
        #expect(model.questions.count == 1)
        #expect(model.evicted == 0)
    }
}

/// The model's key of a dotted name.
func nameKey(_ text: String) -> UInt64 {
    var h = ASCII.keySeed
    for label in text.split(separator: ".") {
        ASCII.addToKey(Array(label.utf8), &h)
        h ^= 0x2E
    }
    return h
}
