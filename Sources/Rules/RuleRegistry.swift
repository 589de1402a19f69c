import Findings

/// Every rule DiscoScope runs, one line each, in the order their findings appear under a
/// message (catalog order). A new rule is one type in its family's file plus one line here.
public enum RuleRegistry {
    /// SSDP rules judged per message or datagram.
    public static let ssdp: [RuleEngine<SSDPInput>.Entry] = [
        .datagram(MessageSizeRule.self),  // SSDP-001
        .message(StartLineRule.self),  // SSDP-002
        .message(RequestLineFormRule.self),  // SSDP-003
        .message(Status200OKRule.self),  // SSDP-004
        .message(CRLFLineEndingsRule.self),  // SSDP-005
        .datagram(HeaderBlockTerminatedRule.self),  // SSDP-006
        .message(HeaderSyntaxRule.self),  // SSDP-007
        .message(DuplicateHeaderRule.self),  // SSDP-008
        .message(HeaderValueCharactersRule.self),  // SSDP-009
        .message(NoBodyRule.self),  // SSDP-010
        .message(VendorHeaderNamesRule.self),  // SSDP-011
        .datagram(SSDPMulticastGroupRule.self),  // SSDP-012
        .datagram(HostHeaderRule.self),  // SSDP-013
        .datagram(MulticastTTLRule.self),  // SSDP-014
        .datagram(IPv6SourceScopeRule.self),  // SSDP-015
        .message(UUIDFormatRule.self),  // SSDP-016
        .message(USNMatchesNTRule.self),  // SSDP-017
        .message(URNFormRule.self),  // SSDP-018
        .message(ServerProductTokensRule.self),  // SSDP-019
        .message(LocationURLRule.self),  // SSDP-020
        .message(CacheControlMaxAgeRule.self),  // SSDP-021
        .message(MaxAgeValueRule.self),  // SSDP-022
        .message(UPnPOrgNumbersRule.self),  // SSDP-023
        .datagram(MSearchRequiredHeadersRule.self),  // SSDP-101
        .message(ManSSDPDiscoverRule.self),  // SSDP-102
        .datagram(MSearchMXPresentRule.self),  // SSDP-103
        .message(MXRangeRule.self),  // SSDP-104
        .datagram(UnicastMSearchFormRule.self),  // SSDP-105
        .message(STFormRule.self),  // SSDP-106
        .message(UserAgentTokensRule.self),  // SSDP-107
        .datagram(UPnP2CPFNRule.self),  // SSDP-108
        .message(ResponseRequiredHeadersRule.self),  // SSDP-201
        .message(ExtEmptyRule.self),  // SSDP-202
        .message(DateRFC1123Rule.self),  // SSDP-203
        .message(ResponseSTMatchesUSNRule.self),  // SSDP-204
        .datagram(ResponseUnicastRule.self),  // SSDP-205
        .message(ResponseRequestHeadersRule.self),  // SSDP-206
        .message(AliveRequiredHeadersRule.self),  // SSDP-301
        .message(NTSValueRule.self),  // SSDP-302
        .message(NTFormRule.self),  // SSDP-303
        .datagram(NotifyMulticastRule.self),  // SSDP-304
        .message(ByebyeRequiredHeadersRule.self),  // SSDP-401
        .message(UpdateRequiredHeadersRule.self),  // SSDP-402
        .message(NextBootIDGreaterRule.self),  // SSDP-403
        .message(DIALSearchResponseRule.self),  // PROF-506
        .message(DIALWakeupRule.self),  // PROF-508
        .message(RokuECPRule.self),  // PROF-509
    ]

    /// SSDP rules judged across packets, in capture order.
    public static let ssdpSession: [any SessionRule<SSDPEvent>.Type] = [
        ResponsePortPairingRule.self,  // SSDP-205 (pairing)
        ResponseWithinMXRule.self,  // SSDP-501
        UnicastResponseWithinOneSecondRule.self,  // SSDP-502
        DiscardMalformedSearchRule.self,  // SSDP-503
        ResponseSTMatchesSearchRule.self,  // SSDP-504
        SearchResponseSetRule.self,  // SSDP-505
        ReannounceBeforeExpiryRule.self,  // SSDP-506
        RefreshIntervalRule.self,  // SSDP-507
        AliveStormRule.self,  // SSDP-508
        BootIDStableRule.self,  // SSDP-509
        BootIDIncreasesRule.self,  // SSDP-510
        ConfigIDConsistentRule.self,  // SSDP-511
        UUIDUniqueRule.self,  // SSDP-512
        ByebyeUnknownUSNRule.self,  // SSDP-513
        AdvertisementSetCompleteRule.self,  // SSDP-514
        HighestVersionOnlyRule.self,  // SSDP-515
        MultiHomedConsistentRule.self,  // SSDP-516
        LocationMovesRule.self,  // SSDP-517
        UpdateLocationSameRule.self,  // SSDP-518
        UnicastSearchAnsweredRule.self,  // SSDP-519
        MulticastAliveRule.self,  // SSDP-520
        AdvertisementExpiredRule.self,  // SSDP-521
    ]

