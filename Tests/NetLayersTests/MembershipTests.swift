import Testing

@testable import NetLayers

/// IGMP and MLD membership messages, byte by byte (the tshark comparison on real captures is
/// in the CLI tests).
@Suite struct MembershipTests {
    /// IGMPv3 report of frame 10 of IoT Sentinel's D-LinkSiren capture: three any-source joins.
    @Test func anIGMPv3ReportListsItsGroupRecords() throws {
        let b: [UInt8] =
            [0x22, 0x00, 0xF9, 0x01, 0x00, 0x00, 0x00, 0x03]
            + [0x04, 0x00, 0x00, 0x00, 224, 0, 0, 252]
            + [0x04, 0x00, 0x00, 0x00, 239, 255, 255, 250]
            + [0x04, 0x00, 0x00, 0x00, 224, 0, 0, 253]
        let m = try #require(try MembershipMessage.igmp(b)?.get())
        #expect(m.version == .igmpV3 && m.kind == .report && m.recordCount == 3)
        #expect(m.records.map(\.group) == [.v4(0xE000_00FC), .v4(0xEFFF_FFFA), .v4(0xE000_00FD)])
        #expect(m.records.allSatisfy { $0.mode == .toExclude && $0.listens })
    }

    /// TO_IN with no source is how IGMPv3 leaves a group.
    @Test func anIGMPv3ChangeToIncludeWithNoSourceIsALeave() throws {
        let b: [UInt8] = [0x22, 0, 0, 0, 0, 0, 0, 1, 0x03, 0, 0, 0, 224, 0, 0, 251]
        let m = try #require(try MembershipMessage.igmp(b)?.get())
        #expect(m.records.first?.mode == .toInclude)
        #expect(m.records.first?.listens == false)
    }

    @Test func igmpQueriesAreTellApartByVersion() throws {
        let v2 = try #require(try MembershipMessage.igmp([0x11, 100, 0, 0, 0, 0, 0, 0])?.get())
        #expect(v2.version == .igmpV2 && v2.kind == .query && v2.group == nil && v2.maxResponse == 10)
        let v1 = try #require(try MembershipMessage.igmp([0x11, 0, 0, 0, 0, 0, 0, 0])?.get())
        #expect(v1.version == .igmpV1)
        let v3 = try #require(try MembershipMessage.igmp([0x11, 0x80, 0, 0, 224, 0, 0, 251, 0, 0, 0, 0])?.get())
        #expect(v3.version == .igmpV3 && v3.group == .v4(0xE000_00FB))
        // Code 0x80: mantissa 0, exponent 0 → (0x10) << 3 = 128 tenths of a second.
        #expect(v3.maxResponse == 12.8)
    }

    @Test func mldReportsQueriesAndDone() throws {
        let ffFB: [UInt8] = [0xFF, 0x02] + Array(repeating: 0, count: 13) + [0xFB]
        let report = try #require(try MembershipMessage.mld([131, 0, 0, 0, 0, 0, 0, 0] + ffFB)?.get())
        #expect(
            report.version == .mldV1 && report.kind == .report && report.records.first?.group == .v6(0xFF02 << 48, 0xFB)
        )
        let done = try #require(try MembershipMessage.mld([132, 0, 0, 0, 0, 0, 0, 0] + ffFB)?.get())
        #expect(done.kind == .leave && done.group == .v6(0xFF02 << 48, 0xFB))
        let v2 = try #require(
            try MembershipMessage.mld([143, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0] + ffFB)?.get())
        #expect(v2.version == .mldV2 && v2.records.first?.listens == true)
        let query = try #require(
            try MembershipMessage.mld(
                [130, 0, 0, 0, 0x27, 0x10, 0, 0] + Array(repeating: 0, count: 16) + [0, 0, 0, 0])?
                .get())
        #expect(query.version == .mldV2 && query.group == nil && query.maxResponse == 10)
    }

    /// Lengths come from the wire: a record that runs past the message, an unknown record type
    /// or a short message are errors, never a crash.
    @Test func malformedMessagesAreErrors() {
        // Claims 2 records, has one; claims 65535 sources.
        #expect(
            MembershipMessage.igmp([0x22, 0, 0, 0, 0, 0, 0, 2, 4, 0, 0, 0, 224, 0, 0, 251])
                == .failure(.recordsRunPast(record: 2, of: 2)))
        #expect(
            MembershipMessage.igmp([0x22, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0xFF, 0xFF, 224, 0, 0, 251])
                == .failure(.recordsRunPast(record: 1, of: 1)))
        #expect(
            MembershipMessage.igmp([0x22, 0, 0, 0, 0, 0, 0, 1, 9, 0, 0, 0, 224, 0, 0, 251])
                == .failure(.recordType(9, record: 1)))
        #expect(MembershipMessage.igmp([0x16, 0, 0]) == .failure(.short("IGMP report", 3)))
        #expect(MembershipMessage.mld([143, 0, 0]) == .failure(.short("MLDv2 report", 3)))
        // Not membership messages at all.
        #expect(MembershipMessage.igmp([]) == nil)
        #expect(MembershipMessage.mld([128, 0, 0, 0]) == nil)
    }
}
