import LockTracing
import PostgresLoop
import Synchronization
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

/// The PostgreSQL store under its deadlines, against a real PostgreSQL: abandoned statements are
/// cancelled (`PostgresLoopTests`' `PostgresCancelTests` checks the connection's cancel itself), a
/// loop never has more statements running than connections, and a refusal says when to retry.
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .serialized, .tags(.postgres))
struct PostgresStoreCancelTests {
    let cluster = PostgresTestCluster.shared!

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
        // The store up first (a quick read served): a search sent while a connection is still
        // being made on a loaded machine could fail as unavailable rather than overdue.
        #expect(
            eventually(timeout: .seconds(30)) {
                let warm = Mutex<Result<Todo?, StoreError>?>(nil)
                store.todo(id: known) { result in warm.withTracedLock { $0 = result } }
                guard eventually(timeout: .seconds(5), { warm.withTracedLock { $0 } != nil }) else { return false }
                return (try? warm.withTracedLock { $0 }?.get()) != nil
            })

        let answers = Mutex<[Result<TodoPage, StoreError>]>([])
        for _ in 0..<12 {
            store.list(TodoQuery(titleContains: "zzz")) { result in answers.withTracedLock { $0.append(result) } }
        }
        var most = 0
        #expect(
            eventually(timeout: .seconds(30)) {
                if let now = observer.runningStatements(database: database, like: "%strpos(title_key%") { most = max(most, now) }
                return answers.withTracedLock { $0.count } == 12
            })
        // The abandoned scans are cancelled one after another on their connections.
        #expect(
            eventually(timeout: .seconds(10)) {
                let now = observer.runningStatements(database: database, like: "%strpos(title_key%")
                most = max(most, now ?? 0)
                return now == 0
            })
        print("PostgresStoreCancelTests: at most \(most) scans running at once on 2 connections")
        #expect(most <= 2, "statements running at once: \(most)")
        // The connections were kept: a primary-key read is served within its 50 ms (asked again
        // until one is: a loaded machine can hold a single one past its deadline).
        let read = Mutex<Result<Todo?, StoreError>?>(nil)
        #expect(
            eventually(timeout: .seconds(30)) {
                let attempt = Mutex<Result<Todo?, StoreError>?>(nil)
                store.todo(id: known) { result in attempt.withTracedLock { $0 = result } }
                guard eventually(timeout: .seconds(5), { attempt.withTracedLock { $0 } != nil }) else { return false }
                let result = attempt.withTracedLock { $0 }
                read.withTracedLock { $0 = result }
                return (try? result?.get()) != nil
            })
        let failures = answers.withTracedLock { $0 }.compactMap { result -> StoreError? in
            if case .failure(let error) = result { error } else { nil }
        }
        #expect(failures.count == 12)
        // Each failed as overdue, or as stopped by a cancel meant for the overdue scan before it
        // on its connection (PostgreSQL's cancel is asynchronous; every scan here is overdue).
        let overdue = [
            "the database did not answer within the deadline", "the statement was stopped by a cancel meant for an overdue one",
        ]
        #expect(
            failures.allSatisfy { overdue.contains($0.reason) && ($0.retryAfter ?? 0) >= 1 },
            "\(failures.map { "\($0.reason) (Retry-After \($0.retryAfter.map(String.init) ?? "none"))" })")
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
}