    /// SSDP rules judged from a fetched device description (`discoscope probe` fetches it;
    /// `DescriptionChecks` runs them).
    public static let ssdpDescription: [any DescriptionRule.Type] = [
        DescriptionFetchedRule.self,  // SSDP-601
        DescriptionWellFormedRule.self,  // SSDP-602
        DescriptionUDNRule.self,  // SSDP-603
        DescriptionTypesRule.self,  // SSDP-604
        DescriptionURLsRule.self,  // SSDP-605
        LocationHostAnsweredRule.self,  // SSDP-606
        MediaServerServicesRule.self,  // PROF-501
        MediaRendererServicesRule.self,  // PROF-502
        IGDTreeRule.self,  // PROF-503
        IGDVersionLockstepRule.self,  // PROF-504
        IGDRootRecommendationsRule.self,  // PROF-505
        DIALApplicationURLRule.self,  // PROF-507
    ]

    /// mDNS / DNS-SD rules judged per message or datagram.
    public static let mdns: [RuleEngine<MDNSInput>.Entry] = [
        .datagram(DNSHeaderPresentRule.self),  // MDNS-001
        .datagram(CountsMatchContentRule.self),  // MDNS-002
        .datagram(NoTrailingBytesRule.self),  // MDNS-003
        .datagram(LabelLengthTypeRule.self),  // MDNS-004
        .datagram(NameLengthRule.self),  // MDNS-005
        .datagram(PointerBackwardsRule.self),  // MDNS-006
        .message(PointerTerminatesRule.self),  // MDNS-007
        .message(NamesUTF8Rule.self),  // MDNS-008
        .datagram(RDLengthInBoundsRule.self),  // MDNS-009
        .datagram(RDataExactLengthRule.self),  // MDNS-010
        .message(TTLHighBitRule.self),  // MDNS-011
        .message(RecordClassTypeRule.self),  // MDNS-012
        .message(EDNSOPTPlacementRule.self),  // MDNS-013
        .datagram(EDNSOptionsRule.self),  // MDNS-014
        .datagram(RDataCompressionRule.self),  // MDNS-015
        .datagram(NSECBitmapRule.self),  // MDNS-016
        .datagram(QueryIDZeroRule.self),  // MDNS-101
        .datagram(ResponseIDZeroRule.self),  // MDNS-102
        .message(ResponseAARule.self),  // MDNS-103
        .message(QueryAAClearRule.self),  // MDNS-104
        .datagram(OpcodeZeroRule.self),  // MDNS-105
        .datagram(RCodeZeroRule.self),  // MDNS-106
        .datagram(ResponseTCClearRule.self),  // MDNS-107
        .datagram(RDClearRule.self),  // MDNS-108
        .datagram(ReservedFlagsClearRule.self),  // MDNS-109
        .datagram(ResponseNoQuestionsRule.self),  // MDNS-201
        .message(QClassInAnyRule.self),  // MDNS-202
        .message(QTypeNoZoneTransferRule.self),  // MDNS-203
        .datagram(LegacyQueryFormRule.self),  // MDNS-204
        .message(AuthoritySectionUseRule.self),  // MDNS-205
        .message(KnownAnswerNoFlushRule.self),  // MDNS-206
        .message(ProbeNoFlushRule.self),  // MDNS-207
        .message(SectionSanityRule.self),  // MDNS-208
        .message(SharedNoFlushRule.self),  // MDNS-301
        .datagram(UniqueFlushRule.self),  // MDNS-302
        .datagram(RecommendedTTLRule.self),  // MDNS-303
        .message(RRSetSameTTLRule.self),  // MDNS-304
        .message(NSECRestrictedFormRule.self),  // MDNS-305
        .message(NSECConsistentRule.self),  // MDNS-306
        .message(SRVTargetHostRule.self),  // MDNS-307
        .datagram(AddressOtherFamilyRule.self),  // MDNS-309
        .datagram(AddressValidOnLinkRule.self),  // MDNS-310
        .message(TXTNotEmptyRule.self),  // MDNS-311
        .message(TXTKeySyntaxRule.self),  // MDNS-312
        .message(TXTDuplicateKeyRule.self),  // MDNS-313
        .message(TXTSizeRule.self),  // MDNS-314
        .message(InstanceNameStructureRule.self),  // MDNS-315
        .message(ServiceNameSyntaxRule.self),  // MDNS-316
        .message(InstanceLabelRule.self),  // MDNS-317
        .message(SubtypePtrRule.self),  // MDNS-318
        .message(ServiceEnumerationRule.self),  // MDNS-319
        .message(HostNameCharactersRule.self),  // MDNS-320
        .message(NoDuplicateRecordsRule.self),  // MDNS-321
        .message(LocalNamesRule.self),  // MDNS-322
        .message(CNAMEAndOtherDataRule.self),  // MDNS-323
        .datagram(ResponseSourcePortRule.self),  // MDNS-401
        .datagram(ResponseDestinationRule.self),  // MDNS-402
        .datagram(LegacyResponseQuestionRule.self),  // MDNS-404
        .datagram(LegacyResponseFormRule.self),  // MDNS-405
        .datagram(IPTTL255Rule.self),  // MDNS-406
        .datagram(SourceOnLinkRule.self),  // MDNS-407
        .datagram(PacketSizeRule.self),  // MDNS-408
        .datagram(FragmentedSingleRecordRule.self),  // MDNS-409
        .datagram(MDNSGroupRule.self),  // MDNS-410
        .message(MatterCommissionableInstanceNameRule.self),  // PROF-001
        .message(MatterOperationalInstanceNameRule.self),  // PROF-002
        .message(MatterHostNameRule.self),  // PROF-003
        .datagram(MatterHostNameMACRule.self),  // PROF-004
        .message(MatterDiscriminatorRule.self),  // PROF-006
        .message(MatterCommissioningModeRule.self),  // PROF-008
        .message(MatterVendorProductRule.self),  // PROF-010
        .message(MatterDeviceTypeNameRule.self),  // PROF-012
        .message(MatterRotatingIDRule.self),  // PROF-013
        .message(MatterPairingHintRule.self),  // PROF-014
        .message(MatterSessionIntervalsRule.self),  // PROF-015
        .message(MatterTransportsRule.self),  // PROF-016
        .message(MatterICDRule.self),  // PROF-017
        .message(MatterFabricSubtypeRule.self),  // PROF-018
        .message(MatterOperationalKeysRule.self),  // PROF-019
        .message(MatterCommissionerRule.self),  // PROF-020
        .message(MatterKeyCaseRule.self),  // PROF-021
        .message(HAPRequiredKeysRule.self),  // PROF-101
        .message(HAPConfigNumberRule.self),  // PROF-102
        .message(HAPDeviceIDRule.self),  // PROF-104
        .message(HAPStateNumberRule.self),  // PROF-105
        .message(HAPStatusFlagsRule.self),  // PROF-106
        .message(HAPFeatureFlagsRule.self),  // PROF-108
        .message(HAPCategoryRule.self),  // PROF-109
        .message(HAPProtocolVersionRule.self),  // PROF-110
        .message(HAPSetupHashRule.self),  // PROF-111
        .message(HAPThreadTXTRule.self),  // PROF-112
        .message(CastReceiverIDRule.self),  // PROF-301
        .message(CastProtocolVersionRule.self),  // PROF-302
        .message(CastCapabilitiesRule.self),  // PROF-303
        .message(CastReceiverStatusRule.self),  // PROF-304
        .message(CastFriendlyNameRule.self),  // PROF-305
        .message(CastPortRule.self),  // PROF-306
        .message(CastInstanceNameRule.self),  // PROF-307
        .message(RAOPInstanceNameRule.self),  // PROF-401
        .message(RAOPTXTRule.self),  // PROF-402
        .message(AirPlayDeviceIDRule.self),  // PROF-403
        .message(AirPlayFeaturesRule.self),  // PROF-404
        .message(AirPlayTXTKeysRule.self),  // PROF-405
        .message(SpotifyConnectTXTRule.self),  // PROF-407
        .message(PrintResourcePathRule.self),  // PROF-203
        .message(PrintAdminURLRule.self),  // PROF-204
        .message(PrintUUIDFormRule.self),  // PROF-205
        .message(PrintPDLRule.self),  // PROF-207
        .message(PrintTLSVersionRule.self),  // PROF-208
        .message(PrintBooleanKeysRule.self),  // PROF-209
        .message(PrintLegacyKeysRule.self),  // PROF-210
        .message(PrintListCutRule.self),  // PROF-213
    ]

