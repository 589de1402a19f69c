import Findings

public enum MDNSCatalog {
    public static let descriptors: [RuleDescriptor] = []
}
