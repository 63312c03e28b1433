import Glibc
import LockTracing
import Synchronization
import TestSupport
import Testing

@testable import PostgresLoop
@testable import TodoServer

/// Deadlines that free the database, against a real PostgreSQL: a statement past its deadline is
/// cancelled in the server (seen in `pg_stat_activity`), the connection is kept for the requests
/// behind it, the session carries a `statement_timeout` backstop, and a loop never has more
/// statements running than connections.
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .serialized)
struct PostgresCancelTests {
    let cluster = PostgresTestCluster.shared!

    /// Statements of this test's database running now (not the asking session's), by their text.
    private func running(_ observer: PostgresTestSession, database: String, like pattern: String) -> Int? {
        guard
            case .success(let rows)? = observer.blockingQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE $2 AND pid <> pg_backend_pid()",
                [database, pattern])
        else { return nil }
        return rows[0, 0].flatMap { Int($0) }
    }

    /// A file's text, read with stdio.
    static func text(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func freshDatabase(_ label: String) throws -> String {
        let name = "\(label)_\(UInt32.random(in: 0...UInt32.max))"
        try cluster.createDatabase(name)
        return name
    }

    @Test func anOverdueStatementIsCancelledInTheServerAndTheConnectionServesTheNextRequest() async throws {
        let database = try freshDatabase("cancel")
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
        #expect(eventually(timeout: .seconds(10)) { running(observer, database: database, like: probe) == 0 })
        #expect(eventually { session.onLoop { $0.cancelCount } == 1 })
        #expect(session.onLoop { $0.isReady })
        // The server says why it ended: the cancel request, not the statement_timeout backstop.
        let log = try #require(
            eventually { () -> [Substring]? in
                let lines = Self.text(cluster.directory + "/server.log").split(separator: "\n")
                return lines.contains { $0.hasSuffix("STATEMENT:  " + probe) } ? lines : nil
            })
        let statement = try #require(log.firstIndex { $0.hasSuffix("STATEMENT:  " + probe) })
        #expect(
            statement > 0 && log[statement - 1].hasSuffix("ERROR:  canceling statement due to user request"),
            "\(log[max(0, statement - 1)])")
    }

    /// Twelve `q=` scans over 150,000 rows at once with a 50 ms deadline on one loop of two
    /// connections: every one answers 503 with a `Retry-After`, at most two statements run at any
    /// time, none is left running soon after, and the kept connections serve a read at once.
    @Test func slowSearchesPastTheDeadlineAreCancelledAndNeverOutnumberTheConnections() async throws {
        let configuration = try await ContractStore.freshDatabase(
            "scans", timing: PostgresTiming(requestTimeout: .milliseconds(50), cancelGrace: .seconds(2)))
        let database = try #require(PostgresConnectionOptions.parse(configuration.connectionString)["dbname"])
        let observer = try await PostgresTestSession.open(
            cluster, database: database, timing: PostgresTiming(requestTimeout: .seconds(120)))
        defer { observer.close() }
        _ = try #require(
            observer.blockingQuery(
                """
                INSERT INTO todos (id, title, title_key, title_nfc, created_at, updated_at, revision)
                SELECT gen_random_uuid(), t, lower(t), t, now(), now(), 1
                FROM (SELECT 'Title ' || i || repeat(' some filler words', 12) AS t FROM generate_series(1, 150000) i) s
                """, seconds: 120)
        ).get()
        let known = try #require(observer.blockingQuery("SELECT id::text FROM todos LIMIT 1")?.get()[0, 0])
        let store = try PostgresTodoStore(configuration: configuration)
        defer { store.close() }

        let answers = Mutex<[Result<TodoPage, StoreError>]>([])
        for _ in 0..<12 {
            store.list(TodoQuery(titleContains: "zzz")) { result in answers.withTracedLock { $0.append(result) } }
        }
        var most = 0
        #expect(
            eventually(timeout: .seconds(30)) {
                if let now = running(observer, database: database, like: "%strpos(title_key%") { most = max(most, now) }
                return answers.withTracedLock { $0.count } == 12
            })
        // The abandoned scans are cancelled one after another on their connections.
        #expect(
            eventually(timeout: .seconds(10)) {
                let now = running(observer, database: database, like: "%strpos(title_key%")
                most = max(most, now ?? 0)
                return now == 0
            })
        print("PostgresCancelTests: at most \(most) scans running at once on 2 connections")
        #expect(most <= 2, "statements running at once: \(most)")
        // The connections were kept: a primary-key read is served at once, within its 50 ms.
        let read = Mutex<Result<Todo?, StoreError>?>(nil)
        store.todo(id: known) { result in read.withTracedLock { $0 = result } }
        #expect(eventually { read.withTracedLock { $0 } != nil })
        let failures = answers.withTracedLock { $0 }.compactMap { result -> StoreError? in
            if case .failure(let error) = result { error } else { nil }
        }
        #expect(failures.count == 12)
        #expect(failures.allSatisfy { $0.reason == "the database did not answer within the deadline" && ($0.retryAfter ?? 0) >= 1 })
        #expect(try read.withTracedLock { $0 }?.get()?.id == known)
    }

    @Test(
        "Retry-After: the waiting statements' drain time over the connections, 1 to 60 s",
        arguments: [
            (0, 2, 2000, 1), (1, 2, 2000, 1), (11, 2, 300, 2), (12, 4, 2000, 6), (1000, 2, 2000, 60),
        ])
    func retryAfterReflectsTheLoad(waiting: Int, connections: Int, deadlineMs: Int, seconds: Int) {
        #expect(PostgresLoad(waiting: waiting, connections: connections, deadline: .milliseconds(deadlineMs)).retryAfterSeconds == seconds)
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