    /// mDNS rules judged across packets, in capture order.
    public static let mdnsSession: [any SessionRule<MDNSEvent>.Type] = [
        AdditionalRecordsRule.self,  // MDNS-308 (judged in order: recently sent records count)
        LegacyResponseIDRule.self,  // MDNS-403
        ProbingRule.self,  // MDNS-501
        ProbeRateRule.self,  // MDNS-502
        ProbeBeforeAnnounceRule.self,  // MDNS-503
        AnnouncingRule.self,  // MDNS-504
        PeriodicAnnouncementRule.self,  // MDNS-505
        RecordRateRule.self,  // MDNS-506
        ResponseDelayRule.self,  // MDNS-507
        TruncatedQueryDelayRule.self,  // MDNS-508
        KnownAnswerSuppressionRule.self,  // MDNS-509
        KnownAnswerTTLRule.self,  // MDNS-510
        KnownAnswerContinuationRule.self,  // MDNS-511
        QueryBackoffRule.self,  // MDNS-512
        UnicastResponseRule.self,  // MDNS-513
        ConflictRule.self,  // MDNS-514
        GoodbyeUpdateRule.self,  // MDNS-515
        UpdateRateRule.self,  // MDNS-516
        WholeRRSetRule.self,  // MDNS-517
        ServiceCompletenessRule.self,  // MDNS-518
        DuplicateSuppressionRule.self,  // MDNS-519
        NegativeAnswerRule.self,  // MDNS-520
        QUAnsweredRule.self,  // MDNS-521
        InstanceExpiredRule.self,  // MDNS-522
        MatterAAAARule.self,  // PROF-005
        MatterDiscriminatorSubtypesRule.self,  // PROF-007
        MatterCommissioningSubtypeRule.self,  // PROF-009
        MatterVendorDeviceTypeSubtypesRule.self,  // PROF-011
        HAPConfigNumberPersistsRule.self,  // PROF-103
        HAPPairingFlagRule.self,  // PROF-107
        HAPCategoryChangeRule.self,  // PROF-109 (change)
        AirPlayRAOPConsistencyRule.self,  // PROF-406
        IPPSSiblingRule.self,  // PROF-201
        PrintRequiredKeysRule.self,  // PROF-202
        PrintIdentityRule.self,  // PROF-206
        LPDPlaceholderRule.self,  // PROF-211
        AirPrintKeysRule.self,  // PROF-212
    ]

