import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

/// The Todo-Backend client's flow: a preflight before every request, JSON content type on every one.
@Suite("End to end: Todo-Backend client flow")
struct TodoBackendFlowTests {
    private func call(_ server: TestServer, _ method: String, _ target: String, body: String? = nil) async throws -> HTTPResponseSnapshot {
        let preflight = try await server.preflight(
            target, from: "http://www.todobackend.com", method: method, requestHeaders: "content-type")
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Headers")?.lowercased().contains("content-type") == true)
        #expect(preflight.header("Access-Control-Allow-Methods")?.contains(method) == true)
        let response = try await server.request(
            method, target,
            headers: [
                ("Origin", "http://www.todobackend.com"), ("Content-Type", "application/json"),
            ], body: body)
        #expect(response.header("Access-Control-Allow-Origin") == "*")
        return response
    }

    /// The path part of an absolute to-do url.
    private func path(_ url: Any?) throws -> String {
        let url = try #require(url as? String)
        return try #require(URL(string: url)?.path)
    }

    @Test("the whole flow")
    func flow() async throws {
        let server = try TestServer()
        #expect(try await call(server, "DELETE", "/todos").status == 204)
        #expect(try await call(server, "GET", "/todos").text == "[]")

        let created = try await call(server, "POST", "/todos", body: #"{"title":"a todo"}"#)
        #expect(created.status == 201)
        #expect(created.object["completed"] as? Bool == false)
        let url = try #require(created.object["url"] as? String)
        #expect(url.hasPrefix("http://"))
        let todoPath = try path(url)

        let fetched = try await call(server, "GET", todoPath)
        #expect(fetched.object["title"] as? String == "a todo")

        #expect(
            try await call(server, "PATCH", todoPath, body: #"{"title":"bathe the cat"}"#).object["title"] as? String == "bathe the cat")
        #expect(try await call(server, "PATCH", todoPath, body: #"{"completed":true}"#).object["completed"] as? Bool == true)
        #expect(try await call(server, "PATCH", todoPath, body: #"{"order":523}"#).object["order"] as? Int == 523)
        #expect(try await call(server, "PATCH", todoPath, body: #"{"order":95}"#).object["order"] as? Int == 95)

        let item = try await call(server, "GET", todoPath)
        #expect(item.object["title"] as? String == "bathe the cat")
        #expect(item.object["completed"] as? Bool == true)
        #expect(item.object["order"] as? Int == 95)
        let listed = try await call(server, "GET", "/todos").array
        #expect(listed.count == 1)
        #expect(listed.first?["order"] as? Int == 95)
        #expect(listed.first?["completed"] as? Bool == true)

        let replaced = try await call(server, "PUT", todoPath, body: item.text)
        #expect(replaced.status == 200)
        #expect(replaced.object["title"] as? String == "bathe the cat")
        #expect(replaced.object["order"] as? Int == 95)
        #expect(replaced.object["id"] as? String == item.object["id"] as? String)

        _ = try await call(server, "POST", "/todos", body: #"{"title":"second"}"#)
        #expect(try await call(server, "DELETE", todoPath).status == 204)
        #expect(try await call(server, "GET", todoPath).status == 404)
        #expect(try await call(server, "GET", "/todos").array.map { $0["title"] as? String } == ["second"])
        #expect(try await call(server, "DELETE", "/todos").status == 204)
        #expect(try await call(server, "GET", "/todos").text == "[]")
    }
}
