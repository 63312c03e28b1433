import Foundation
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// The owners' contract (API.md, "Owners"): two owners and the shared list on one server, each
/// acting through every route, and nobody reading, changing, clearing or even learning of anyone
/// else's to-dos. Run on every store that keeps owners, in process; the live feed's part, on a
/// socket: `OwnerIsolationFeedTests`.
@Suite("End to end: each owner sees and changes only their own to-dos", .tags(.postgres))
struct OwnerIsolationContractTests {
    static let alice = [("Authorization", "Bearer alice-token")]
    static let bob = [("Authorization", "Bearer bob-token")]
    /// A plain token: the shared list.
    static let shared = [("Authorization", "Bearer shared-token")]

    /// The stores that keep owners.
    static let kinds: [StoreKind] = PostgresTestCluster.isAvailable ? [.memory, .journal, .postgres] : [.memory, .journal]

    /// A server with two owners' tokens and a shared one, on a fresh store of `kind`, and what holds
    /// that store open. PostgreSQL on `cluster` (the shared test cluster by default).
    static func server(
        _ kind: StoreKind, mode: TestServer.Mode = .standard, cluster: PostgresTestCluster? = nil
    ) async throws -> (TestServer, ContractStore) {
        let store = try await ContractStore(kind, cluster: kind == .postgres ? cluster : nil)
        let server = try TestServer(
            mode,
            configure: {
                $0.ownerTokens = [
                    OwnerToken(owner: Owner(name: "alice@example.com")!, token: "alice-token"),
                    OwnerToken(owner: Owner(name: "bob")!, token: "bob-token"),
                ]
                $0.authTokens = ["shared-token"]
            }, store: store.store, clock: FakeClock("2026-11-22T10:00:00.000Z"))
        return (server, store)
    }

    /// Creates a to-do as `who`; its id.
    static func create(_ server: TestServer, _ who: [(String, String)], _ body: String) async throws -> String {
        let created = try await server.request("POST", "/todos", headers: who, body: body)
        #expect(created.status == 201)
        return try #require(created.object["id"] as? String)
    }

    private func titles(_ response: HTTPResponseSnapshot) -> [String] {
        response.array.compactMap { $0["title"] as? String }
    }

