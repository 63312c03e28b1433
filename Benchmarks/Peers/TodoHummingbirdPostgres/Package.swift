// swift-tools-version: 6.0
// An idiomatic Hummingbird 2 + PostgresNIO to-do server (as hummingbird-examples' todos-postgres
// does it: a PostgresClient run as a service, one query per request): the PostgreSQL peer
// TodoServer's PostgresTodoStore is measured against. Owners (TODO_OWNER_TOKENS) through
// HummingbirdAuth's authenticator middleware, as Hummingbird's authentication guide does it. Not part of the main package or its CI run.
import PackageDescription

let package = Package(
    name: "TodoHummingbirdPostgres",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.2.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "TodoHummingbirdPostgres",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        )
    ]
)
