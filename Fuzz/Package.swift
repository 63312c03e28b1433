// swift-tools-version: 6.2
// libFuzzer targets over TodoServer's request handling, its wire framing, whole connections and upcoming-date logic. Build and run with
// Fuzz/run.sh (they need -sanitize=fuzzer, so they live outside the main package's build).
import PackageDescription

let package = Package(
    name: "TodoServerFuzz",
    dependencies: [.package(name: "TodoServer", path: "..")],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "RequestFuzzer",
            dependencies: ["FuzzDriver", .product(name: "TodoServer", package: "TodoServer")]
        ),
        .executableTarget(
            name: "FramingFuzzer",
            dependencies: ["FuzzDriver", .product(name: "TodoServer", package: "TodoServer")]
        ),
        .executableTarget(
            name: "ConnectionFuzzer",
            dependencies: ["FuzzDriver", .product(name: "TodoServer", package: "TodoServer")]
        ),
        .executableTarget(
            name: "UpcomingFuzzer",
            dependencies: ["FuzzDriver", .product(name: "TodoServer", package: "TodoServer")]
        ),
    ]
)
