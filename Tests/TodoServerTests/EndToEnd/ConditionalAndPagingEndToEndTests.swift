import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("End to end: conditional requests and paging")
struct ConditionalAndPagingEndToEndTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    @Test("two clients edit one to-do: the second's stale If-Match gets 412 and the first's change stays")
    func lostUpdate() async throws {
        let created = try await server.request("POST", "/todos", body: #"{"title":"Shared"}"#)
        let path = "/todos/\(try #require(created.object["id"] as? String))"
        // Two browser tabs (each request is a client of its own).
        let tabA = server, tabB = server
        let readA = try await tabA.request("GET", path), readB = try await tabB.request("GET", path)
        let etag = try #require(readA.header("ETag"))
        #expect(readB.header("ETag") == etag)
        #expect(etag == created.header("ETag"))

        let first = try await tabA.request("PATCH", path, headers: [("If-Match", etag)], body: #"{"title":"From A"}"#)
        #expect(first.status == 200)
        let newTag = try #require(first.header("ETag"))
        #expect(newTag != etag)

        let second = try await tabB.request("PATCH", path, headers: [("If-Match", etag)], body: #"{"title":"From B"}"#)
        #expect(second.status == 412)
        #expect(second.header("Content-Type") == "application/problem+json")
        #expect(second.header("ETag") == newTag)
        #expect(try await tabB.request("PUT", path, headers: [("If-Match", etag)], body: #"{"title":"From B"}"#).status == 412)
        #expect(try await tabB.request("DELETE", path, headers: [("If-Match", etag)]).status == 412)
        #expect(try await server.request("GET", path).object["title"] as? String == "From A")

        #expect(try await tabB.request("PATCH", path, headers: [("If-Match", "*")], body: #"{"completed":true}"#).status == 200)
        let current = try #require(try await server.request("GET", path).header("ETag"))
        #expect(try await tabB.request("DELETE", path, headers: [("If-Match", current)]).status == 204)
        #expect(try await tabB.request("PATCH", "/todos/gone", headers: [("If-Match", "\"1\"")], body: "{}").status == 404)
    }

    @Test("an empty If-Match or If-None-Match is a 400 naming it, and changes nothing")
    func emptyConditions() async throws {
        let created = try await server.request("POST", "/todos", body: #"{"title":"Kept"}"#)
        let path = "/todos/\(try #require(created.object["id"] as? String))"
        let patch = try await server.request("PATCH", path, headers: [("If-Match", "")], body: #"{"title":"Changed"}"#)
        #expect(patch.status == 400)
        #expect(patch.object["detail"] as? String == "The If-Match header is empty; send * or one or more entity tags, or leave it out.")
        let read = try await server.request("GET", path, headers: [("If-None-Match", " ")])
        #expect(read.status == 400)
        #expect(read.header("Content-Type") == "application/problem+json")
        #expect(try await server.request("GET", path).object["title"] as? String == "Kept")
    }

    @Test("If-None-Match: 304 with no body while unchanged, 200 after any change; HEAD too")
    func notModified() async throws {
        let created = try await server.request("POST", "/todos", body: #"{"title":"Poll me"}"#)
        let path = "/todos/\(try #require(created.object["id"] as? String))"
        let etag = try #require(created.header("ETag"))
        let cached = try await server.request("GET", path, headers: [("If-None-Match", etag)])
        #expect(cached.status == 304)
        #expect(cached.body.isEmpty)
        #expect(cached.header("ETag") == etag)
        #expect(try await server.request("HEAD", path, headers: [("If-None-Match", "W/\(etag)")]).status == 304)

        let list = try await server.request("GET", "/todos")
        let listTag = try #require(list.header("ETag"))
        #expect(listTag != etag)
        #expect(try await server.request("GET", "/todos", headers: [("If-None-Match", listTag)]).status == 304)
        #expect(try await server.request("GET", "/todos", headers: [("If-None-Match", "\"other\", \(listTag)")]).status == 304)

        _ = try await server.request("POST", "/todos", body: #"{"title":"Another"}"#)
        let changed = try await server.request("GET", "/todos", headers: [("If-None-Match", listTag)])
        #expect(changed.status == 200)
        #expect(changed.array.count == 2)
        let afterCreate = try #require(changed.header("ETag"))
        _ = try await server.request("PATCH", path, body: #"{"completed":true}"#)
        #expect(try await server.request("GET", "/todos", headers: [("If-None-Match", afterCreate)]).status == 200)
        #expect(try await server.request("GET", path, headers: [("If-None-Match", etag)]).status == 200)
        let beforeDelete = try #require(try await server.request("GET", "/todos").header("ETag"))
        _ = try await server.request("DELETE", path)
        #expect(try await server.request("GET", "/todos", headers: [("If-None-Match", beforeDelete)]).status == 200)
    }

    @Test("paging 2,345 to-dos with limit=100 through Link headers visits each once, in order")
    func paging() async throws {
        for index in 0..<2345 {
            _ = try await server.request("POST", "/todos", body: #"{"title":"Item \#(index)","order":\#(index % 50)}"#)
        }
        var expected: [String] = []
        for offset in [0, 1000, 2000] {
            expected += try await server.request("GET", "/todos?sort=-order&limit=1000&offset=\(offset)").array.compactMap {
                $0["id"] as? String
            }
        }
        var seen: [String] = []
        var next: String? = "/todos?sort=-order&limit=100"
        var pages = 0
        while let target = next {
            let page = try await server.request("GET", target)
            #expect(page.status == 200)
            #expect(page.header("X-Total-Count") == "2345")
            seen += page.array.compactMap { $0["id"] as? String }
            next = Self.link("next", in: page.header("Link")).map { URL(string: $0)!.path + "?" + URL(string: $0)!.query! }
            if let next { #expect(next.contains("sort=-order")) }
            pages += 1
        }
        #expect(pages == 24)
        #expect(seen.count == 2345)
        #expect(Set(seen).count == 2345)
        #expect(seen == expected)
        let orders = try await server.request("GET", "/todos?sort=-order&limit=1000").array.compactMap { $0["order"] as? Int }
        #expect(orders.count == 1000)
        #expect(orders == orders.sorted(by: >))

        let last = try await server.request("GET", "/todos?sort=-order&limit=100&offset=2300")
        #expect(last.array.count == 45)
        #expect(Self.link("next", in: last.header("Link")) == nil)
        #expect(Self.link("prev", in: last.header("Link")) == "http://127.0.0.1/todos?sort=-order&limit=100&offset=2200")
        #expect(Self.link("first", in: last.header("Link")) == "http://127.0.0.1/todos?sort=-order&limit=100&offset=0")
        #expect(Self.link("last", in: last.header("Link")) == "http://127.0.0.1/todos?sort=-order&limit=100&offset=2300")
    }

    @Test("filters and sorts over HTTP match a hand-computed answer; bad parameters are 400 naming them")
    func filters() async throws {
        for (title, completed, order, due) in [
            ("Buy milk", false, "2", "\"2026-12-01\""), ("buy bread", true, "1", "null"),
            ("Call mum", false, "null", "\"2026-11-23\""), ("Buy eggs", false, "3", "\"2026-11-30\""),
        ] {
            _ = try await server.request(
                "POST", "/todos", body: #"{"title":"\#(title)","completed":\#(completed),"order":\#(order),"dueDate":\#(due)}"#)
        }
        func titles(_ query: String) async throws -> [String] {
            try await server.request("GET", "/todos?" + query).array.compactMap { $0["title"] as? String }
        }
        #expect(try await titles("completed=false&sort=dueDate") == ["Call mum", "Buy eggs", "Buy milk"])
        #expect(try await titles("q=buy&sort=-order") == ["Buy eggs", "Buy milk", "buy bread"])
        #expect(try await titles("q=BUY%20M") == ["Buy milk"])
        #expect(try await titles("sort=-dueDate&limit=2") == ["Buy milk", "Buy eggs"])
        #expect(try await server.request("GET", "/todos?completed=true").header("X-Total-Count") == "1")
        for (query, name) in [("limit=abc", "limit"), ("sort=nope", "sort"), ("completed=1", "completed"), ("offset=-5", "offset")] {
            let response = try await server.request("GET", "/todos?" + query)
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect((response.object["detail"] as? String)?.hasPrefix("Query parameter '\(name)'") == true)
        }
    }

    @Test("a list offset near Int.max is an empty page, not a crash (found by schemathesis)")
    func hugeOffset() async throws {
        _ = try await server.request("POST", "/todos", body: #"{"title":"only"}"#)
        for query in ["offset=9223372036854775806&limit=500", "completed=false&offset=9223372036854775807&limit=1000"] {
            let page = try await server.request("GET", "/todos?" + query)
            #expect(page.status == 200)
            #expect(page.array.isEmpty)
            #expect(page.header("X-Total-Count") == "1")
            #expect(page.header("Link")?.contains("rel=\"next\"") == false)
        }
        #expect(try await server.request("GET", "/healthz").status == 200)
    }

    /// The URL of relation `rel` in a `Link` field value.
    static func link(_ rel: String, in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.components(separatedBy: ", ") where part.hasSuffix("rel=\"\(rel)\"") {
            guard let start = part.firstIndex(of: "<"), let end = part.firstIndex(of: ">") else { return nil }
            return String(part[part.index(after: start)..<end])
        }
        return nil
    }
}
