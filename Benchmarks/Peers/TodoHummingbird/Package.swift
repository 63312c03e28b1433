// swift-tools-version: 6.0
// An idiomatic Hummingbird 2 to-do server (Codable, a Mutex-protected dictionary): the framework
// peer TodoServer is measured against. Not part of the main package or its CI run.
import PackageDescription

let package = Package(
    name: "TodoHummingbird",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "TodoHummingbird",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")]
        ),
    ]
)
