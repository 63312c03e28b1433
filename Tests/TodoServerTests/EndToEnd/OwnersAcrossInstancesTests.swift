import Foundation
import PostgresLoop
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

extension LiveFeedOnPostgres {
    /// Two servers with owners on one PostgreSQL database: owners agree across instances, bob can
    /// never read, change or clear alice's to-dos through either, and each owner's feed on one
    /// instance carries that owner's changes made through the other, and nobody else's.
    @Suite("End to end: owners across two instances on one database", .tags(.endToEnd))
    struct OwnersAcrossInstancesTests {
        static let alice = OwnerIsolationContractTests.alice
        static let bob = OwnerIsolationContractTests.bob
        static let shared = OwnerIsolationContractTests.shared

        final class Pair {
            let a: LiveServer, b: LiveServer
            private let stores: [PostgresTodoStore]

            init() async throws {
                let configuration = try await ContractStore.freshDatabase("owners_pair", feeds: true)
                let storeA = try PostgresTodoStore(configuration: configuration, changesPollInterval: .milliseconds(100))
                let storeB = try PostgresTodoStore(configuration: configuration, changesPollInterval: .milliseconds(100))
                stores = [storeA, storeB]
                func configure(_ configuration: inout ServerConfiguration) {
                    configuration.ownerTokens = [
                        OwnerToken(owner: Owner(name: "alice@example.com")!, token: "alice-token"),
                        OwnerToken(owner: Owner(name: "bob")!, token: "bob-token"),
                    ]
                    configuration.authTokens = ["shared-token"]
                }
                a = try LiveServer(configure: configure, store: storeA)
                b = try LiveServer(configure: configure, store: storeB)
            }

            deinit {
                a.application.stop()
                b.application.stop()
                for store in stores { store.close() }
            }
        }

        private func create(_ server: LiveServer, _ who: [(String, String)], _ title: String) throws -> (id: String, tag: String) {
            let created = try server.request("POST", "/todos", headers: who, body: #"{"title":"\#(title)"}"#)
            #expect(created.status == 201)
            return (try #require(created.object["id"] as? String), try #require(created.header("ETag")))
        }

        private func titles(_ server: LiveServer, _ who: [(String, String)]) throws -> [String] {
            try server.request("GET", "/todos", headers: who).array.compactMap { $0["title"] as? String }
        }

        private func title(_ event: ServerSentEvent) -> String? {
            (event.object["todo"] as? [String: Any])?["title"] as? String
        }

        @Test(.enabled(if: PostgresTestCluster.isAvailable))
        func aToDoMadeThroughAByAliceIsAlicesOnBAndBobNeverReachesItThroughEither() async throws {
            let pair = try await Pair()
            let (id, tag) = try create(pair.a, Self.alice, "alice's")
            _ = try create(pair.a, Self.bob, "bob's")
            let path = "/todos/\(id)"
            let onB = try pair.b.request("GET", path, headers: Self.alice)
            #expect(onB.status == 200)
            #expect(onB.header("ETag") == tag)
            #expect(onB.object["title"] as? String == "alice's")
            for server in [pair.a, pair.b] {
                for who in [Self.bob, Self.shared] {
                    #expect(try server.request("GET", path, headers: who).status == 404)
                    #expect(
                        try server.request("PATCH", path, headers: who + [("If-Match", tag)], body: #"{"title":"taken"}"#).status == 404)
                    #expect(try server.request("PUT", path, headers: who, body: #"{"title":"taken"}"#).status == 404)
                    #expect(try server.request("DELETE", path, headers: who).status == 404)
                }
                #expect(try titles(server, Self.alice) == ["alice's"])
                #expect(try titles(server, Self.bob) == ["bob's"])
                #expect(try titles(server, Self.shared) == [])
                #expect(try server.request("GET", "/todos", headers: Self.alice).header("X-Total-Count") == "1")
            }
            // Bob's clear through B clears bob's; alice's to-do is as it was, on both.
            #expect(try pair.b.request("DELETE", "/todos", headers: Self.bob).status == 204)
            #expect(try titles(pair.a, Self.bob) == [])
            for server in [pair.a, pair.b] {
                let after = try server.request("GET", path, headers: Self.alice)
                #expect(after.status == 200)
                #expect(after.header("ETag") == tag)
            }
            // Alice changes it through B; A shows her change.
            #expect(
                try pair.b.request("PATCH", path, headers: Self.alice + [("If-Match", tag)], body: #"{"completed":true}"#).status == 200)
            #expect(try pair.a.request("GET", path, headers: Self.alice).object["completed"] as? Bool == true)
        }

        @Test(.enabled(if: PostgresTestCluster.isAvailable))
        func eachOwnersFeedOnBCarriesTheirChangesMadeThroughAAndNobodyElses() async throws {
            let pair = try await Pair()
            let aliceOnB = try EventStreamClient(port: pair.b.port, headers: Self.alice)
            let bobOnB = try EventStreamClient(port: pair.b.port, target: "/todos/events?access_token=bob-token")
            let sharedOnB = try EventStreamClient(port: pair.b.port, headers: Self.shared)
            #expect(aliceOnB.status == 200 && bobOnB.status == 200 && sharedOnB.status == 200)
            _ = try create(pair.a, Self.bob, "bob 1")
            let (first, _) = try create(pair.a, Self.alice, "alice 1")
            #expect(try pair.a.request("DELETE", "/todos", headers: Self.bob).status == 204)
            _ = try create(pair.a, Self.shared, "shared 1")
            _ = try create(pair.a, Self.alice, "alice 2")

            let aliceEvents = try aliceOnB.events(2)
            #expect(aliceEvents.map(\.event) == ["created", "created"])
            #expect(aliceEvents.map(title) == ["alice 1", "alice 2"])
            #expect((aliceEvents[0].object["todo"] as? [String: Any])?["id"] as? String == first)
            let bobEvents = try bobOnB.events(2)
            #expect(bobEvents.map(\.event) == ["created", "cleared"])
            #expect(title(bobEvents[0]) == "bob 1")
            let sharedEvents = try sharedOnB.events(1)
            #expect(sharedEvents.map(\.event) == ["created"])
            #expect(title(sharedEvents[0]) == "shared 1")

            // Alice's list position from A resumes her feed on B: her next change, none of bob's.
            let position = try #require(try pair.a.request("GET", "/todos", headers: Self.alice).header("X-Last-Event-ID"))
            let resumed = try EventStreamClient(port: pair.b.port, headers: Self.alice + [("Last-Event-ID", position)])
            #expect(resumed.status == 200)
            _ = try create(pair.a, Self.bob, "bob 2")
            _ = try create(pair.a, Self.alice, "alice 3")
            let next = try resumed.events(1)
            #expect(next.map(\.event) == ["created"])
            #expect(next.first.flatMap(title) == "alice 3")
            // The open streams got the same: alice's third, bob's second, and nothing else.
            #expect(try aliceOnB.events(1).map(title) == ["alice 3"])
            #expect(try bobOnB.events(1).map(title) == ["bob 2"])
            // Resuming from alice's first event on A replays her later changes only.
            let fromFirst = try EventStreamClient(
                port: pair.a.port, headers: Self.alice + [("Last-Event-ID", try #require(aliceEvents[0].id))])
            #expect(try fromFirst.events(2).map(title) == ["alice 2", "alice 3"])
        }
    }
}
