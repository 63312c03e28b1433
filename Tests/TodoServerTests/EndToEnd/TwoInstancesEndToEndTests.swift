import Foundation
import PostgresLoop
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// Two servers on one PostgreSQL database, each with its own store and connections, as two
/// containers would run: they honour the contract together.
@Suite("End to end: two instances on one database", .enabled(if: PostgresTestCluster.isAvailable), .tags(.endToEnd, .postgres))
struct TwoInstancesEndToEndTests {
    final class Pair {
        let a: LiveServer, b: LiveServer
        private let stores: [PostgresTodoStore]
        let configuration: PostgresConfiguration

        /// `feeds`: on the live feed's cluster.
        /// `changesPollInterval`: how often each instance reads the others' changes unasked.
        init(feeds: Bool = false, changesPollInterval: Duration = .milliseconds(100)) async throws {
            let configuration = try await ContractStore.freshDatabase("pair", feeds: feeds)
            self.configuration = configuration
            let storeA = try PostgresTodoStore(configuration: configuration, changesPollInterval: changesPollInterval)
            let storeB = try PostgresTodoStore(configuration: configuration, changesPollInterval: changesPollInterval)
            stores = [storeA, storeB]
            a = try LiveServer(store: storeA)
            b = try LiveServer(store: storeB)
        }

        deinit {
            a.application.stop()
            b.application.stop()
            for store in stores { store.close() }
        }
    }

    @Test func aToDoCreatedOnAReadsTheSameOnBAndBMayChangeItWithAsTag() async throws {
        let pair = try await Pair()
        let created = try pair.a.request("POST", "/todos", body: #"{"title":"shared","order":2,"dueDate":"2026-12-24"}"#)
        #expect(created.status == 201)
        let path = "/todos/\(try #require(created.object["id"] as? String))"
        let onB = try pair.b.request("GET", path)
        #expect(onB.status == 200)
        #expect(onB.header("ETag") == created.header("ETag"))
        #expect(onB.object as NSDictionary == created.object as NSDictionary)
        let tag = try #require(created.header("ETag"))
        #expect(try pair.b.request("GET", path, headers: [("If-None-Match", tag)]).status == 304)
        let changed = try pair.b.request("PATCH", path, headers: [("If-Match", tag)], body: #"{"completed":true}"#)
        #expect(changed.status == 200)
        let onA = try pair.a.request("GET", path)
        #expect(onA.header("ETag") == changed.header("ETag"))
        #expect(onA.object["completed"] as? Bool == true)
        #expect(try pair.a.request("PATCH", path, headers: [("If-Match", tag)], body: #"{"title":"late"}"#).status == 412)
    }

    @Test func twoPatchesWithOneTagSentToAAndBAtOnceGiveExactlyOne200AndOne412() async throws {
        let pair = try await Pair()
        for round in 1...25 {
            let created = try pair.a.request("POST", "/todos", body: #"{"title":"race \#(round)"}"#)
            let path = "/todos/\(try #require(created.object["id"] as? String))"
            let tag = try #require(created.header("ETag"))
            let statuses = LockedBox<[Int]>()
            let group = DispatchGroup()
            for (port, title) in [(pair.a.port, "from A"), (pair.b.port, "from B")] {
                group.enter()
                Thread.detachNewThread {
                    let client = try? TestHTTPClient(port: port)
                    let status =
                        (try? client?.request("PATCH", path, headers: [("If-Match", tag)], body: #"{"title":"\#(title)"}"#))??.status ?? 0
                    statuses.update { ($0 ?? []) + [status] }
                    group.leave()
                }
            }
            group.wait()
            #expect(statuses.get()?.sorted() == [200, 412], "round \(round)")
            let stored = try pair.b.request("GET", path)
            #expect(stored.header("ETag") != tag, "round \(round)")
            #expect(["from A", "from B"].contains(stored.object["title"] as? String ?? ""), "round \(round)")
        }
    }

    @Test func listsAreTheSameOnBothAndBAnswers304ToAsTagUntilThePageChanges() async throws {
        let pair = try await Pair()
        for index in 1...12 {
            #expect(try pair.a.request("POST", "/todos", body: #"{"title":"item \#(index)","order":\#(index % 5)}"#).status == 201)
        }
        let target = "/todos?limit=5&offset=3&sort=-order"
        let onA = try pair.a.request("GET", target), onB = try pair.b.request("GET", target)
        #expect(onA.status == 200)
        #expect(onA.text == onB.text)
        #expect(onA.header("ETag") == onB.header("ETag"))
        #expect(onA.header("X-Total-Count") == "12")
        #expect(onB.header("X-Total-Count") == "12")
        let tag = try #require(onA.header("ETag"))
        #expect(try pair.b.request("GET", target, headers: [("If-None-Match", tag)]).status == 304)
        // A change off the page (the last to-do by this order) leaves the page's tag alone only if
        // the total stays: a new to-do changes the total, so the tag changes on both.
        #expect(try pair.b.request("POST", "/todos", body: #"{"title":"one more"}"#).status == 201)
        let afterA = try pair.a.request("GET", target, headers: [("If-None-Match", tag)])
        #expect(afterA.status == 200)
        #expect(afterA.header("X-Total-Count") == "13")
        #expect(try pair.b.request("GET", target, headers: [("If-None-Match", tag)]).status == 200)
    }
}
