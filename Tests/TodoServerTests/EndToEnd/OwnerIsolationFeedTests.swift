import Foundation
import TestSupport
import Testing

@testable import TodoServer

/// The owners' contract on the live feed (`OwnerIsolationContractTests` has the rest): each owner's
/// stream carries their changes only, on every store that keeps owners.
/// One test at a time: on PostgreSQL the feed test waits (blocking a test thread) for changes that
/// are delivered once every older transaction of the cluster has ended, and another test's
/// migration on the same cluster (an open transaction) needs a test thread to end: two blocking
/// waits at once could leave it none (`LiveFeedOnPostgres`). PostgreSQL on a cluster of the
/// suite's own (`PostgresTestCluster.owners`): other suites' open transactions would hold the feed back.
@Suite("End to end: each owner's live feed carries only their own changes", .serialized, .tags(.endToEnd, .postgres))
struct OwnerIsolationFeedTests {
    static let alice = OwnerIsolationContractTests.alice
    static let bob = OwnerIsolationContractTests.bob
    static let shared = OwnerIsolationContractTests.shared

    private func create(_ server: TestServer, _ who: [(String, String)], _ body: String) async throws -> String {
        try await OwnerIsolationContractTests.create(server, who, body)
    }

    @Test(
        "the live feed carries the caller's changes only, resumes within them, and clears only their own",
        arguments: OwnerIsolationContractTests.kinds)
    func feed(kind: StoreKind) async throws {
        let (server, store) = try await OwnerIsolationContractTests.server(kind, mode: .live, cluster: PostgresTestCluster.owners)
        let port = try #require(server.live?.port)
        defer { withExtendedLifetime(store) {} }
        let aliceFeed = try EventStreamClient(port: port, headers: Self.alice)
        let bobFeed = try EventStreamClient(port: port, target: "/todos/events?access_token=bob-token")
        #expect(aliceFeed.status == 200)
        #expect(bobFeed.status == 200)
        _ = try await create(server, Self.bob, #"{"title":"bob's"}"#)
        _ = try await create(server, Self.shared, #"{"title":"shared"}"#)
        let aliceID = try await create(server, Self.alice, #"{"title":"alice's"}"#)
        #expect(try await server.request("DELETE", "/todos", headers: Self.bob).status == 204)
        #expect(try await server.request("DELETE", "/todos/\(aliceID)", headers: Self.alice).status == 204)

        let aliceEvents = try aliceFeed.events(2)
        #expect(aliceEvents.map { $0.event } == ["created", "deleted"])
        #expect((aliceEvents[0].object["todo"] as? [String: Any])?["title"] as? String == "alice's")
        let bobEvents = try bobFeed.events(2)
        #expect(bobEvents.map { $0.event } == ["created", "cleared"])
        #expect((bobEvents[0].object["todo"] as? [String: Any])?["title"] as? String == "bob's")

        // Resuming from alice's first event replays her deletion only.
        let resumed = try EventStreamClient(
            port: port, headers: Self.alice + [("Last-Event-ID", try #require(aliceEvents[0].id))])
        let replay = try resumed.events(1)
        #expect(replay.map { $0.event } == ["deleted"])
        #expect(replay.first?.object["id"] as? String == aliceID)
        // A list's position resumes the owner's feed without a gap.
        let list = try await server.request("GET", "/todos", headers: Self.bob)
        let position = try #require(list.header("X-Last-Event-ID"))
        let fromList = try EventStreamClient(port: port, headers: Self.bob + [("Last-Event-ID", position)])
        _ = try await create(server, Self.alice, #"{"title":"not bob's"}"#)
        _ = try await create(server, Self.bob, #"{"title":"bob again"}"#)
        let next = try fromList.events(1)
        #expect(next.map { $0.event } == ["created"])
        #expect((next.first?.object["todo"] as? [String: Any])?["title"] as? String == "bob again")
    }
}
