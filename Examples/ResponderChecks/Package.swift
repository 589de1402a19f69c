// swift-tools-version: 6.2
// An example of another package using DiscoScopeKit in its own tests: it depends on the
// DiscoScope checkout by path (two levels up) and checks the SSDP NOTIFY and the mDNS
// announcement its code builds.
import PackageDescription

let package = Package(
    name: "ResponderChecks",
    dependencies: [
        .package(name: "DiscoScope", path: "../..")
    ],
    targets: [
        .target(name: "ResponderChecks"),
        .testTarget(
            name: "ResponderChecksTests",
            dependencies: ["ResponderChecks", .product(name: "DiscoScopeKit", package: "DiscoScope")]),
    ]
)
