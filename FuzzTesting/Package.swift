// swift-tools-version: 6.2
// libFuzzer targets for DiscoScope, kept beside the main package (as swift-protobuf keeps its
// FuzzTesting/). Build and run with `scripts/fuzz.sh TARGET SECONDS`, which passes
// `-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library`.
import PackageDescription

let package = Package(
    name: "FuzzTesting",
    dependencies: [
        .package(name: "DiscoScope", path: "..")
    ],
    targets: [
        .target(name: "FuzzCommon", dependencies: [.product(name: "DiscoScopeInternals", package: "DiscoScope")]),
        .executableTarget(
            name: "FuzzPacketDecoder",
            dependencies: ["FuzzCommon", .product(name: "DiscoScopeInternals", package: "DiscoScope")]),
        .executableTarget(
            name: "FuzzSSDP", dependencies: ["FuzzCommon", .product(name: "DiscoScopeInternals", package: "DiscoScope")]),
        .executableTarget(
            name: "FuzzDNS", dependencies: ["FuzzCommon", .product(name: "DiscoScopeInternals", package: "DiscoScope")]),
        .executableTarget(
            name: "FuzzPipeline", dependencies: ["FuzzCommon", .product(name: "DiscoScopeInternals", package: "DiscoScope")]),
    ]
)
