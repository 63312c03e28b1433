import Foundation
import Glibc
import TestSupport
import Testing

@testable import TodoServer

/// Revisions and list ETags are the data's, not the process's: two server processes on copies of
/// one data directory, and one restarted on it (the in-process suite: `RevisionsEndToEndTests`).
@Suite("End to end: revisions across server processes", .tags(.endToEnd))
struct RevisionsAcrossProcessesTests {
    private let json = [("Content-Type", "application/json")]

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