    /// Rules across the segments of a merged session, judged with a store of the whole
    /// network (the other session rules judge each segment as its own link).
    public static let mdnsSegments: [any SessionRule<MDNSEvent>.Type] = [
        AnswersNotForwardedBackRule.self,  // SEG-001
        RecordsRewrittenInTransitRule.self,  // SEG-002
        ForwardingLoopRule.self,  // SEG-003
    ]

    /// Rules of the discovery groups' multicast membership (IGMP, MLD), judged per link with
    /// the membership messages and who sent discovery messages, in capture order.
    public static let multicastSession: [any SessionRule<MulticastEvent>.Type] = [
        DiscoveryWithoutMembershipRule.self,  // SEG-101
        MembershipsAgeOutRule.self,  // SEG-102
        QueryBeforeJoinRule.self,  // SEG-103
        LeaveWithoutGoodbyeRule.self,  // SEG-104
    ]

    /// MDNS-518, by its type, for the code outside this module that names it (`explain`
    /// attaches its advice on an SRV target without an address to this rule's finding).
    public static var serviceCompleteness: RuleDescriptor { ServiceCompletenessRule.descriptor }

    /// Every registered rule type (a rule with a stateless and a session half has two).
    public static var all: [any Rule.Type] {
        ssdp.map(\.rule) + ssdpSession.map { $0 } + ssdpDescription.map { $0 } + mdns.map(\.rule)
            + mdnsSession.map { $0 } + mdnsSegments.map { $0 } + multicastSession.map { $0 }
    }
}

/// The rule catalog: one descriptor per rule ID, sorted by ID.
public enum RuleCatalog {
    public static let all: [RuleDescriptor] = {
        var seen: Set<RuleID> = []
        return RuleRegistry.all.map { $0.descriptor }.filter { seen.insert($0.id).inserted }.sorted { $0.id < $1.id }
    }()

    /// Looks a rule up by ID (`SSDP-104`, case-insensitive) or by readable name.
    public static func find(_ key: String) -> RuleDescriptor? {
        let upper = key.uppercased()
        return all.first { $0.id.rawValue == upper || $0.name == key.lowercased() }
    }
}
