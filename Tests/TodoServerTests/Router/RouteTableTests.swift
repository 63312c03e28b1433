import Foundation
import Testing

@testable import TodoServer

/// `Route.table` is the one list of routes: the OpenAPI document, `Allow`, CORS and the index agree with it.
@Suite("Route table")
struct RouteTableTests {
    /// The document's paths and, per path, its operations' methods (lowercase).
    private func documentOperations() throws -> [String: Set<String>] {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.load())) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let methods: Set<String> = ["get", "head", "post", "put", "patch", "delete", "options", "trace"]
        return paths.mapValues { Set($0.keys).intersection(methods) }
    }

    @Test("the OpenAPI document has exactly the table's paths, each with exactly the table's methods")
    func matchesOpenAPIDocument() throws {
        let documented = try documentOperations()
        let table = Dictionary(uniqueKeysWithValues: Route.table.map { ($0.template, Set($0.methods.map { $0.rawValue.lowercased() })) })
        #expect(Set(documented.keys) == Set(table.keys))
        for (template, methods) in table {
            #expect(documented[template] == methods, "methods of \(template)")
        }
    }

    @Test("every row matches its own template, and the router answers its methods in Allow")
    func rowsRoundTrip() throws {
        for definition in Route.table {
            let path = definition.template.replacingOccurrences(of: "{id}", with: "some-id")
            let route = try #require(Route(path: path))
            #expect(route.definition == definition)
            #expect(route.template == definition.template)
            #expect(route.allow == definition.methods.map(\.rawValue).joined(separator: ", "))
        }
        #expect(Route(path: "/todos/some-id") == .todo(id: "some-id"))
    }

    @Test("a CORS preflight allows every method of the table, in Allow's order")
    func corsMethods() {
        #expect(CORSPolicy.allowedMethods == "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
        let fromTable = Set(Route.table.flatMap(\.methods))
        #expect(Set(Route.methodsOfAnyRoute) == fromTable)
    }

    @Test("the service index links every table row with a relation, to its template")
    func indexLinks() async throws {
        let client = try InProcessClient(configure: { $0.publicURL = "https://todo.example" })
        let links = try #require(await client.request(.get, "/").object["links"] as? [String: String])
        #expect(
            links == [
                "self": "https://todo.example/", "health": "https://todo.example/healthz", "todos": "https://todo.example/todos",
                "upcoming": "https://todo.example/todos/upcoming", "metrics": "https://todo.example/metrics",
                "openapi": "https://todo.example/openapi.json", "events": "https://todo.example/todos/events",
            ])
        #expect(Set(links.keys) == Set(Route.table.compactMap(\.indexRelation)))
    }
}
