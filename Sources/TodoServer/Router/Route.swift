import EventHTTP

/// A route of the API: what a request path names, which methods it allows.
public enum Route: Sendable, Equatable {
    case index
    case health
    case todos
    case upcoming
    case todo(id: String)
    case metrics
    case openAPI

    /// Matches a raw (percent-encoded) path; static paths win over `/todos/{id}`.
    public init?(path: String) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.first == "" else { return nil }
        switch segments.count {
        case 2 where segments[1] == "": self = .index
        case 2 where segments[1] == "healthz": self = .health
        case 2 where segments[1] == "todos": self = .todos
        case 2 where segments[1] == "metrics": self = .metrics
        case 2 where segments[1] == "openapi.json": self = .openAPI
        case 3 where segments[1] == "todos" && segments[2] == "upcoming": self = .upcoming
        case 3 where segments[1] == "todos" && !segments[2].isEmpty:
            self = .todo(id: PercentDecoding.decode(segments[2]))
        default: return nil
        }
    }

    /// The methods the route answers, in the order `Allow` lists them.
    public var allowedMethods: [HTTPMethod] {
        switch self {
        case .index, .health, .upcoming, .metrics, .openAPI: [.get, .head, .options]
        case .todos: [.get, .head, .post, .delete, .options]
        case .todo: [.get, .head, .put, .patch, .delete, .options]
        }
    }

    /// The path template, as logs and metrics name the route.
    public var template: String {
        switch self {
        case .index: "/"
        case .health: "/healthz"
        case .todos: "/todos"
        case .upcoming: "/todos/upcoming"
        case .todo: "/todos/{id}"
        case .metrics: "/metrics"
        case .openAPI: "/openapi.json"
        }
    }
}
