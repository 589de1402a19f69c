import Findings

public enum SSDPCatalog {
    public static let descriptors: [RuleDescriptor] = []
}
