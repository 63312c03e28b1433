import EventLoops
import Glibc
import LockTracing
import PostgresLoop
import Synchronization
import TestSupport
import Testing

/// A `PostgresConnection` against a real PostgreSQL (the shared throwaway cluster).
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .tags(.postgres))
struct PostgresConnectionTests {
    let cluster = PostgresTestCluster.shared!

    @Test func preparedStatementRoundTripPreparesOncePerConnection() async throws {
        let session = try await PostgresTestSession.open(cluster)
        defer { session.close() }
        let greet = PostgresStatement(
            name: "greet", sql: "SELECT $1::text || '!' AS greeting, $2::int + 1 AS next, NULL::text AS nothing")
        let first = try await session.connection.query(.prepared(greet), ["héllo", "41"])
        #expect(first.columns == ["greeting", "next", "nothing"])
        #expect(first.count == 1)
        #expect(first[0, "greeting"] == "héllo!")
        #expect(first[0, 1] == "42")
        #expect(first[0, 2] == nil)
        let second = try await session.connection.query(.prepared(greet), ["again", nil])
        #expect(second[0, 0] == "again!")
        #expect(second[0, 1] == nil)
        let prepared = try await session.connection.query("SELECT count(*) FROM pg_prepared_statements WHERE name = 'greet'")
        #expect(prepared[0, 0] == "1")
    }

    @Test func aThousandPipelinedRequestsAreAnsweredInOrderWithTheirOwnRows() async throws {
        let session = try await PostgresTestSession.open(cluster)
        defer { session.close() }
        let twice = PostgresStatement(name: "twice", sql: "SELECT $1::int * 2, repeat('x', $1::int % 7)")
        let answers = Mutex<[(Int, Result<PostgresRows, PostgresError>)]>([])
        let maxInFlight = Mutex(0)
        session.connection.withValue { connection in
            for index in 0..<1000 {
                connection.execute(.prepared(twice), [String(index)]) { result in
                    answers.withTracedLock { $0.append((index, result)) }
                }
                maxInFlight.withTracedLock { $0 = max($0, connection.pendingCount) }
            }
        }
        #expect(eventually { answers.withTracedLock { $0.count } == 1000 })
        let all = answers.withTracedLock { $0 }
        #expect(all.map(\.0) == Array(0..<1000))
        for (index, result) in all {
            let rows = try result.get()
            #expect(rows[0, 0] == String(index * 2))
            #expect(rows[0, 1] == String(repeating: "x", count: index % 7))
        }
        #expect(maxInFlight.withTracedLock { $0 } == 1000)
    }

    @Test func aListeningSessionHearsEachNotificationAndListensAgainAfterItsConnectionIsLost() async throws {
        let listener = try await PostgresTestSession.open(cluster)
        defer { listener.close() }
        let sender = try await PostgresTestSession.open(cluster)
        defer { sender.close() }
        let heard = Mutex<[String]>([])
        let listening = Mutex(0)
        listener.connection.withValue { connection in
            connection.onNotification = { channel in heard.withTracedLock { $0.append(channel) } }
            connection.onListening = { listening.withTracedLock { $0 += 1 } }
            connection.listen("todo \"feed\"")
        }
        #expect(eventually { listening.withTracedLock { $0 } == 1 })
        let pid = try #require(try listener.blockingQuery("SELECT pg_backend_pid()")?.get()[0, 0])
        for _ in 0..<2 { _ = try #require(try sender.blockingQuery(#"SELECT pg_notify('todo "feed"', 'x')"#)?.get()) }
        _ = try #require(try sender.blockingQuery("SELECT pg_notify('another', 'x')")?.get())
        #expect(eventually { heard.withTracedLock { $0 } == [#"todo "feed""#, #"todo "feed""#] })
        // Its backend ends: the connection comes back and listens again by itself.
        _ = try #require(try sender.blockingQuery("SELECT pg_terminate_backend($1::int)", [pid])?.get())
        #expect(eventually { listening.withTracedLock { $0 } == 2 })
        _ = try #require(try sender.blockingQuery(#"SELECT pg_notify('todo "feed"', 'y')"#)?.get())
        #expect(eventually { heard.withTracedLock { $0 }.count == 3 })
        #expect(heard.withTracedLock { $0 }.allSatisfy { $0 == #"todo "feed""# })
    }

    @Test func anErrorAbortsOnlyItsOwnRequest() async throws {
        let session = try await PostgresTestSession.open(cluster)
        defer { session.close() }
        let divide = PostgresStatement(name: "divide", sql: "SELECT 100 / $1::int")
        let answers = Mutex<[Int: Result<PostgresRows, PostgresError>]>([:])
        session.connection.withValue { connection in
            for (index, divisor) in ["4", "0", "5"].enumerated() {
                connection.execute(.prepared(divide), [divisor]) { result in answers.withTracedLock { $0[index] = result } }
            }
        }
        #expect(eventually { answers.withTracedLock { $0.count } == 3 })
        let all = answers.withTracedLock { $0 }
        #expect(try all[0]!.get()[0, 0] == "25")
        #expect(try all[2]!.get()[0, 0] == "20")
        guard case .failure(.server(let error)) = all[1]! else {
            Issue.record("expected a server error, got \(all[1]!)")
            return
        }
        #expect(error.sqlState == "22012")
        #expect(error.message == "division by zero")
        #expect(try await session.connection.query(.prepared(divide), ["50"])[0, 0] == "2")
    }

    @Test func serializationFailuresAreRetriedAndOtherErrorsAreNot() async throws {
        let session = try await PostgresTestSession.open(cluster)
        defer { session.close() }
        let suffix = String(UInt32.random(in: 0...UInt32.max))
        // A sequence counts the calls (it is not rolled back with the failed statement).
        _ = try await session.connection.query("CREATE SEQUENCE calls_\(suffix)")
        _ = try await session.connection.query(
            """
            CREATE FUNCTION flaky_\(suffix)(state text) RETURNS int LANGUAGE plpgsql AS $$
            BEGIN
                IF nextval('calls_\(suffix)') % 2 = 1 THEN RAISE EXCEPTION 'try again' USING ERRCODE = state; END IF;
                RETURN 7;
            END $$
            """)
        // Call 1 fails with 40001 and is sent again: call 2 answers.
        #expect(try await session.connection.query("SELECT flaky_\(suffix)('40001')")[0, 0] == "7")
        #expect(try await session.connection.query("SELECT last_value FROM calls_\(suffix)")[0, 0] == "2")
        // Call 3 fails with a unique violation: that may have done something, so it is not retried.
        await #expect(throws: PostgresError.server(ServerError(sqlState: "23505", message: "try again"))) {
            try await session.connection.query("SELECT flaky_\(suffix)('23505')")
        }
        #expect(try await session.connection.query("SELECT last_value FROM calls_\(suffix)")[0, 0] == "3")
    }

