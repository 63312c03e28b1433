// swift-tools-version: 6.2
// Primary-key reads per second through one PostgresLoop connection on one loop, with 1 and with 32
// requests in flight: `Benchmarks/PostgresBench/run.sh` (starts a throwaway cluster). Not part of the
// main package or CI.
import PackageDescription

let package = Package(
    name: "TodoPostgresBench",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "TodoServer", path: "../..")],
    targets: [
        .executableTarget(
            name: "TodoPostgresBench",
            dependencies: [.product(name: "PostgresLoop", package: "TodoServer")]
        )
    ]
)
