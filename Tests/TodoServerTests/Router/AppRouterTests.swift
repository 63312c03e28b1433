import Foundation
import HTTPValues
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("AppRouter (in process)")
struct AppRouterTests {
    let store = FakeTodoStore([makeTodo("abc", title: "Existing")])

    /// One request through the whole pipeline, in process.
    private func route(
        _ method: HTTPMethod, _ uri: String, headers: HTTPHeaders = [:], body: String = "",
        maxBodyBytes: Int = 100, maxURIBytes: Int = 64
    ) async throws -> HTTPResponseSnapshot {
        let client = try InProcessClient(
            configure: {
                $0.maxBodyBytes = maxBodyBytes
                $0.maxURIBytes = maxURIBytes
                $0.publicURL = "http://h"
            },
            store: store, clock: FakeClock("2026-11-22T10:00:00.000Z"), ids: SequentialIDs())
        return await client.request(method, uri, headers: headers, body: body)
    }

    @Test(
        "matches paths to routes; static paths win over {id}",
        arguments: [
            ("/", Route.index), ("/healthz", .health), ("/todos", .todos), ("/todos/upcoming", .upcoming),
            ("/todos/abc", .todo(id: "abc")), ("/todos/a%20b", .todo(id: "a b")), ("/metrics", .metrics), ("/openapi.json", .openAPI),
        ])
    func matches(path: String, route: Route) {
        #expect(Route(path: path) == route)
    }

    @Test(
        "unknown paths match nothing", arguments: ["", "/todos/", "/todos/a/b", "//todos", "/Todos", "/healthz/", "todos", "/todos/abc/"])
    func unknownPaths(path: String) {
        #expect(Route(path: path) == nil)
    }

    @Test("dispatches each method to its use case")
    func dispatch() async throws {
        #expect(try await route(.get, "/todos").array.map { $0["id"] as? String } == ["abc"])
        #expect(try await route(.get, "/todos/abc").object["title"] as? String == "Existing")
        #expect(try await route(.head, "/todos/abc").status == 200)
        let created = try await route(.post, "/todos", headers: ["Content-Type": "application/json"], body: #"{"title":"New"}"#)
        #expect(created.status == 201)
        #expect(created.header("Location") == "http://h/todos/id-1")
        #expect(try await route(.patch, "/todos/abc", body: #"{"completed":true}"#).object["completed"] as? Bool == true)
        #expect(try await route(.put, "/todos/abc", body: #"{"title":"Put"}"#).object["title"] as? String == "Put")
        #expect(try await route(.delete, "/todos/abc").status == 204)
        #expect(try await route(.delete, "/todos").status == 204)
        #expect(store.count == 0)
        #expect(try await route(.get, "/todos/upcoming").object["sections"] as? [Any] != nil)
        #expect(try await route(.get, "/healthz").object["status"] as? String == "ok")
        #expect(try await route(.get, "/").object["name"] as? String == "TodoServer")
    }

    @Test(
        "405 names the allowed methods",
        arguments: [
            (HTTPMethod.patch, "/todos", "GET, HEAD, POST, DELETE, OPTIONS"),
            (.post, "/todos/abc", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"),
            (.delete, "/healthz", "GET, HEAD, OPTIONS"),
            (.trace, "/", "GET, HEAD, OPTIONS"),
            (.put, "/todos/upcoming", "GET, HEAD, OPTIONS"),
        ])
    func methodNotAllowed(method: HTTPMethod, path: String, allow: String) async throws {
        let response = try await route(method, path)
        #expect(response.status == 405)
        #expect(response.header("Allow") == allow)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(response.object["status"] as? Int == 405)
    }

    @Test("unknown path is 404 problem, whatever the method")
    func notFound() async throws {
        for method in [HTTPMethod.get, .post, .options] {
            let response = try await route(method, "/nope")
            #expect(response.status == 404)
            #expect(response.object["detail"] as? String == "No route matches '/nope'.")
        }
    }

    @Test("OPTIONS * asks about the server: 204 with every method some route allows; other methods on * are 404")
    func optionsAsterisk() async throws {
        let response = try await route(.options, "*")
        #expect(response.status == 204)
        #expect(response.header("Allow") == "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
        #expect(response.body.isEmpty)
        let get = try await route(.get, "*")
        #expect(get.status == 404)
        #expect(get.object["detail"] as? String == "No route matches '*'.")
    }

    @Test("a preflight is 204 with the CORS headers, echoing the asked headers")
    func preflight() async throws {
        let response = try await route(
            .options, "/todos/abc",
            headers: ["Access-Control-Request-Method": "PATCH", "Access-Control-Request-Headers": "content-type, x-custom"])
        #expect(response.status == 204)
        #expect(response.header("Access-Control-Allow-Methods") == "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
        #expect(response.header("Access-Control-Allow-Headers") == "Content-Type, If-Match, If-None-Match, x-custom")
        #expect(response.header("Access-Control-Max-Age") == "86400")
        #expect(response.body.isEmpty)
    }

    @Test(
        "415 for a body of another type; JSON, +json and curl's form type pass",
        arguments: [
            ("text/plain", 415), ("application/xml", 415), ("multipart/form-data; boundary=x", 415),
            ("application/json", 201), ("application/json; charset=utf-8", 201), ("application/merge-patch+json", 201),
            ("APPLICATION/JSON", 201), ("application/x-www-form-urlencoded", 201),
        ])
    func contentTypes(type: String, status: Int) async throws {
        let response = try await route(.post, "/todos", headers: ["Content-Type": type], body: #"{"title":"x"}"#)
        #expect(response.status == status)
        if status == 415 { #expect(store.count == 1) }
    }

    @Test("a Content-Type on a request without a body is ignored")
    func contentTypeWithoutBody() async throws {
        #expect(try await route(.get, "/todos", headers: ["Content-Type": "text/plain"]).status == 200)
        #expect(try await route(.delete, "/todos/abc", headers: ["Content-Type": "text/plain"]).status == 204)
    }

    @Test("413 over the body limit, 414 over the URI limit, 400 on two Content-Lengths; nothing is stored")
    func limits() async throws {
        let big = #"{"title":""# + String(repeating: "x", count: 100) + #""}"#
        let tooLarge = try await route(.post, "/todos", body: big)
        #expect(tooLarge.status == 413)
        #expect(tooLarge.object["detail"] as? String == "The request body is larger than the limit of 100 bytes.")
        let exact = #"{"title":""# + String(repeating: "x", count: 88) + #""}"#
        #expect(exact.utf8.count == 100)
        #expect(try await route(.post, "/todos", body: exact).status == 201)
        #expect(try await route(.get, "/todos?q=" + String(repeating: "a", count: 56)).status == 414)
        #expect(try await route(.get, "/todos?q=" + String(repeating: "a", count: 55)).status == 200)
        let smuggle = try await route(.post, "/todos", headers: ["Content-Length": "5", "content-length": "7"], body: "{}")
        #expect(smuggle.status == 400)
        #expect(smuggle.header("Connection") == "close")
        #expect(store.count == 2)
    }
}
