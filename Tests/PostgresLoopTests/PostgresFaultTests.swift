import EventLoops
import Glibc
import LockTracing
import PostgresLoop
import Synchronization
import TestSupport
import Testing

/// Keeps `depth` requests in flight on one connection until one fails; counts the answers. Lives on
/// the connection's loop.
final class PostgresLoadDriver: @unchecked Sendable {
    struct Counts: Sendable {
        var issued = 0
        var succeeded = 0
        var failures: [PostgresError] = []
        var answered: Int { succeeded + failures.count }
    }

    let counts = Mutex(Counts())
    private let statement = PostgresStatement(name: "load", sql: "SELECT $1::int, pg_sleep(0.001)")

    /// Starts on the loop: `depth` requests, each success sending the next.
    func start(on connection: LoopBound<PostgresConnection>, depth: Int) {
        connection.withValue { connection in
            for _ in 0..<depth { self.issue(connection) }
        }
    }

    private func issue(_ connection: PostgresConnection) {
        let number = counts.withTracedLock { counts -> Int in
            counts.issued += 1
            return counts.issued
        }
        connection.execute(.prepared(statement), [String(number)]) { result in
            switch result {
            case .success:
                self.counts.withTracedLock { $0.succeeded += 1 }
                self.issue(connection)
            case .failure(let error):
                self.counts.withTracedLock { $0.failures.append(error) }
            }
        }
    }
}

/// The database going away under a connection: stopped, restarted, frozen.
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .tags(.postgres))
struct PostgresFaultTests {
    @Test func stoppedUnderLoadEveryPendingRequestFailsAndTheConnectionComesBackByItself() async throws {
        // A cluster of its own: this test stops it.
        let cluster = try PostgresTestCluster()
        defer { cluster.stop() }
        let session = try await PostgresTestSession.open(cluster)
        defer { session.close() }
        let before = try await session.connection.query("SELECT pg_backend_pid()")[0, 0]

        let driver = PostgresLoadDriver()
        driver.start(on: session.connection, depth: 32)
        #expect(eventually { driver.counts.withTracedLock { $0.succeeded } >= 200 })
        try cluster.stopServer(mode: "immediate")

        // No hang: every request sent is answered, the ones in flight with a failure.
        #expect(eventually { driver.counts.withTracedLock { $0.failures.count == 32 && $0.answered == $0.issued } })
        let counts = driver.counts.withTracedLock { $0 }
        print("stopped under load: \(counts.succeeded) succeeded, \(counts.failures.count) failed: \(Set(counts.failures.map { "\($0)" }))")
        // They were sent, so their outcome is unknown: connection lost (not a time-out, not "never sent").
        #expect(
            counts.failures.allSatisfy {
                if case .connectionLost = $0 { true } else { false }
            })
        // While it is down, requests fail at once instead of waiting.
        let whileDown = try #require(session.blockingQuery("SELECT 1"))
        #expect(throws: PostgresError.self) { try whileDown.get() }

        try cluster.start()
        // By itself (no request needed) the connection reconnects within its back-off.
        #expect(eventually(timeout: .seconds(20)) { session.onLoop { $0.isReady } })
        let after = try #require(session.blockingQuery("SELECT pg_backend_pid()"))
        #expect(try after.get()[0, 0] != before)
        #expect(try session.blockingQuery("SELECT 40 + 2")?.get()[0, 0] == "42")
    }

    /// A frozen backend: every request times out at its own deadline (none is failed by another's),
    /// the cancel cannot end the statement, so after the cancel grace the connection is dropped and
    /// a new backend answers.
    @Test func aFrozenBackendTripsTheRequestDeadlineAndTheConnectionIsReplaced() async throws {
        let cluster = try #require(PostgresTestCluster.shared)
        let session = try await PostgresTestSession.open(
            cluster, timing: PostgresTiming(requestTimeout: .milliseconds(800), cancelGrace: .milliseconds(500)))
        defer { session.close() }
        let backend = try #require(Int32(try await session.connection.query("SELECT pg_backend_pid()")[0, 0] ?? ""))
        #expect(kill(backend, SIGSTOP) == 0)
        defer { kill(backend, SIGCONT) }

        let answers = Mutex<[Result<PostgresRows, PostgresError>]>([])
        session.connection.withValue { connection in
            for _ in 0..<5 {
                connection.execute(.unprepared("SELECT 1")) { result in answers.withTracedLock { $0.append(result) } }
            }
        }
        #expect(eventually { answers.withTracedLock { $0.count } == 5 })
        #expect(answers.withTracedLock { $0 } == Array(repeating: .failure(.timedOut), count: 5))
        // Still frozen: the connection is dropped after the grace and a new backend answers.
        let replaced = try #require(
            eventually { () -> String? in
                guard case .success(let rows)? = session.blockingQuery("SELECT pg_backend_pid()") else { return nil }
                return rows[0, 0]
            })
        #expect(replaced != String(backend))
    }
}
