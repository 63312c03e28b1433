import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// The HTTP contract through the whole pipeline (`TestServer`), the same on every store: memory,
/// journal and PostgreSQL.
@Suite("End to end: the same contract on every store", .tags(.postgres))
struct StoreContractEndToEndTests {
    private func server(_ kind: StoreKind, clock: any TodoClock = SystemClock()) async throws -> (TestServer, ContractStore) {
        let store = try await ContractStore(kind)
        return (try TestServer(store: store.store, clock: clock), store)
    }

    @Test("create, read, change, replace and delete", arguments: StoreKind.available)
    func crud(kind: StoreKind) async throws {
        let (server, store) = try await server(kind)
        defer { withExtendedLifetime(store) {} }
        let created = try await server.request("POST", "/todos", body: #"{"title":"Äpfel kaufen","order":3,"dueDate":"2026-12-01"}"#)
        #expect(created.status == 201)
        let id = try #require(created.object["id"] as? String)
        let path = "/todos/\(id)"
        let tag = try #require(created.header("ETag"))
        let read = try await server.request("GET", path)
        #expect(read.status == 200)
        #expect(read.header("ETag") == tag)
        #expect(read.text == created.text)
        #expect(read.object["title"] as? String == "Äpfel kaufen")
        #expect(read.object["order"] as? Int == 3)
        #expect(read.object["dueDate"] as? String == "2026-12-01")
        #expect(read.object["completed"] as? Bool == false)

        let patched = try await server.request("PATCH", path, body: #"{"completed":true,"dueDate":null}"#)
        #expect(patched.status == 200)
        #expect(patched.object["completed"] as? Bool == true)
        #expect(patched.object["dueDate"] == nil || patched.object["dueDate"] is NSNull)
        let patchedTag = try #require(patched.header("ETag"))
        #expect(patchedTag != tag)
        // The same change again changes nothing: same tag, same body.
        let again = try await server.request("PATCH", path, body: #"{"completed":true}"#)
        #expect(again.status == 200)
        #expect(again.header("ETag") == patchedTag)
        #expect(again.text == patched.text)

        let replaced = try await server.request("PUT", path, body: #"{"title":"Birnen","completed":false}"#)
        #expect(replaced.status == 200)
        #expect(replaced.object["title"] as? String == "Birnen")
        #expect(replaced.object["order"] as? Int != 3)
        #expect(try await server.request("GET", path).text == replaced.text)

        #expect(try await server.request("DELETE", path).status == 204)
        #expect(try await server.request("GET", path).status == 404)
        #expect(try await server.request("DELETE", path).status == 404)
        #expect(try await server.request("GET", "/todos/not-an-id").status == 404)
        #expect(try await server.request("PATCH", "/todos/00000000-0000-4000-8000-000000000000", body: "{}").status == 404)
    }

    @Test("If-Match and If-None-Match: 412 with the current tag, 304 while unchanged", arguments: StoreKind.available)
    func conditions(kind: StoreKind) async throws {
        let (server, store) = try await server(kind)
        defer { withExtendedLifetime(store) {} }
        let created = try await server.request("POST", "/todos", body: #"{"title":"Shared"}"#)
        let path = "/todos/\(try #require(created.object["id"] as? String))"
        let tag = try #require(created.header("ETag"))
        #expect(try await server.request("GET", path, headers: [("If-None-Match", tag)]).status == 304)
        let first = try await server.request("PATCH", path, headers: [("If-Match", tag)], body: #"{"title":"A"}"#)
        #expect(first.status == 200)
        let newTag = try #require(first.header("ETag"))
        let stale = try await server.request("PATCH", path, headers: [("If-Match", tag)], body: #"{"title":"B"}"#)
        #expect(stale.status == 412)
        #expect(stale.header("ETag") == newTag)
        #expect(try await server.request("PUT", path, headers: [("If-Match", tag)], body: #"{"title":"B"}"#).status == 412)
        #expect(try await server.request("DELETE", path, headers: [("If-Match", tag)]).status == 412)
        #expect(try await server.request("PUT", path, headers: [("If-None-Match", "*")], body: #"{"title":"B"}"#).status == 412)
        #expect(try await server.request("GET", path).object["title"] as? String == "A")
        #expect(try await server.request("GET", path, headers: [("If-None-Match", tag)]).status == 200)
        #expect(try await server.request("PATCH", path, headers: [("If-Match", "*")], body: #"{"completed":true}"#).status == 200)
        let current = try #require(try await server.request("GET", path).header("ETag"))
        #expect(try await server.request("DELETE", path, headers: [("If-Match", current)]).status == 204)
        #expect(try await server.request("PATCH", path, headers: [("If-Match", "*")], body: "{}").status == 412)
    }

    @Test("lists: filters, orders, pages, X-Total-Count, Link and ETag", arguments: StoreKind.available)
    func lists(kind: StoreKind) async throws {
        let (server, store) = try await server(kind)
        defer { withExtendedLifetime(store) {} }
        let titles = ["buy milk", "Call mum", "BUY eggs", "walk", "Buy bread", "read", "sleep"]
        for (index, title) in titles.enumerated() {
            let order = index == 3 ? "null" : String(7 - index)
            let completed = index % 3 == 0
            #expect(
                try await server.request("POST", "/todos", body: #"{"title":"\#(title)","order":\#(order),"completed":\#(completed)}"#)
                    .status
                    == 201)
        }
        let page = try await server.request("GET", "/todos?limit=3&offset=2")
        #expect(page.status == 200)
        #expect(page.header("X-Total-Count") == "7")
        #expect(page.array.map { $0["title"] as? String } == ["Buy bread", "BUY eggs", "Call mum"])
        #expect(page.header("Link")?.contains("offset=5") == true)
        let tag = try #require(page.header("ETag"))
        #expect(try await server.request("GET", "/todos?limit=3&offset=2").header("ETag") == tag)
        #expect(try await server.request("GET", "/todos?limit=3&offset=2", headers: [("If-None-Match", tag)]).status == 304)

        let search = try await server.request("GET", "/todos?q=buy&sort=-title")
        #expect(search.header("X-Total-Count") == "3")
        #expect(search.array.map { $0["title"] as? String } == ["buy milk", "BUY eggs", "Buy bread"])
        let done = try await server.request("GET", "/todos?completed=true")
        #expect(done.header("X-Total-Count") == "3")
        #expect(done.array.map { $0["title"] as? String } == ["sleep", "buy milk", "walk"])
        let beyond = try await server.request("GET", "/todos?offset=50")
        #expect(beyond.array.isEmpty)
        #expect(beyond.header("X-Total-Count") == "7")

        let first = try #require(page.array.first?["id"] as? String)
        #expect(try await server.request("PATCH", "/todos/\(first)", body: #"{"title":"Buy bread!"}"#).status == 200)
        #expect(try await server.request("GET", "/todos?limit=3&offset=2", headers: [("If-None-Match", tag)]).status == 200)
    }

    @Test("upcoming: the open to-dos due from today to the end of next week, by section", arguments: StoreKind.available)
    func upcoming(kind: StoreKind) async throws {
        // Wednesday 2026-11-25, UTC.
        let (server, store) = try await server(kind, clock: FakeClock("2026-11-25T10:00:00.000Z"))
        defer { withExtendedLifetime(store) {} }
        let due = [
            ("today", "2026-11-25", false), ("tomorrow", "2026-11-26", false), ("friday", "2026-11-27", false),
            ("next monday", "2026-11-30", false), ("too late", "2026-12-07", false), ("done", "2026-11-25", true),
            ("yesterday", "2026-11-24", false),
        ]
        for (title, day, completed) in due {
            #expect(
                try await server.request("POST", "/todos", body: #"{"title":"\#(title)","dueDate":"\#(day)","completed":\#(completed)}"#)
                    .status
                    == 201)
        }
        let answer = try await server.request("GET", "/todos/upcoming")
        #expect(answer.status == 200)
        let sections = try #require(answer.object["sections"] as? [[String: Any]])
        #expect(sections.map { $0["relativeDate"] as? String } == ["today", "tomorrow", "laterThisWeek", "nextWeek"])
        #expect(
            sections.map { ($0["items"] as? [[String: Any]])?.map { $0["title"] as? String } ?? [] }
                == [["today"], ["tomorrow"], ["friday"], ["next monday"]])
    }
}
