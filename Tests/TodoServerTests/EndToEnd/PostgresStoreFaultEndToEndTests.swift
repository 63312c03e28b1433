import Foundation
import Glibc
import PostgresLoop
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

/// The PostgreSQL store while its database goes away, comes back, or freezes: a 503 problem with
/// `Retry-After` within the deadline, `/healthz` saying so, and service again by itself.
@Suite("End to end: PostgreSQL faults", .serialized, .enabled(if: PostgresTestCluster.isAvailable), .tags(.endToEnd, .postgres))
struct PostgresStoreFaultEndToEndTests {
    /// A cluster of the test's own (it is stopped or frozen), a migrated database, a store and a server.
    final class Setup {
        let cluster: PostgresTestCluster
        let store: PostgresTodoStore
        let server: LiveServer

        init(deadline: Duration, threads: Int = 2) async throws {
            cluster = try PostgresTestCluster()
            try cluster.createDatabase("todo")
            let configuration = PostgresConfiguration(
                connectionString: cluster.connectionString(database: "todo"),
                timing: PostgresTiming(requestTimeout: deadline, connectTimeout: deadline))
            // Migrated patiently: a loaded machine may take more than the deadline to connect, and the
            // start-up is not what these tests are about.
            var patient = configuration
            patient.timing.connectTimeout = .seconds(20)
            try await TodoSchema.migrate(patient)
            store = try PostgresTodoStore(configuration: configuration)
            server = try LiveServer(configure: { $0.threads = threads }, store: store)
        }

        deinit {
            server.application.stop()
            store.close()
            cluster.stop()
        }

        /// The postmaster and its children (the backends), for SIGSTOP / SIGCONT.
        func serverProcesses() -> [pid_t] {
            guard let text = try? String(contentsOfFile: cluster.directory + "/data/postmaster.pid", encoding: .utf8),
                let postmaster = text.split(separator: "\n").first.flatMap({ pid_t($0) })
            else { return [] }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            let children = entries.compactMap { pid_t($0) }.filter { pid in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                    let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 1
                else { return false }
                return pid_t(fields[1]) == postmaster  // after the name: state, ppid
            }
            return [postmaster] + children
        }
    }

    private func expect503(_ answer: HTTPResponseSnapshot, _ comment: Comment) {
        #expect(answer.status == 503, comment)
        #expect(answer.header("Content-Type") == "application/problem+json", comment)
        #expect(answer.header("Retry-After") == "1", comment)
    }

    @Test func aStoppedDatabaseGives503sThenServiceComesBackByItself() async throws {
        let setup = try await Setup(deadline: .milliseconds(800))
        let created = try setup.server.request("POST", "/todos", body: #"{"title":"kept"}"#)
        #expect(created.status == 201)
        let path = "/todos/\(try #require(created.object["id"] as? String))"
        #expect(try setup.server.request("GET", "/healthz").status == 200)

        try setup.cluster.stopServer(mode: "immediate")
        for request in [
            ("GET", path, nil), ("GET", "/todos", nil), ("POST", "/todos", #"{"title":"lost"}"#), ("PATCH", path, #"{"completed":true}"#),
        ] as [(String, String, String?)] {
            expect503(try setup.server.request(request.0, request.1, body: request.2), "\(request.0) \(request.1)")
        }
        let health = try setup.server.request("GET", "/healthz")
        #expect(health.status == 503)
        #expect(health.text.contains("database"), "\(health.text)")

        try setup.cluster.start()
        // Every loop's connections come back by themselves: ten reads in a row all answered.
        #expect(
            eventually(timeout: .seconds(15)) {
                (0..<10).allSatisfy { _ in (try? setup.server.request("GET", path))?.object["title"] as? String == "kept" }
            })
        #expect(eventually(timeout: .seconds(15)) { (try? setup.server.request("GET", "/healthz"))?.status == 200 })
        #expect(try setup.server.request("GET", "/todos").header("X-Total-Count") == "1")
    }

    @Test func aFrozenDatabaseTripsTheDeadline() async throws {
        // One loop, so that the request goes to connections that are up when the database freezes.
        let setup = try await Setup(deadline: .milliseconds(500), threads: 1)
        let created = try setup.server.request("POST", "/todos", body: #"{"title":"kept"}"#)
        let path = "/todos/\(try #require(created.object["id"] as? String))"
        let frozen = setup.serverProcesses()
        #expect(frozen.count >= 2)
        for pid in frozen { kill(pid, SIGSTOP) }
        let answer = try setup.server.request("GET", path)
        for pid in frozen { kill(pid, SIGCONT) }
        expect503(answer, "frozen")
        #expect(answer.text.contains("deadline"), "\(answer.text)")
        #expect(eventually(timeout: .seconds(15)) { (try? setup.server.request("GET", path))?.status == 200 })
    }
}
