import PostgresLoop
import TestSupport
import Testing

@testable import TodoServer

/// Issue 22: `/metrics` says where the PostgreSQL store's requests spent their time, per phase and
/// per loop, for the server's requests (the change feed's own statements are not counted).
@Suite("End to end: PostgreSQL request phases in /metrics", .enabled(if: PostgresTestCluster.isAvailable), .tags(.endToEnd, .postgres))
struct PostgresPhaseMetricsEndToEndTests {
    @Test func everyPhaseOfTheServersRequestsIsCounted() async throws {
        let configuration = try await ContractStore.freshDatabase("phases")
        let store = try PostgresTodoStore(configuration: configuration)
        let server = try LiveServer(store: store)
        defer {
            server.application.stop()
            store.close()
        }
        let created = try server.request("POST", "/todos", body: #"{"title":"timed"}"#)
        #expect(created.status == 201)
        let path = "/todos/\(try #require(created.object["id"] as? String))"
        for _ in 0..<4 { #expect(try server.request("GET", path).status == 200) }
        #expect(try server.request("PATCH", path, body: #"{"completed":true}"#).status == 200)
        // Six requests, one statement each; `/metrics` sends a seventh (the count), recorded once
        // its answer is rendered (so not in it, unless the rendering order changes).
        let text = try server.request("GET", "/metrics").text
        func count(_ series: String) -> Int {
            text.split(separator: "\n").filter { $0.hasPrefix(series) }.compactMap { Double($0.split(separator: " ").last!) }
                .reduce(0) { $0 + Int($1) }
        }
        for phase in ["queued", "pipeline", "statement", "answer"] {
            let series = text.split(separator: "\n").filter {
                $0.hasPrefix("db_request_phase_seconds_count{") && $0.contains(#"phase="\#(phase)""#)
            }
            #expect(!series.isEmpty, "no \(phase) histogram in\n\(text)")
            let total = series.compactMap { Double($0.split(separator: " ").last!) }.reduce(0, +)
            #expect(total >= 6 && total <= 7, "\(phase): \(total)")
        }
        #expect((6...7).contains(count("db_requests_ahead_count{")), "\(text)")
    }
}
