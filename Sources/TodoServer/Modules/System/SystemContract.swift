import HTTPValues

// The system module: the service index (`GET /`), the health check (`GET /healthz`) and the
// OpenAPI document (`GET /openapi.json`). `SystemView` is the router's entry (nothing to decode),
// `SystemPresenter` shapes the view models, `SystemInteractor` says what the service is and asks the
// store how it is; one of each, so no protocols between them.

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

/// The index body: name, version, build info and absolute links by relation.
public struct IndexViewModel: JSONWritable, Sendable, Equatable {
    public var name: String
    public var version: String
    public var build: [String: String]
    public var links: [String: String]

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("build")
        build.write(to: &writer)
        writer.key("links")
        links.write(to: &writer)
        writer.key("name")
        writer.string(name)
        writer.key("version")
        writer.string(version)
        writer.endObject()
    }
}

/// The health body: `{"status":"ok"}` or `{"status":"unavailable"}`; with details, the to-do
/// count and, while the store refuses changes, the reason.
public struct HealthViewModel: JSONWritable, Sendable, Equatable {
    public var status: String
    public var todos: Int? = nil
    public var reason: String? = nil

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let reason {
            writer.key("reason")
            writer.string(reason)
        }
        writer.key("status")
        writer.string(status)
        if let todos {
            writer.key("todos")
            writer.int(todos)
        }
        writer.endObject()
    }
}
