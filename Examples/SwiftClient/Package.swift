// swift-tools-version: 6.2
// A Swift front end's view of TodoServer: a client generated from the server's OpenAPI document by
// swift-openapi-generator's build plugin (Sources/TodoClientExample/openapi.json is a link to
// Sources/TodoServer/Resources/openapi.json, the document the server serves), talking to a live
// server through URLSession. `swift run todo-client-example http://127.0.0.1:8080` drives every
// operation and prints `N passed, 0 failed`; scripts/swift-client-check.sh runs it in CI.
import PackageDescription

let package = Package(
    name: "TodoClientExample",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .executableTarget(
            name: "TodoClientExample",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        )
    ]
)
