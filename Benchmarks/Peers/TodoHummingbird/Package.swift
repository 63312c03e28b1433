// swift-tools-version: 6.0
// An idiomatic Hummingbird 2 to-do server (Codable, a Mutex-protected dictionary): the framework
// peer TodoServer is measured against. Not part of the main package or its CI run.
import PackageDescription

let package = Package(
    name: "TodoHummingbird",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "TodoHummingbird",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        )
    ]
)
