import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("End to end: per-to-do revisions and the list ETag")
struct RevisionsEndToEndTests {
    private let json = [("Content-Type", "application/json")]
    let server: TestServer

    init() throws { server = try TestServer() }

    @Test("two to-dos both start at \"1\"; an unchanged PATCH or PUT keeps the ETag and updatedAt; a change bumps only its own")
    func perTodoRevisions() async throws {
        let a = try await server.request("POST", "/todos", headers: json, body: #"{"title":"A","order":1}"#)
        let b = try await server.request("POST", "/todos", headers: json, body: #"{"title":"B","order":2}"#)
        #expect(a.header("ETag") == #""1""#)
        #expect(b.header("ETag") == #""1""#)
        let pathA = "/todos/\(try #require(a.object["id"] as? String))"
        let pathB = "/todos/\(try #require(b.object["id"] as? String))"

        let same = try await server.request("PATCH", pathA, headers: json, body: #"{"title":"A","order":1}"#)
        #expect(same.status == 200)
        #expect(same.header("ETag") == #""1""#)
        #expect(same.object["updatedAt"] as? String == a.object["updatedAt"] as? String)
        let samePut = try await server.request("PUT", pathA, headers: json, body: #"{"title":"A","order":1,"completed":false}"#)
        #expect(samePut.header("ETag") == #""1""#)

        let changed = try await server.request("PATCH", pathA, headers: json + [("If-Match", #""1""#)], body: #"{"completed":true}"#)
        #expect(changed.status == 200)
        #expect(changed.header("ETag") == #""2""#)
        #expect(try await server.request("GET", pathB).header("ETag") == #""1""#, "another to-do's change leaves B's tag")
        #expect(try await server.request("PATCH", pathB, headers: json + [("If-Match", #""2""#)], body: #"{"title":"B2"}"#).status == 412)
        #expect(
            try await server.request("PATCH", pathB, headers: json + [("If-Match", #"W/"1""#)], body: #"{"title":"B2"}"#).status == 412,
            "a weak tag never matches If-Match")
        #expect(try await server.request("GET", pathA, headers: [("If-None-Match", #"W/"2""#)]).status == 304)
        #expect(try await server.request("DELETE", pathA, headers: [("If-Match", #""1""#)]).status == 412)
        #expect(try await server.request("DELETE", pathA, headers: [("If-Match", #""2""#)]).status == 204)
    }

    @Test("the list ETag follows what the page shows: the same while it and its total stay, another when either changes")
    func listTagFollowsThePage() async throws {
        var paths: [String] = []
        for (title, order) in [("First", 1), ("Second", 2), ("Third", 3)] {
            let created = try await server.request("POST", "/todos", headers: json, body: #"{"title":"\#(title)","order":\#(order)}"#)
            paths.append("/todos/\(try #require(created.object["id"] as? String))")
        }
        func tag(_ target: String) async throws -> String { try #require(try await server.request("GET", target).header("ETag")) }
        let firstPage = try await tag("/todos?limit=1")
        let all = try await tag("/todos")
        #expect(firstPage.hasPrefix(#""list-"#) && firstPage.count == 23)
        #expect(try await tag("/todos?limit=1") == firstPage, "read twice, the same tag")
        #expect(try await server.request("GET", "/todos?limit=1", headers: [("If-None-Match", firstPage)]).status == 304)
        #expect(try await tag("/todos?limit=2") != firstPage, "another limit")
        #expect(try await tag("/todos?limit=1&offset=1") != firstPage, "another offset")

        // A change that changes nothing keeps every tag.
        #expect(try await server.request("PATCH", paths[2], headers: json, body: #"{"title":"Third"}"#).status == 200)
        #expect(try await tag("/todos") == all)
        // A change to a to-do on another page that does not move it keeps the first page's tag.
        #expect(try await server.request("PATCH", paths[2], headers: json, body: #"{"title":"Third, changed"}"#).status == 200)
        #expect(try await tag("/todos?limit=1") == firstPage)
        let afterChange = try await tag("/todos")
        #expect(afterChange != all, "an item's revision changed")
        // A new to-do changes the total: every page's tag changes.
        #expect(try await server.request("POST", "/todos", headers: json, body: #"{"title":"Fourth","order":4}"#).status == 201)
        #expect(try await tag("/todos?limit=1") != firstPage)
        #expect(try await server.request("GET", "/todos", headers: [("If-None-Match", afterChange)]).status == 200)
    }
}
