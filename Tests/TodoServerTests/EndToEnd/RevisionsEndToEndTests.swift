import Foundation
import Glibc
import TestSupport
import Testing

@testable import TodoServer

@Suite("End to end: per-to-do revisions and the list ETag", .tags(.endToEnd))
struct RevisionsEndToEndTests {
    private let json = [("Content-Type", "application/json")]

    @Test("two to-dos both start at \"1\"; an unchanged PATCH or PUT keeps the ETag and updatedAt; a change bumps only its own")
    func perTodoRevisions() throws {
        let server = try LiveServer()
        let a = try server.request("POST", "/todos", headers: json, body: #"{"title":"A","order":1}"#)
        let b = try server.request("POST", "/todos", headers: json, body: #"{"title":"B","order":2}"#)
        #expect(a.header("ETag") == #""1""#)
        #expect(b.header("ETag") == #""1""#)
        let pathA = "/todos/\(try #require(a.object["id"] as? String))"
        let pathB = "/todos/\(try #require(b.object["id"] as? String))"

        let same = try server.request("PATCH", pathA, headers: json, body: #"{"title":"A","order":1}"#)
        #expect(same.status == 200)
        #expect(same.header("ETag") == #""1""#)
        #expect(same.object["updatedAt"] as? String == a.object["updatedAt"] as? String)
        let samePut = try server.request("PUT", pathA, headers: json, body: #"{"title":"A","order":1,"completed":false}"#)
        #expect(samePut.header("ETag") == #""1""#)

        let changed = try server.request("PATCH", pathA, headers: json + [("If-Match", #""1""#)], body: #"{"completed":true}"#)
        #expect(changed.status == 200)
        #expect(changed.header("ETag") == #""2""#)
        #expect(try server.request("GET", pathB).header("ETag") == #""1""#, "another to-do's change leaves B's tag")
        #expect(try server.request("PATCH", pathB, headers: json + [("If-Match", #""2""#)], body: #"{"title":"B2"}"#).status == 412)
        #expect(
            try server.request("PATCH", pathB, headers: json + [("If-Match", #"W/"1""#)], body: #"{"title":"B2"}"#).status == 412,
            "a weak tag never matches If-Match")
        #expect(try server.request("GET", pathA, headers: [("If-None-Match", #"W/"2""#)]).status == 304)
        #expect(try server.request("DELETE", pathA, headers: [("If-Match", #""1""#)]).status == 412)
        #expect(try server.request("DELETE", pathA, headers: [("If-Match", #""2""#)]).status == 204)
    }

    @Test("the list ETag follows what the page shows: the same while it and its total stay, another when either changes")
    func listTagFollowsThePage() throws {
        let server = try LiveServer()
        var paths: [String] = []
        for (title, order) in [("First", 1), ("Second", 2), ("Third", 3)] {
            let created = try server.request("POST", "/todos", headers: json, body: #"{"title":"\#(title)","order":\#(order)}"#)
            paths.append("/todos/\(try #require(created.object["id"] as? String))")
        }
        func tag(_ target: String) throws -> String { try #require(try server.request("GET", target).header("ETag")) }
        let firstPage = try tag("/todos?limit=1")
        let all = try tag("/todos")
        #expect(firstPage.hasPrefix(#""list-"#) && firstPage.count == 23)
        #expect(try tag("/todos?limit=1") == firstPage, "read twice, the same tag")
        #expect(try server.request("GET", "/todos?limit=1", headers: [("If-None-Match", firstPage)]).status == 304)
        #expect(try tag("/todos?limit=2") != firstPage, "another limit")
        #expect(try tag("/todos?limit=1&offset=1") != firstPage, "another offset")

        // A change that changes nothing keeps every tag.
        #expect(try server.request("PATCH", paths[2], headers: json, body: #"{"title":"Third"}"#).status == 200)
        #expect(try tag("/todos") == all)
        // A change to a to-do on another page that does not move it keeps the first page's tag.
        #expect(try server.request("PATCH", paths[2], headers: json, body: #"{"title":"Third, changed"}"#).status == 200)
        #expect(try tag("/todos?limit=1") == firstPage)
        let afterChange = try tag("/todos")
        #expect(afterChange != all, "an item's revision changed")
        // A new to-do changes the total: every page's tag changes.
        #expect(try server.request("POST", "/todos", headers: json, body: #"{"title":"Fourth","order":4}"#).status == 201)
        #expect(try tag("/todos?limit=1") != firstPage)
        #expect(try server.request("GET", "/todos", headers: [("If-None-Match", afterChange)]).status == 200)
    }

    @Test("the same data in two separate server processes gives the same list ETags; revisions survive a restart")
    func sameTagInTwoProcesses() throws {
        let root = NSTemporaryDirectory() + "todo-revisions-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let first = root + "/one", second = root + "/two"
        func start(_ directory: String) throws -> (ServerProcess, TestHTTPClient) {
            let server = try ServerProcess(arguments: ["--port", "0", "--host", "127.0.0.1", "--threads", "1", "--data-dir", directory])
            return (server, try TestHTTPClient(port: try server.waitForPort()))
        }
        let targets = ["/todos", "/todos?limit=2", "/todos?limit=2&offset=2&sort=-title", "/todos?completed=true"]
        var tags: [String: String] = [:]
        var etagOfChanged = ""
        var changedPath = ""
        do {
            let (server, client) = try start(first)
            for index in 0..<5 {
                let created = try client.request("POST", "/todos", headers: json, body: #"{"title":"Task \#(index)","order":\#(index)}"#)
                #expect(created.header("ETag") == #""1""#)
                if index == 3 { changedPath = "/todos/\(try #require(created.object["id"] as? String))" }
            }
            _ = try client.request("PATCH", changedPath, headers: json, body: #"{"completed":true}"#)
            let changed = try client.request("PATCH", changedPath, headers: json, body: #"{"title":"Task three"}"#)
            etagOfChanged = try #require(changed.header("ETag"))
            #expect(etagOfChanged == #""3""#)
            for target in targets { tags[target] = try client.request("GET", target).header("ETag") }
            server.signal(SIGTERM)
            #expect(server.waitForExit() == 0)
        }
        try FileManager.default.copyItem(atPath: first, toPath: second)
        try? FileManager.default.removeItem(atPath: second + "/LOCK")
        // Two processes at once, each on its own copy of the data.
        let (one, clientOne) = try start(first)
        let (two, clientTwo) = try start(second)
        defer {
            one.signal(SIGTERM)
            two.signal(SIGTERM)
            _ = one.waitForExit()
            _ = two.waitForExit()
        }
        for target in targets {
            let fromOne = try clientOne.request("GET", target).header("ETag")
            let fromTwo = try clientTwo.request("GET", target).header("ETag")
            #expect(fromOne == tags[target], "\(target) after a restart")
            #expect(fromTwo == tags[target], "\(target) in a second process")
        }
        #expect(Set(tags.values).count == targets.count, "four different pages, four different tags")
        #expect(try clientTwo.request("GET", changedPath).header("ETag") == etagOfChanged)
        let next = try clientOne.request("PATCH", changedPath, headers: json, body: #"{"title":"Task 3 again"}"#)
        #expect(next.header("ETag") == #""4""#, "the to-do's revision continues after the recovered one")
    }
}
