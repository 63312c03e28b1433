import Dispatch
import EventLoops
import LockTracing
import PostgresLoop
import Synchronization

/// One `PostgresConnection` on a `LoopThread` of its own, for tests: opened on the loop, used from
/// the test through `LoopBound`, closed on the loop before the loop stops.
package struct PostgresTestSession {
    package let loopThread: LoopThread
    package let connection: LoopBound<PostgresConnection>

    package static func open(_ configuration: PostgresConfiguration) async throws -> PostgresTestSession {
        let loopThread = try LoopThread()
        let loop = loopThread.loop
        let connection = await LoopBound.make(on: loop) {
            let connection = PostgresConnection(loop: loop, configuration: configuration)
            connection.start()
            return connection
        }
        return PostgresTestSession(loopThread: loopThread, connection: connection)
    }

    package static func open(_ cluster: PostgresTestCluster, database: String = "postgres", timing: PostgresTiming = PostgresTiming())
        async throws -> PostgresTestSession
    {
        try await open(PostgresConfiguration(connectionString: cluster.connectionString(database: database), timing: timing))
    }

    /// Runs `body` on the loop and waits for its value.
    package func onLoop<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) -> T) -> T {
        connection.onLoop(body)
    }

    /// Sends one request and waits for its answer (nil if none came within `seconds`).
    package func blockingQuery(_ sql: String, _ parameters: [String?] = [], seconds: Int = 20) -> Result<PostgresRows, PostgresError>? {
        send(.unprepared(sql), parameters).answer(within: seconds)
    }

    /// Sends one request from the session's loop and returns at once: for a statement that is to
    /// wait (for a lock) while the test goes on, with no task that must first get a thread to send it.
    package func send(_ query: PostgresQuery, _ parameters: [String?] = []) -> SentQuery {
        let sent = SentQuery()
        connection.withValue { connection in
            connection.execute(query, parameters) { sent.received($0) }
        }
        return sent
    }

    /// A request `send` sent: its answer, once it comes.
    package final class SentQuery: Sendable {
        private let result = Mutex<Result<PostgresRows, PostgresError>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        fileprivate func received(_ answer: Result<PostgresRows, PostgresError>) {
            result.withTracedLock { $0 = answer }
            done.signal()
        }

        /// The answer, waiting for it up to `seconds` (nil if it did not come).
        package func answer(within seconds: Int = 20) -> Result<PostgresRows, PostgresError>? {
            guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
            done.signal()  // a later call answers at once
            return result.withTracedLock { $0 }
        }

        /// Whether the answer has come (never waits).
        package var isAnswered: Bool { result.withTracedLock { $0 != nil } }
    }

    /// Statements of `database` running now (not this session's own), whose text is LIKE
    /// `pattern`, from `pg_stat_activity`; nil when the query got no answer.
    package func runningStatements(database: String, like pattern: String) -> Int? {
        guard
            case .success(let rows)? = blockingQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE $2 AND pid <> pg_backend_pid()",
                [database, pattern])
        else { return nil }
        return rows[0, 0].flatMap { Int($0) }
    }

    package func close() {
        connection.withValue { $0.close() }
        loopThread.shutdown()
    }
}
