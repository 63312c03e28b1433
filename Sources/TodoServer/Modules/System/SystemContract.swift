import HTTPValues

// The system module: the service index (`GET /`) and the health check (`GET /healthz`).

/// The module's entry for the router (the view, the module's HTTP adapter). These requests carry
/// nothing to decode: the view hands them to the presenter.
public protocol SystemHTTPEntry: Sendable {
    func handleIndex(context: RequestContext, respond: @escaping Respond)
    /// `detailed`: whether the request may see the to-do count and the store's reason (the
    /// router's token decision); anyone else hears only up or down.
    func handleHealth(detailed: Bool, context: RequestContext, respond: @escaping Respond)
    func handleOpenAPIDocument(context: RequestContext, respond: @escaping Respond)
}

/// The presenter, as the view calls it: view models out to `view`.
public protocol SystemModuleInput: Sendable {
    func presentIndex(context: RequestContext, view: some SystemDisplay, respond: @escaping Respond)
    func presentHealth(detailed: Bool, context: RequestContext, view: some SystemDisplay, respond: @escaping Respond)
    func presentOpenAPIDocument(context: RequestContext, view: some SystemDisplay, respond: @escaping Respond)
}

/// What the service says of itself (the interactor).
public protocol SystemUseCases: Sendable {
    func serviceInfo() -> ServiceInfo
    /// The store's refusal and statistics.
    func health(completion: @escaping (HealthData) -> Void)
    /// The OpenAPI 3.1 document that describes the API, as shipped, with `serverURL` as its
    /// `servers` URL.
    func openAPIDocument(serverURL: String) -> [UInt8]
}

/// The view as the presenter sees it: serializes the presenter's view models.
public protocol SystemDisplay: Sendable {
    func displayIndex(_ model: consuming ResponseViewModel<IndexViewModel>, respond: Respond)
    func displayHealth(_ model: consuming ResponseViewModel<HealthViewModel>, respond: Respond)
    /// Writes a document that is already JSON, as it is.
    func displayDocument(_ model: consuming ResponseViewModel<RawBody>, respond: Respond)
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