    @Test("lists, filters, search, sort, pages and totals show the caller's to-dos only", arguments: kinds)
    func lists(kind: StoreKind) async throws {
        let (server, store) = try await Self.server(kind)
        defer { withExtendedLifetime(store) {} }
        for index in 1...3 { _ = try await Self.create(server, Self.alice, #"{"title":"alice \#(index)","order":\#(index)}"#) }
        _ = try await Self.create(server, Self.bob, #"{"title":"bob 1","order":1,"completed":true}"#)
        _ = try await Self.create(server, Self.shared, #"{"title":"shared 1"}"#)

        let aliceList = try await server.request("GET", "/todos", headers: Self.alice)
        #expect(aliceList.status == 200)
        #expect(titles(aliceList) == ["alice 1", "alice 2", "alice 3"])
        #expect(aliceList.header("X-Total-Count") == "3")
        #expect(titles(try await server.request("GET", "/todos", headers: Self.bob)) == ["bob 1"])
        #expect(titles(try await server.request("GET", "/todos", headers: Self.shared)) == ["shared 1"])

        // Filters, search and sort never reach past the caller's list.
        #expect(titles(try await server.request("GET", "/todos?completed=true", headers: Self.alice)) == [])
        #expect(titles(try await server.request("GET", "/todos?completed=true", headers: Self.bob)) == ["bob 1"])
        #expect(titles(try await server.request("GET", "/todos?q=bob", headers: Self.alice)) == [])
        #expect(titles(try await server.request("GET", "/todos?q=1", headers: Self.alice)) == ["alice 1"])
        #expect(titles(try await server.request("GET", "/todos?sort=-title", headers: Self.bob)) == ["bob 1"])
        #expect(titles(try await server.request("GET", "/todos?sort=-order", headers: Self.alice)) == ["alice 3", "alice 2", "alice 1"])
        // Pages and their links count the caller's to-dos.
        let page = try await server.request("GET", "/todos?limit=2&offset=1", headers: Self.alice)
        #expect(titles(page) == ["alice 2", "alice 3"])
        #expect(page.header("X-Total-Count") == "3")
        #expect(page.header("Link")?.contains("rel=\"next\"") == false)
        #expect(try await server.request("GET", "/todos?limit=1", headers: Self.bob).header("Link")?.contains("rel=\"next\"") != true)

        // The list's ETag is the caller's: another owner's change does not change it.
        let tag = try #require(aliceList.header("ETag"))
        _ = try await Self.create(server, Self.bob, #"{"title":"bob 2"}"#)
        let unchanged = try await server.request("GET", "/todos", headers: Self.alice + [("If-None-Match", tag)])
        #expect(unchanged.status == 304)
        _ = try await Self.create(server, Self.alice, #"{"title":"alice 4"}"#)
        #expect(try await server.request("GET", "/todos", headers: Self.alice + [("If-None-Match", tag)]).status == 200)
    }

    @Test("another owner's to-do is a 404 on every by-id route, whatever the conditions say", arguments: kinds)
    func byID(kind: StoreKind) async throws {
        let (server, store) = try await Self.server(kind)
        defer { withExtendedLifetime(store) {} }
        let id = try await Self.create(server, Self.alice, #"{"title":"alice's"}"#)
        let path = "/todos/\(id)"
        let own = try await server.request("GET", path, headers: Self.alice)
        #expect(own.status == 200)
        let tag = try #require(own.header("ETag"))

        for who in [Self.bob, Self.shared] {
            let attempts: [(String, [(String, String)], String?)] = [
                ("GET", [], nil), ("HEAD", [], nil), ("GET", [("If-None-Match", tag)], nil), ("GET", [("If-None-Match", "*")], nil),
                ("PATCH", [], #"{"title":"taken"}"#), ("PATCH", [("If-Match", tag)], #"{"title":"taken"}"#),
                ("PATCH", [("If-Match", "*")], #"{"title":"taken"}"#), ("PATCH", [("If-None-Match", "*")], #"{"title":"taken"}"#),
                ("PUT", [], #"{"title":"taken"}"#), ("PUT", [("If-Match", tag)], #"{"title":"taken"}"#),
                ("PUT", [("If-Match", "\"999\"")], #"{"title":"taken"}"#),
                ("DELETE", [], nil), ("DELETE", [("If-Match", tag)], nil), ("DELETE", [("If-Match", "*")], nil),
                ("DELETE", [("If-None-Match", "*")], nil),
            ]
            let absentID = "00000000-0000-4000-8000-000000000000"
            for (method, conditions, body) in attempts {
                // 404 whatever the conditions say, exactly the answer an id nobody has gets (with
                // owners on, If-Match: * on a to-do the caller lacks is 404, not 412), the same body
                // but for the id: nothing tells that it exists.
                let response = try await server.request(method, path, headers: who + conditions, body: body)
                let absent = try await server.request(method, "/todos/\(absentID)", headers: who + conditions, body: body)
                let expected = 404
                #expect(response.status == expected, "\(method) \(conditions) by another caller")
                #expect(absent.status == expected, "\(method) \(conditions) on an absent id")
                #expect(response.header("ETag") == nil)
                #expect(response.text == absent.text.replacingOccurrences(of: absentID, with: id), "\(method) \(conditions)")
            }
        }
        // Nothing the others tried changed it.
        let after = try await server.request("GET", path, headers: Self.alice)
        #expect(after.status == 200)
        #expect(after.header("ETag") == tag)
        #expect(after.object["title"] as? String == "alice's")
    }

    @Test("DELETE /todos clears the caller's to-dos only", arguments: kinds)
    func clears(kind: StoreKind) async throws {
        let (server, store) = try await Self.server(kind)
        defer { withExtendedLifetime(store) {} }
        _ = try await Self.create(server, Self.alice, #"{"title":"a"}"#)
        let bobs = try await Self.create(server, Self.bob, #"{"title":"b"}"#)
        _ = try await Self.create(server, Self.shared, #"{"title":"s"}"#)
        #expect(try await server.request("DELETE", "/todos", headers: Self.alice).status == 204)
        #expect(titles(try await server.request("GET", "/todos", headers: Self.alice)) == [])
        #expect(titles(try await server.request("GET", "/todos", headers: Self.bob)) == ["b"])
        #expect(try await server.request("GET", "/todos/\(bobs)", headers: Self.bob).status == 200)
        #expect(titles(try await server.request("GET", "/todos", headers: Self.shared)) == ["s"])
        #expect(try await server.request("DELETE", "/todos", headers: Self.shared).status == 204)
        #expect(titles(try await server.request("GET", "/todos", headers: Self.bob)) == ["b"])
    }

    @Test("upcoming groups the caller's to-dos only", arguments: kinds)
    func upcoming(kind: StoreKind) async throws {
        let (server, store) = try await Self.server(kind)
        defer { withExtendedLifetime(store) {} }
        _ = try await Self.create(server, Self.alice, #"{"title":"alice due","dueDate":"2026-11-22"}"#)
        _ = try await Self.create(server, Self.bob, #"{"title":"bob due","dueDate":"2026-11-23"}"#)
        let alice = try await server.request("GET", "/todos/upcoming?tz=UTC", headers: Self.alice)
        let sections = try #require(alice.object["sections"] as? [[String: Any]])
        let items = sections.flatMap { ($0["items"] as? [[String: Any]]) ?? [] }.compactMap { $0["title"] as? String }
        #expect(items == ["alice due"])
        let shared = try await server.request("GET", "/todos/upcoming?tz=UTC", headers: Self.shared)
        #expect((shared.object["sections"] as? [Any])?.isEmpty == true)
    }

    @Test("health and metrics show no owner's figures; an owner's token does not read /metrics", arguments: kinds)
    func operations(kind: StoreKind) async throws {
        let (server, store) = try await Self.server(kind)
        defer { withExtendedLifetime(store) {} }
        _ = try await Self.create(server, Self.alice, #"{"title":"a"}"#)
        _ = try await Self.create(server, Self.bob, #"{"title":"b"}"#)
        #expect(try await server.request("GET", "/healthz", headers: Self.alice).text == #"{"status":"ok"}"#)
        #expect(try await server.request("GET", "/healthz").text == #"{"status":"ok"}"#)
        let metrics = try await server.request("GET", "/metrics", headers: Self.bob)
        #expect(metrics.status == 403)
        #expect(metrics.header("Content-Type") == "application/problem+json")
        // An operator's token sees the server's total, and no series names an owner.
        let operatorView = try await server.request("GET", "/metrics", headers: Self.shared)
        #expect(operatorView.status == 200)
        #expect(operatorView.text.contains("\ntodos 2.0\n"))
        #expect(!operatorView.text.contains("alice"))
        #expect(!operatorView.text.contains("bob"))
        #expect(try await server.request("GET", "/healthz", headers: Self.shared).text == #"{"status":"ok","todos":2}"#)
    }
}
