import TodoData

// The system module: the service index (`GET /`), the health check (`GET /healthz`) and the
// OpenAPI document (`GET /openapi.json`). `SystemView` is the router's entry (nothing to decode)
// and writes what `SystemInteractor` says of the service and of the store.

/// Reports the service's identity, build and health, and hands out its OpenAPI document.
public struct SystemInteractor: Sendable {
    /// The version this build reports.
    public static let version = "0.2.0"

    private let store: any TodoStore
    private let document: OpenAPIDocumentTemplate
    private let build: [String: String]

    /// `startedAt` is when the server started; `document` is the OpenAPI document's bytes;
    /// `libeventVersion` is the version of the libevent the server runs on (the wiring asks EventHTTP).
    public init(store: any TodoStore, document: [UInt8], startedAt: Timestamp, libeventVersion: String) {
        self.store = store
        self.document = OpenAPIDocumentTemplate(document)
        build = [
            "swift": Self.swiftVersion,
            "libevent": libeventVersion,
            "platform": Self.platform,
            "startedAt": startedAt.description,
        ]
    }

    public func serviceInfo() -> ServiceInfo {
        ServiceInfo(
            name: "TodoServer", version: Self.version,
            routes: Route.table.compactMap { route in route.indexRelation.map { ($0, route.template) } },
            build: build)
    }

    /// The store's refusal and statistics: unhealthy while the store refuses changes, or when it
    /// cannot say how many to-dos it holds.
    public func health() -> Pending<HealthData> {
        let refusal = store.writeRefusal
        return store.statistics().map { result in
            switch result {
            case .success(let statistics): HealthData(healthy: refusal == nil, todoCount: statistics.count, reason: refusal)
            case .failure(let error): HealthData(healthy: false, todoCount: 0, reason: refusal ?? error.reason)
            }
        }
    }

    /// The OpenAPI 3.1 document that describes the API, as shipped, with `serverURL` as its
    /// `servers` URL.
    public func openAPIDocument(serverURL: String) -> [UInt8] {
        document.rendered(serverURL: serverURL)
    }

    /// The language version the binary was compiled with.
    static var swiftVersion: String {
        #if swift(>=6.4)
            "6.4+"
        #elseif swift(>=6.3)
            "6.3"
        #elseif swift(>=6.2)
            "6.2"
        #else
            "6.1 or earlier"
        #endif
    }

    static var platform: String {
        #if os(Linux)
            let os = "linux"
        #elseif os(macOS)
            let os = "macos"
        #else
            let os = "other"
        #endif
        #if arch(x86_64)
            return os + "-x86_64"
        #elseif arch(arm64)
            return os + "-arm64"
        #else
            return os
        #endif
    }
}

/// The service's name and version, and the routes it serves.
public struct ServiceInfo: Sendable, Equatable {
    public var name: String
    public var version: String
    /// Link relation and path of each route the index lists.
    public var routes: [(rel: String, path: String)]
    /// What the binary was built with and runs on.
    public var build: [String: String]

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.version == rhs.version && lhs.build == rhs.build
            && lhs.routes.map(\.rel) == rhs.routes.map(\.rel) && lhs.routes.map(\.path) == rhs.routes.map(\.path)
    }
}

/// Whether the service can serve, and how many to-dos it holds.
public struct HealthData: Sendable, Equatable {
    public var healthy: Bool
    public var todoCount: Int
    /// Why the service is not healthy (the store refuses changes), nil while it is.
    public var reason: String? = nil
}
