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
        switch path {
        case "/": self = .index
        case "/healthz": self = .health
        case "/todos": self = .todos
        case "/todos/upcoming": self = .upcoming
        case "/metrics": self = .metrics
        case "/openapi.json": self = .openAPI
        default:
            let utf8 = path.utf8
            let prefix = "/todos/".utf8
            guard utf8.count > prefix.count, utf8.starts(with: prefix) else { return nil }
            let id = utf8.dropFirst(prefix.count)
            guard !id.contains(UInt8(ascii: "/")) else { return nil }
            self = .todo(id: PercentDecoding.decode(Substring(id)))
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

    /// The `Allow` field value.
    public var allow: String {
        allowedMethods.map(\.rawValue).joined(separator: ", ")
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
