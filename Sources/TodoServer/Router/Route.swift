import EventHTTP

/// A route of the API: what a request path names, which methods it allows. The paths, methods
/// and templates are those of `Route.table`.
public enum Route: Sendable, Equatable {
    case index
    case health
    case todos
    case upcoming
    case todo(id: String)
    case metrics
    case openAPI

    /// Matches a raw (percent-encoded) path against `Route.table`; static paths win over `/todos/{id}`.
    public init?(path: String) {
        for definition in Route.table where definition.parameterPrefix == nil && definition.template == path {
            self = definition.route
            return
        }
        for definition in Route.table {
            guard let prefix = definition.parameterPrefix?.utf8 else { continue }
            let utf8 = path.utf8
            guard utf8.count > prefix.count, utf8.starts(with: prefix) else { continue }
            let id = utf8.dropFirst(prefix.count)
            guard !id.contains(UInt8(ascii: "/")) else { continue }
            self = .todo(id: PercentDecoding.decode(Substring(id)))
            return
        }
        return nil
    }

    /// The methods the route answers, in the order `Allow` lists them.
    public var allowedMethods: [HTTPMethod] { definition.methods }

    /// The `Allow` field value.
    public var allow: String {
        allowedMethods.map(\.rawValue).joined(separator: ", ")
    }

    /// The path template, as logs and metrics name the route.
    public var template: String { definition.template }
}
