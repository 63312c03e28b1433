// swift-tools-version: 6.2
import PackageDescription

// Release builds of the server's own targets leave out the run-time exclusivity checks
// (`swift_beginAccess` on every modify of a class's stored property): they were 11-13 % of the
// instructions of a request (callgrind, GET one 49,479 -> 43,579, POST 72,560 -> 66,153, PATCH
// 60,003 -> 53,640 per request; docs/performance.md). Debug builds keep them, and so every test,
// sanitizer and fuzzer run checks them.
let releaseSettings: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
]

let package = Package(
    name: "TodoServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "todo-server", targets: ["TodoServerApp"]),
        .library(name: "TodoServer", targets: ["TodoServer", "TodoData"]),
        .library(name: "PostgresLoop", targets: ["PostgresLoop", "EventLoops"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibevent",
            pkgConfig: "libevent",
            providers: [.apt(["libevent-dev"])]
        ),
        .systemLibrary(name: "CSupport"),
        // OpenSSL's libcrypto, for the signatures of JSON Web Tokens (Sources/TodoServer/Identity):
        // libssl-dev's headers at build time (libpq-dev depends on it); libcrypto.so.3 (libpq5's
        // libssl3 brings it) is opened on the first key made (Sources/CLibcrypto/crypto.c), so a
        // server that checks no JWT never maps it. Its header includes only openssl/types.h; the
        // glue is one C file, where swift-crypto's BoringSSL would add 1 to 1.5 minutes to every
        // clean build.
        .target(
            name: "CLibcrypto",
            dependencies: ["CLoader"]
        ),
        // dlopen and dlsym for the three libraries opened on first use (CLibpq, CLibcurl, CLibcrypto),
        // with the message that says why one cannot be used.
        .target(
            name: "CLoader",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // libpq's header at build time (libpq-dev); the library itself is opened on first use
        // (Sources/CLibpq/loader.c), so a server without a database URL never maps it.
        .target(
            name: "CLibpq",
            dependencies: ["CLoader"]
        ),
        // libcurl's header at build time (libcurl4-openssl-dev); the library is opened on the first
        // fetch of a JWK Set from `jwtJwksUrl` (Sources/CLibcurl/loader.c), so a server without one
        // never maps it.
        .target(
            name: "CLibcurl",
            dependencies: ["CLoader"]
        ),
        .target(
            name: "LockTracing",
            dependencies: ["CSupport"]
        ),
        .target(
            name: "EventLoops",
            dependencies: ["CLibevent", "CSupport", "LockTracing"],
            swiftSettings: releaseSettings
        ),
        // The HTTP values (request, response, header fields, method, status, what became of an
        // answer): no libevent, no loops. Modules, presenters, the router and the pipeline speak
        // these; only the application's wiring sees the transport (EventHTTP).
        .target(name: "HTTPValues", swiftSettings: releaseSettings),
        .target(
            name: "EventHTTP",
            dependencies: ["CLibevent", "CSupport", "EventLoops", "HTTPValues", "LockTracing"],
            swiftSettings: releaseSettings
        ),
        .target(
            name: "PostgresLoop",
            dependencies: ["CLibpq", "EventLoops", "LockTracing"],
            swiftSettings: releaseSettings
        ),
        // The live feed's engine (issue 37): the change log, the per-loop fan-out and its pacing, the
        // PostgreSQL reader, generic over the domain's change (`RecordedChange`); no HTTP. Release
        // builds let its clients specialise its generics (`-cross-module-optimization`): without it,
        // every append and read of the server's change log would run its generic code unspecialised
        // (a call through the generic entry point and the value witnesses of the change).
        .target(
            name: "ChangeFeed",
            dependencies: [
                "EventLoops", "HTTPValues", "LockTracing", "PostgresLoop", .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: releaseSettings + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
        ),
        // The entity and store layer (issue 37, item 6): the to-do entities, their stores (in memory,
        // journaled, PostgreSQL) and change records, and what they stand on (JSON reading and writing,
        // ids, clocks, time zones, `Pending`). No HTTP: the server's modules use it through `package`
        // API. Cross-module optimisation lets the server inline and specialise the store's and the
        // JSON writer's hot paths as it did when they were one module.
        .target(
            name: "TodoData",
            dependencies: [
                "ChangeFeed",
                "EventLoops",
                "HTTPValues",
                "PostgresLoop",
                "LockTracing",
                "CSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: releaseSettings + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
        ),
        .target(
            name: "TodoServer",
            dependencies: [
                "TodoData",
                "ChangeFeed",
                "EventHTTP",
                "EventLoops",
                "HTTPValues",
                "PostgresLoop",
                "LockTracing",
                "CSupport",
                "CLibcrypto",
                "CLibcurl",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.embedInCode("Resources/openapi.json")],
            swiftSettings: releaseSettings
        ),
        .executableTarget(
            name: "TodoServerApp",
            dependencies: [
                "TodoServer",
                "TodoData",
                "EventLoops",
                "LockTracing",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The release binary allocates with mimalloc (Debian's libmimalloc, linked ahead of libc so
            // that libevent's allocations use it too): its per-thread free lists make the many small
            // allocations of a request cheaper than glibc's malloc does (figures in docs/performance.md).
            // Debug and test builds keep glibc's, which the sanitizers replace anyway.
            // The release binary is linked by lld (it ships with the Swift toolchain), which can lay
            // out the functions that run together and pack the relative relocations; both are
            // scripts/build-release.sh's flags (issue 38, idle memory).
            swiftSettings: releaseSettings,
            linkerSettings: [
                .linkedLibrary("mimalloc", .when(configuration: .release)),
                .unsafeFlags(["-use-ld=lld"], .when(platforms: [.linux], configuration: .release)),
            ]
        ),
        // What several test targets share: an HTTP client over a raw socket, the one wait with a
        // deadline, the todo-server binary run as a process, a throwaway PostgreSQL cluster, the tags.
        // A regular target (a test target cannot be depended on), built only from public and
        // `package` API: no @testable import, so it builds in any configuration.
        .target(
            name: "TestSupport",
            dependencies: ["EventLoops", "HTTPValues", "LockTracing", "PostgresLoop"],
            path: "Tests/TestSupport"
        ),
        // The data layer's test fixtures, which its own tests and the server's share: fake clocks, ids
        // and stores, a journal's data directory (and the gate that stalls its writer), to-dos for the
        // PostgreSQL statements. Fixtures of the data layer's internals, so built with `@testable`
        // (tests are built in debug, where every target is testable).
        .target(
            name: "TodoDataTestSupport",
            dependencies: [
                "TodoData", "TestSupport", "LockTracing", "PostgresLoop", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TodoDataTestSupport"
        ),
        // One test target per source target that has tests: a test lives in the target of the
        // module it tests (README, "Testing").
        .testTarget(
            name: "LockTracingTests",
            dependencies: ["LockTracing"]
        ),
        .testTarget(
            name: "EventLoopsTests",
            dependencies: ["EventLoops", "LockTracing", "TestSupport"]
        ),
        .testTarget(
            name: "HTTPValuesTests",
            dependencies: ["HTTPValues", "TestSupport"]
        ),
        .testTarget(
            name: "EventHTTPTests",
            dependencies: ["EventHTTP", "EventLoops", "HTTPValues", "TestSupport"]
        ),
        .testTarget(
            name: "PostgresLoopTests",
            dependencies: ["PostgresLoop", "EventLoops", "LockTracing", "TestSupport"]
        ),
        .testTarget(
            name: "ChangeFeedTests",
            dependencies: ["ChangeFeed", "EventLoops", "LockTracing", "TestSupport"]
        ),
        .testTarget(
            name: "TodoDataTests",
            dependencies: [
                "TodoData", "TodoDataTestSupport", "ChangeFeed", "EventLoops", "HTTPValues", "PostgresLoop", "LockTracing",
                "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TodoServerTests",
            dependencies: [
                "TodoData",
                "TodoDataTestSupport",
                "ChangeFeed",
                "TestSupport",
                "TodoServer",
                "EventHTTP",
                "EventLoops",
                "HTTPValues",
                "PostgresLoop",
                "LockTracing",
                "TodoServerApp",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TodoServerAppTests",
            dependencies: ["TodoServerApp", "TodoServer", "TodoData", "PostgresLoop", "LockTracing", "TestSupport"]
        ),
    ]
)