    @Test func aPoolAnswersOnTheRequestsOwnLoopAcrossItsConnections() async throws {
        let loopThread = try LoopThread()
        defer { loopThread.shutdown() }
        let client = PostgresClient(
            configuration: PostgresConfiguration(
                connectionString: cluster.connectionString(), connectionsPerLoop: 3))
        let loop = loopThread.loop
        let loopThreadID = Mutex<pthread_t?>(nil)
        let answers = Mutex<[(pthread_t, String?)]>([])
        let samePool = Mutex(false)
        loop.execute {
            loopThreadID.withTracedLock { $0 = pthread_self() }
            let pool = client.pool(on: loop)
            samePool.withTracedLock { $0 = client.pool(on: loop) === pool }
            for index in 0..<300 {
                pool.execute(.unprepared("SELECT $1::int + pg_backend_pid() * 0, pg_backend_pid()"), [String(index)]) { result in
                    answers.withTracedLock { $0.append((pthread_self(), (try? result.get())?[0, 1])) }
                }
            }
        }
        #expect(eventually { answers.withTracedLock { $0.count } == 300 })
        let all = answers.withTracedLock { $0 }
        let thread = try #require(loopThreadID.withTracedLock { $0 })
        #expect(samePool.withTracedLock { $0 })
        #expect(all.allSatisfy { pthread_equal($0.0, thread) != 0 })
        #expect(all.allSatisfy { $0.1 != nil })
        // Requests sent while all three connected spread over them (each takes the least busy).
        #expect(Set(all.compactMap(\.1)).count >= 2)
        loop.execute { client.close() }
    }

    @Test func aPoolIsClosedOnItsLoopWhenTheLoopStopsBeforeTheClientCloses() async throws {
        let loopThread = try LoopThread()
        let client = PostgresClient(
            configuration: PostgresConfiguration(
                connectionString: cluster.connectionString(), connectionsPerLoop: 2))
        let loop = loopThread.loop
        let pool = Mutex<LoopBound<PostgresLoopPool>?>(nil)
        let answered = Mutex(0)
        loop.execute {
            let made = client.pool(on: loop)
            pool.withTracedLock { $0 = LoopBound(made, on: loop) }
            made.execute(.unprepared("SELECT 1"), []) { _ in answered.withTracedLock { $0 += 1 } }
        }
        #expect(eventually { answered.withTracedLock { $0 } == 1 })
        // The loop stops first (as a server's loops do before its store closes): its pool closes there.
        loopThread.shutdown()
        let bound = try #require(pool.withTracedLock { $0 })
        #expect(bound.valueOnLoop.connections.map(\.phase) == [.closed, .closed])
        // Then the client: its work for the stopped loop is dropped and the pool released here.
        client.close()
        pool.withTracedLock { $0 = nil }
    }

    @Test func hostNamesThatNeedADNSLookupAreRefused() throws {
        func validate(_ connectionString: String) throws(PostgresConfigurationError) {
            _ = try PostgresConfiguration(connectionString: connectionString).validated()
        }
        try validate("host=/tmp dbname=todo")
        try validate("host=127.0.0.1 port=5432 dbname=todo")
        try validate("postgresql://todo@[::1]:5432/todo")
        try validate("host=db.example.com hostaddr=10.0.0.5 dbname=todo")
        try validate("dbname=todo")
        #expect(throws: PostgresConfigurationError.hostNeedsLookup("db.example.com")) { try validate("host=db.example.com dbname=todo") }
        #expect(throws: PostgresConfigurationError.hostNeedsLookup("localhost")) { try validate("postgresql://localhost/todo") }
        #expect(throws: PostgresConfigurationError.self) { try validate("host='unterminated") }
        #expect(throws: PostgresConfigurationError.outOfRange("database connections per loop must be 1...64, not 0")) {
            _ = try PostgresConfiguration(connectionString: "host=/tmp", connectionsPerLoop: 0).validated()
        }
    }
}
