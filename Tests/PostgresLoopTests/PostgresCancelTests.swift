import Glibc
import LockTracing
import Synchronization
import TestSupport
import Testing

@testable import PostgresLoop

/// Deadlines that free the database, against a real PostgreSQL: a statement past its deadline is
/// cancelled in the server (seen in `pg_stat_activity`), the connection is kept for the requests
/// behind it, and the session carries a `statement_timeout` backstop. What the store makes of
/// them (no more statements running than connections, `Retry-After`): `PostgresStoreCancelTests`.
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .serialized, .tags(.postgres))
struct PostgresCancelTests {
    let cluster = PostgresTestCluster.shared!

    @Test func anOverdueStatementIsCancelledInTheServerAndTheConnectionServesTheNextRequest() async throws {
        let database = try cluster.freshDatabase("cancel")
        // The backstop 20 s past the deadline: only the cancel can end the statement in time, however
        // loaded the machine (with the default 100 ms margin the backstop won the race once).
        let session = try await PostgresTestSession.open(
            cluster, database: database, timing: PostgresTiming(requestTimeout: .milliseconds(400), statementTimeoutMargin: .seconds(20)))
        let observer = try await PostgresTestSession.open(cluster, database: database)
        defer {
            session.close()
            observer.close()
        }
        #expect(try await session.connection.query("SHOW statement_timeout").values == ["20400ms"])
        let backend = try await session.connection.query("SELECT pg_backend_pid()")[0, 0]

        let started = ContinuousClock.now
        let slow = Mutex<(Result<PostgresRows, PostgresError>, Duration)?>(nil)
        let next = Mutex<Result<PostgresRows, PostgresError>?>(nil)
        let probe = "SELECT pg_sleep(30) AS cancel_probe_\(UInt32.random(in: 0...UInt32.max))"
        session.connection.withValue { connection in
            connection.execute(.unprepared(probe)) { result in
                slow.withTracedLock { $0 = (result, ContinuousClock.now - started) }
                // Sent behind the cancelled statement on the same connection.
                connection.execute(.unprepared("SELECT 42, pg_backend_pid()")) { result in next.withTracedLock { $0 = result } }
            }
        }
        let (answer, elapsed) = try #require(eventually { slow.withTracedLock { $0 } })
        #expect(answer == .failure(.timedOut))
        #expect(elapsed >= .milliseconds(400) && elapsed < .seconds(5), "\(elapsed)")
        let served = try #require(eventually { next.withTracedLock { $0 } })
        #expect(try served.get().values == ["42", backend])
        // Cancelled in the server long before its 30 s: nothing of it runs any more.
        #expect(eventually(timeout: .seconds(10)) { observer.runningStatements(database: database, like: probe) == 0 })
        #expect(eventually { session.onLoop { $0.cancelCount } == 1 })
        #expect(session.onLoop { $0.isReady })
        // The server says why it ended: the cancel request, not the statement_timeout backstop.
        let log = try #require(
            eventually { () -> [Substring]? in
                let lines = fileText(cluster.directory + "/server.log").split(separator: "\n")
                return lines.contains { $0.hasSuffix("STATEMENT:  " + probe) } ? lines : nil
            })
        let statement = try #require(log.firstIndex { $0.hasSuffix("STATEMENT:  " + probe) })
        #expect(
            statement > 0 && log[statement - 1].hasSuffix("ERROR:  canceling statement due to user request"),
            "\(log[max(0, statement - 1)])")
    }

    @Test func theSessionOptionsKeepTheConnectionStringsOwnAndAddTheBackstop() {
        #expect(PostgresConnection.sessionOptions(nil, statementTimeout: .milliseconds(2200)) == "-c statement_timeout=2200")
        #expect(
            PostgresConnection.sessionOptions("-c work_mem=8MB", statementTimeout: .milliseconds(110))
                == "-c work_mem=8MB -c statement_timeout=110")
        #expect(PostgresTiming(requestTimeout: .seconds(2)).statementTimeout == .milliseconds(2200))
        #expect(PostgresTiming(requestTimeout: .milliseconds(50)).statementTimeout == .milliseconds(150))
    }
}
