import HTTPValues

/// One row of the route table: the route, its path template, the methods it answers (in the order
/// `Allow` lists them) and, for a route the service index links, the link's relation.
public struct RouteDefinition: Sendable, Equatable {
    /// The route this row defines (`.todo(id: "")` stands for every id).
    public let route: Route
    /// The path as the OpenAPI document, logs and metrics name it (`/todos/{id}`).
    public let template: String
    public let methods: [HTTPMethod]
    /// The relation of the service index's link to this route; nil when the index does not link it.
    public let indexRelation: String?

    /// For a template ending in one `{parameter}` segment: what comes before it (`/todos/`).
    let parameterPrefix: String?

    public init(route: Route, template: String, methods: [HTTPMethod], indexRelation: String?) {
        self.route = route
        self.template = template
        self.methods = methods
        self.indexRelation = indexRelation
        parameterPrefix = template.hasSuffix("}") ? template.firstIndex(of: "{").map { String(template[..<$0]) } : nil
    }
}

extension Route {
    private static let readOnly: [HTTPMethod] = [.get, .head, .options]

    /// Every route of the API, the one place that spells them: the router matches paths against
    /// it and answers `Allow` from it, CORS preflights allow every method in it, the service index
    /// links the rows with a relation, and a test holds the OpenAPI document's paths to it.
    public static let table: [RouteDefinition] = [
        RouteDefinition(route: .index, template: "/", methods: readOnly, indexRelation: "self"),
        RouteDefinition(route: .health, template: "/healthz", methods: readOnly, indexRelation: "health"),
        RouteDefinition(route: .todos, template: "/todos", methods: [.get, .head, .post, .delete, .options], indexRelation: "todos"),
        RouteDefinition(route: .upcoming, template: "/todos/upcoming", methods: readOnly, indexRelation: "upcoming"),
        RouteDefinition(route: .events, template: "/todos/events", methods: readOnly, indexRelation: "events"),
        RouteDefinition(
            route: .todo(id: ""), template: "\(todoPathPrefix){id}", methods: [.get, .head, .put, .patch, .delete, .options],
            indexRelation: nil),
        RouteDefinition(route: .metrics, template: "/metrics", methods: readOnly, indexRelation: "metrics"),
        RouteDefinition(route: .openAPI, template: "/openapi.json", methods: readOnly, indexRelation: "openapi"),
    ]

    /// What a to-do's path is before its id: the `/todos/{id}` row above is made from it, and every
    /// to-do url (`url`, `Location`, the feed's events) is written with it.
    static var todoPathPrefix: StaticString { "/todos/" }

    /// The path of the to-do `id`.
    static func todoPath(id: String) -> String { "\(todoPathPrefix)\(id)" }

    /// The absolute url of the to-do `id`, copied into a string of its size: one allocation, where
    /// interpolation appends four times and regrows.
    static func todoURL(baseURL: String, id: String) -> String {
        let path = todoPathPrefix
        return String(unsafeUninitializedCapacity: baseURL.utf8.count + path.utf8CodeUnitCount + id.utf8.count) { buffer in
            var written = 0
            func put(_ part: String) {
                written += UnsafeMutableBufferPointer(rebasing: buffer[written...]).initialize(fromContentsOf: part.utf8)
            }
            put(baseURL)
            written += UnsafeMutableBufferPointer(rebasing: buffer[written...])
                .initialize(fromContentsOf: UnsafeBufferPointer(start: path.utf8Start, count: path.utf8CodeUnitCount))
            put(id)
            return written
        }
    }

    /// Every method some route answers, in `Allow`'s order: what a CORS preflight allows.
    public static let methodsOfAnyRoute: [HTTPMethod] = {
        let order: [HTTPMethod] = [.get, .head, .post, .put, .patch, .delete, .options]
        return order.filter { method in table.contains { $0.methods.contains(method) } }
    }()

    /// `methodsOfAnyRoute` as an `Allow` value: the answer to `OPTIONS *`.
    public static let allMethodsAllow = methodsOfAnyRoute.map(\.rawValue).joined(separator: ", ")

    /// This route's row of `table`.
    public var definition: RouteDefinition {
        for definition in Route.table where definition.route.isSameRoute(as: self) { return definition }
        preconditionFailure("\(self) has no row in Route.table")
    }

    /// The same route, whatever the id.
    private func isSameRoute(as other: Route) -> Bool {
        if case .todo = self, case .todo = other { return true }
        return self == other
    }
}
