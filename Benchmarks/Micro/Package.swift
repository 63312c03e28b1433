// swift-tools-version: 6.2
// Micro-benchmarks of TodoServer's hot pieces, as a plain release-built timing loop:
// `swift run -c release --package-path Benchmarks/Micro`. Not part of the main package or CI.
import PackageDescription

let package = Package(
    name: "TodoMicro",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "TodoServer", path: "../..")],
    targets: [
        .executableTarget(
            name: "TodoMicro",
            dependencies: [.product(name: "TodoServer", package: "TodoServer")]
        )
    ]
)
