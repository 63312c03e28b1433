import Foundation
import LockTracing
import Logging
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("End to end: routes")
struct RoutesEndToEndTests {
    @Test("create, read, list, patch, put, delete one, delete all over HTTP")
    func lifecycle() async throws {
        let server = try TestServer()
        let created = try await server.request(
            "POST", "/todos", headers: [("Content-Type", "application/json")],
            body: #"{"title":" Buy milk ","order":3,"dueDate":"2026-11-24"}"#)
        #expect(created.status == 201)
        let id = try #require(created.object["id"] as? String)
        let url = "http://127.0.0.1/todos/\(id)"
        #expect(created.header("Location") == url)
        #expect(created.object["url"] as? String == url)
        #expect(created.object["title"] as? String == "Buy milk")
        #expect(created.object["completed"] as? Bool == false)
        #expect(created.object["order"] as? Int == 3)
        #expect(created.object["dueDate"] as? String == "2026-11-24")
        #expect(created.header("Content-Type") == "application/json")

        let read = try await server.request("GET", "/todos/\(id)")
        #expect(read.status == 200)
        #expect(read.text == created.text)

        let patched = try await server.request("PATCH", "/todos/\(id)", body: #"{"completed":true,"dueDate":null}"#)
        #expect(patched.status == 200)
        #expect(patched.object["completed"] as? Bool == true)
        #expect(patched.object["dueDate"] is NSNull)
        #expect(patched.object["title"] as? String == "Buy milk")

        let replaced = try await server.request("PUT", "/todos/\(id)", body: #"{"title":"Buy oat milk"}"#)
        #expect(replaced.status == 200)
        #expect(replaced.object["completed"] as? Bool == false)
        #expect(replaced.object["order"] is NSNull)
        #expect(replaced.object["createdAt"] as? String == created.object["createdAt"] as? String)

        _ = try await server.request("POST", "/todos", body: #"{"title":"Second","order":1}"#)
        let list = try await server.request("GET", "/todos")
        #expect(list.status == 200)
        #expect(list.array.map { $0["title"] as? String } == ["Second", "Buy oat milk"])

        #expect(try await server.request("DELETE", "/todos/\(id)").status == 204)
        #expect(try await server.request("GET", "/todos/\(id)").status == 404)
        #expect(try await server.request("DELETE", "/todos").status == 204)
        #expect(try await server.request("GET", "/todos").text == "[]")
    }

    @Test("index, health and upcoming")
    func systemAndUpcoming() async throws {
        let server = try TestServer(clock: FakeClock("2026-11-22T10:00:00.000Z"))
        let index = try await server.request("GET", "/")
        #expect(index.status == 200)
        #expect((index.object["links"] as? [String: String])?["todos"] == "http://127.0.0.1/todos")
        #expect(index.object["version"] as? String == SystemInteractor.version)
        #expect(try await server.request("GET", "/healthz").text == #"{"status":"ok","todos":0}"#)

        for (title, due) in [("today", "2026-11-22"), ("tomorrow", "2026-11-23"), ("next", "2026-11-27"), ("far", "2026-12-25")] {
            _ = try await server.request("POST", "/todos", body: #"{"title":"\#(title)","dueDate":"\#(due)"}"#)
        }
        let upcoming = try await server.request("GET", "/todos/upcoming?tz=Europe%2FBerlin&weekStart=monday")
        #expect(upcoming.status == 200)
        let sections = try #require(upcoming.object["sections"] as? [[String: Any]])
        #expect(sections.map { $0["relativeDate"] as? String } == ["today", "tomorrow", "nextWeek"])
        #expect(sections.map { $0["title"] as? String } == ["Today", "Tomorrow", "Next week"])
        #expect(sections.map { ($0["items"] as? [[String: Any]])?.map { $0["title"] as? String } } == [["today"], ["tomorrow"], ["next"]])
        #expect(upcoming.object["message"] is NSNull)

        _ = try await server.request("DELETE", "/todos")
        let nothing = try await server.request("GET", "/todos/upcoming")
        #expect(nothing.text == #"{"message":"Nothing is due before the end of next week.","sections":[]}"#)
    }

    @Test("X-Request-ID is echoed or generated, and each request logs one access line")
    func requestIDAndAccessLog() async throws {
        let storage = CapturingLogHandler.Storage()
        let server = try TestServer(logHandler: CapturingLogHandler(storage: storage))
        let echoed = try await server.request("GET", "/healthz", headers: [("X-Request-ID", "abc-123")])
        #expect(echoed.header("X-Request-ID") == "abc-123")
        let generated = try await server.request("POST", "/todos", body: #"{"title":"x"}"#)
        let generatedID = try #require(generated.header("X-Request-ID"))
        #expect(generatedID.count == 16)
        let badID = try await server.request("GET", "/healthz", headers: [("X-Request-ID", String(repeating: "a", count: 200))])
        #expect(badID.header("X-Request-ID")?.count == 16)

        let lines = storage.lines.withTracedLock { $0 }.filter { $0.metadata["request_id"] != nil }
        #expect(lines.count == 3)
        #expect(lines.first?.metadata["request_id"] == "abc-123")
        #expect(lines.first?.message.hasPrefix("GET /healthz 200 25 ") == true)
        #expect(lines.first?.message.hasSuffix("ms") == true)
        #expect(lines[1].metadata["request_id"] == generatedID)
        #expect(lines[1].message.hasPrefix("POST /todos 201 \(generated.body.count) ") == true)
    }
}
