// swift-tools-version: 6.2
import PackageDescription

// Settings applied to every target (swift-asn1's "standard cross-repo settings" loop).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "DiscoScope",
    products: [
        .executable(name: "discoscope", targets: ["discoscope"]),
        // The library other Swift code calls: a stable API (`.api-baseline`), no libpcap, no
        // Glibc, no Foundation, no threads.
        .library(name: "DiscoScopeKit", targets: ["DiscoScopeKit"]),
        // The pipeline's modules as they are, for the fuzz targets in FuzzTesting/ (a package
        // of its own that depends on this one by path): no stable API.
        .library(
            name: "DiscoScopeInternals",
            targets: ["WireFormat", "NetLayers", "SSDP", "DNS", "Findings", "Rules", "Reporting", "Analyzer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // C stays behind one small door: libpcap through pkg-config.
        .systemLibrary(
            name: "CPcap",
            pkgConfig: "libpcap",
            providers: [.apt(["libpcap-dev", "zlib1g-dev"])]
        ),
        // Pure decoders: no Foundation, no libpcap.
        .target(name: "WireFormat"),
        .target(name: "NetLayers", dependencies: ["WireFormat"]),
        .target(name: "SSDP", dependencies: ["WireFormat"]),
        .target(name: "DNS", dependencies: ["WireFormat"]),
        // Shared vocabulary of findings; reporters need nothing else.
        .target(name: "Findings", dependencies: ["WireFormat"]),
        .target(name: "Rules", dependencies: ["Findings", "NetLayers", "SSDP", "DNS", "WireFormat"]),
        .target(name: "Reporting", dependencies: ["Findings", "WireFormat"]),
        // libpcap sources (offline and live).
        .target(name: "Capture", dependencies: ["CPcap", "NetLayers"]),
        // The pipeline from datagram to report, on the calling thread unless given a pool:
        // no libpcap, no threads, no Foundation.
        .target(name: "Analyzer", dependencies: ["NetLayers", "SSDP", "DNS", "Findings", "Rules", "Reporting"]),
        // What runs the pipeline in the command line: capture sources, worker threads,
        // configuration files.
        .target(
            name: "Driver",
            dependencies: ["Analyzer", "Capture", "NetLayers", "Findings", "Rules", "Reporting",
                           .product(name: "Yams", package: "Yams")]
        ),
        .executableTarget(
            name: "discoscope",
            dependencies: ["Analyzer", "Driver", "Capture", "Findings", "NetLayers", "Rules", "Reporting", "WireFormat",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            plugins: ["BuildInfo"]
        ),
        // `discoscope --version`'s commit: written under .build before each build.
        .plugin(name: "BuildInfo", capability: .buildTool()),
        .target(
            name: "DiscoScopeKit",
            dependencies: ["Analyzer", "NetLayers", "SSDP", "DNS", "Findings", "Rules", "Reporting", "WireFormat"]),
        .target(name: "TestSupport", dependencies: ["WireFormat", "NetLayers"]),

        .testTarget(name: "WireFormatTests", dependencies: ["WireFormat", "TestSupport"]),
        .testTarget(name: "NetLayersTests", dependencies: ["NetLayers", "TestSupport"]),
        .testTarget(name: "SSDPTests", dependencies: ["SSDP", "TestSupport"]),
        .testTarget(name: "DNSTests", dependencies: ["DNS", "TestSupport"]),
        .testTarget(
            name: "RulesTests",
            dependencies: ["Analyzer", "Rules", "Findings", "Reporting", "SSDP", "DNS", "NetLayers", "TestSupport"],
            exclude: ["catalog-ids.txt"]),
        .testTarget(name: "ReportingTests", dependencies: ["Reporting", "Findings", "TestSupport"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "NetLayers", "TestSupport"]),
        .testTarget(
            name: "AnalyzerTests", dependencies: ["Analyzer", "Driver", "Findings", "Rules", "Reporting", "TestSupport"]),
        .testTarget(name: "DiscoScopeKitTests", dependencies: ["DiscoScopeKit", "TestSupport"]),
        .testTarget(
            name: "MetricsTests", dependencies: ["Driver", "Analyzer", "Capture", "Findings", "Reporting", "WireFormat"]),
        .testTarget(name: "CLITests", dependencies: ["TestSupport"], exclude: ["Golden", "Live"]),
    ]
)

// Release builds optimise across module boundaries (the decoders, rules and reporters are
// separate modules, and their small accessors are called per message): ≈ 3 % less CPU time on
// the anchors workload (`Benchmarks/run.sh`).
let releaseSettings: [SwiftSetting] = [
    .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))
]

for target in package.targets where target.type != .system && target.type != .plugin {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings + releaseSettings
}
