import Foundation
import TestSupport
import Testing

@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("End to end: errors are problem+json")
struct ErrorsEndToEndTests {
    @Test("every error status of the contract, and none changes stored data")
    func statuses() async throws {
        let server = try TestServer(configure: {
            $0.maxBodyBytes = 1000; $0.maxURIBytes = 200
        })
        let created = try await server.request("POST", "/todos", body: #"{"title":"keep me"}"#)
        let id = try #require(created.object["id"] as? String)

        expectProblem(try await server.request("POST", "/todos", body: #"{"title":"x",}"#), 400)
        expectProblem(try await server.request("POST", "/todos", body: "[1,2]"), 400)
        expectProblem(try await server.request("PATCH", "/todos/\(id)", body: "not json"), 400)
        expectProblem(try await server.request("POST", "/todos", body: ""), 400)
        expectProblem(try await server.request("GET", "/todos/nope"), 404)
        expectProblem(try await server.request("PATCH", "/todos/nope", body: "{}"), 404)
        expectProblem(try await server.request("GET", "/nothing/here"), 404)
        let wrongMethod = try await server.request("PUT", "/todos", body: "{}")
        expectProblem(wrongMethod, 405)
        #expect(wrongMethod.header("Allow") == "GET, HEAD, POST, DELETE, OPTIONS")
        expectProblem(try await server.request("POST", "/todos", body: String(repeating: " ", count: 1001) + "{}"), 413)
        expectProblem(try await server.request("GET", "/todos?q=" + String(repeating: "x", count: 200)), 414)
        expectProblem(try await server.request("POST", "/todos", headers: [("Content-Type", "text/plain")], body: #"{"title":"x"}"#), 415)
        let invalid = try await server.request("PATCH", "/todos/\(id)", body: #"{"title":"","order":"high","extra":1}"#)
        expectProblem(invalid, 422)
        #expect(
            (invalid.object["errors"] as? [[String: String]]) == [
                ["field": "extra", "message": "is not a known field"],
                ["field": "order", "message": "must be an integer or null, not a string"],
                ["field": "title", "message": "must not be empty"],
            ])
        let invalidTypes = try await server.request("PUT", "/todos/\(id)", body: #"{"title":"","order":"high"}"#)
        expectProblem(invalidTypes, 422)
        #expect((invalidTypes.object["errors"] as? [[String: String]])?.map { $0["field"] } == ["order", "title"])
        expectProblem(try await server.request("GET", "/todos/upcoming?tz=Nowhere/Else"), 400)
        expectProblem(try await server.request("GET", "/todos/upcoming?weekStart=friday"), 400)

        let list = try await server.request("GET", "/todos")
        #expect(list.array.count == 1)
        #expect(list.array.first?["title"] as? String == "keep me")
        #expect(list.array.first?["updatedAt"] as? String == created.object["updatedAt"] as? String)
    }

    @Test("a form-encoded body (http --form, an HTML form) gets a 400 that says to send JSON, and stores nothing")
    func formBody() async throws {
        let server = try TestServer()
        let created = try await server.request(
            "POST", "/todos", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "title=Buy+milk&order=1")
        #expect(created.status == 400)
        #expect(created.header("Content-Type") == "application/problem+json")
        #expect(
            created.object["detail"] as? String
                == #"The body is form-encoded (name=value), not JSON; send JSON (Content-Type: application/json), such as {"title":"Buy milk"}."#
        )
        #expect(server.store.count == 0)
        // curl -d '{…}' sends JSON under the same form type: still read as JSON.
        let json = try await server.request(
            "POST", "/todos", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: #"{"title":"Buy milk"}"#)
        #expect(json.status == 201)
    }
}
