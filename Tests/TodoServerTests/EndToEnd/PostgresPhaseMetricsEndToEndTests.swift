import PostgresLoop
import TestSupport
import Testing

@testable import TodoData
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
        // Six requests, one statement each. A loop records a request's phases after its completion
        // has run (the `answer` phase is that completion), so the last answer can reach the client
        // before its phases reach the histograms: read `/metrics` until all six are there. Each read
        // sends a statement of its own (the count), recorded once its answer is rendered: the `k`th
        // read (from 0) may hold the `k` before it, and its own if the rendering order changes.
        // The series counted: each phase's histogram and `db_requests_ahead`, summed over the loops.
        let series: [(name: String, prefix: String, label: String?)] =
            ["queued", "pipeline", "statement", "answer"].map { ($0, "db_request_phase_seconds_count{", #"phase="\#($0)""#) }
            + [("ahead", "db_requests_ahead_count{", nil)]
        func totals(in text: String) -> [String: Int] {
            let lines = text.split(separator: "\n")
            return Dictionary(
                uniqueKeysWithValues: series.map { name, prefix, label in
                    let counts = lines.filter { $0.hasPrefix(prefix) && label.map($0.contains) ?? true }.compactMap {
                        Double($0.split(separator: " ").last!)
                    }
                    return (name, counts.reduce(0) { $0 + Int($1) })
                })
        }
        var reads = 0
        var counted: [String: Int] = [:]
        var text = ""
        let complete = try eventually {
            text = try server.request("GET", "/metrics").text
            reads += 1
            counted = totals(in: text)
            return counted.values.allSatisfy { $0 >= 6 }
        }
        #expect(complete, "phases never all counted: \(counted) in\n\(text)")
        for (name, total) in counted {
            #expect((6...(6 + reads)).contains(total), "\(name): \(total) after \(reads) reads of /metrics")
        }
        #expect(counted.count == 5)
    }
}
