import Dispatch
import EventLoops
import LockTracing
import PostgresLoop
import Synchronization
import TestSupport
import Testing

/// How a loop's pool shares requests among its connections: the first ready one takes reads while it
/// answers (full, they wait for it), the next one only while the first is down, stalled, or full
/// and without an answer for `readSpillAfter`; writes go to the least busy.
@Suite(.enabled(if: PostgresTestCluster.isAvailable), .tags(.postgres))
struct PostgresPoolTests {
    let cluster = PostgresTestCluster.shared!

    /// A pool on a loop of its own, its connections all up; `shutdown` closes it and stops its loop.
    func readyPool(_ configuration: PostgresConfiguration) throws -> (pool: LoopBound<PostgresLoopPool>, shutdown: () -> Void) {
        let loopThread = try LoopThread()
        let loop = loopThread.loop
        let made = DispatchSemaphore(value: 0)
        let box = Mutex<LoopBound<PostgresLoopPool>?>(nil)
        loop.execute {
            box.withTracedLock { $0 = LoopBound(PostgresLoopPool(loop: loop, configuration: configuration), on: loop) }
            made.signal()
        }
        made.wait()
        let pool = try #require(box.withTracedLock { $0 })
        #expect(eventually { pool.onLoop { $0.connections.allSatisfy(\.isReady) } })
        return (
            pool,
            {
                pool.withValue { $0.close() }
                loopThread.shutdown()
            }
        )
    }

    @Test func aLoopsRequestsGoToItsFirstConnectionWhileItAnswers() async throws {
        // A threshold no pause of a loaded machine reaches: this is about the healthy case.
        var timing = PostgresTiming()
        timing.stallThreshold = .seconds(30)
        // Room for every request of a round on one connection: this is about where reads go first.
        let (pool, shutdown) = try readyPool(
            PostgresConfiguration(
                connectionString: cluster.connectionString(), timing: timing, connectionsPerLoop: 3, pipelineDepth: 64))
        defer { shutdown() }
        let backends = Mutex<[String?]>([])
        for round in 1...5 {
            pool.withValue { pool in
                pool.askBackendPids(60) { pid in backends.withTracedLock { $0.append(pid) } }
            }
            #expect(eventually { backends.withTracedLock { $0.count } == round * 60 })
        }
        #expect(eventually { backends.withTracedLock { $0.count } == 300 })
        let all = backends.withTracedLock { $0 }
        #expect(!all.contains(nil))
        #expect(Set(all).count == 1, "\(Set(all))")
    }

    /// A request that is one step of a call begun earlier carries the call's deadline: once it has
    /// passed, the request fails as timed out, whether it was sent at once or waited in the queue;
    /// the requests around it are answered.
    @Test func aRequestCarryingThePassedDeadlineOfItsCallFailsAsTimedOut() async throws {
        let (pool, shutdown) = try readyPool(
            PostgresConfiguration(connectionString: cluster.connectionString(), connectionsPerLoop: 1, pipelineDepth: 1))
        defer { shutdown() }
        let answers = Mutex<[String: String]>([:])
        @Sendable func record(_ name: String) -> PostgresConnection.Completion {
            { result in
                let answer =
                    switch result {
                    case .success(let rows): rows[0, 0] ?? "null"
                    case .failure(.timedOut): "timed out"
                    case .failure(let error): "\(error)"
                    }
                answers.withTracedLock { $0[name] = answer }
            }
        }
        let passed = ContinuousClock.now - .seconds(1)
        pool.withValue { pool in
            // Sent at once with a passed deadline.
            pool.execute(.unprepared("SELECT 'sent'"), [], deadline: passed, completion: record("sent"))
            // The connection holds one: these wait in the queue.
            pool.execute(.unprepared("SELECT 'queued'"), [], deadline: passed, completion: record("queued"))
            pool.execute(.unprepared("SELECT 'after'"), [], completion: record("after"))
        }
        #expect(eventually { answers.withTracedLock { $0.count } == 3 })
        #expect(answers.withTracedLock { $0 } == ["sent": "timed out", "queued": "timed out", "after": "after"])
    }

    @Test func aStalledConnectionsNewRequestsGoToTheNextOne() async throws {
        var timing = PostgresTiming()
        timing.stallThreshold = .milliseconds(40)
        // The slow statement waits until the test lets it go, however loaded the machine: a CI run
        // under load passed the default 5 s deadline, which failed it and dropped its connection.
        timing.requestTimeout = .seconds(600)
        // Room for every quick read on the second connection: under a load that keeps it from
        // answering for the threshold it looks stalled too, and a full one would leave the first,
        // blocked, as the only one with room.
        let (pool, shutdown) = try readyPool(
            PostgresConfiguration(
                connectionString: cluster.connectionString(), timing: timing, connectionsPerLoop: 2, pipelineDepth: 64))
        let holder = try await PostgresTestSession.open(cluster)
        defer {
            shutdown()
            holder.close()
        }
        // The slow statement waits for a lock another session holds: it ends when the test says so.
        let key = Int64.random(in: 1...Int64.max)
        let clock = ContinuousClock()
        let slow = Mutex<(backend: String?, done: Bool)>((nil, false))
        let sent = clock.now
        let waiting = try sendBlocked(on: pool, holder: holder, key: key) { backend in slow.withTracedLock { $0 = (backend, true) } }
        // Past the threshold with no answer from the first connection: new requests go to the
        // second one, and are answered while the slow statement still waits. The threshold counts
        // from when the loop sent the statement (`lastProgress`), which a loaded machine can make
        // later than `sent` by more than the threshold: CI failed this test twice when it counted
        // from `sent`, and the quick reads went to the first connection, not yet stalled.
        #expect(eventually { clock.now - sent > timing.stallThreshold })
        let threshold = timing.stallThreshold
        #expect(
            eventually {
                pool.onLoop { pool in
                    pool.connections.allSatisfy { $0.inFlightCount == 0 || ContinuousClock.now - $0.lastProgress > threshold }
                }
            })
        let quick = Mutex<[String?]>([])
        pool.withValue { pool in
            pool.askBackendPids(20) { pid in quick.withTracedLock { $0.append(pid) } }
        }
        #expect(eventually { quick.withTracedLock { $0.count } == 20 })
        #expect(!slow.withTracedLock { $0.done }, "the slow statement still waits for the lock")
        let answers = quick.withTracedLock { $0 }
        #expect(answers.allSatisfy { $0 != nil && $0 != waiting }, "\(answers) on the slow backend \(waiting)")
        _ = holder.blockingQuery("SELECT pg_advisory_unlock($1)", [String(key)])
        #expect(eventually { slow.withTracedLock { $0.done } })
        #expect(slow.withTracedLock { $0.backend } == waiting)
    }

    /// Takes the advisory lock `key` in `holder`'s session, then sends a statement on `pool` that
    /// waits for it (`answered` gets its backend's pid once the test lets the lock go); answers
    /// the waiting backend's pid once it waits.
    func sendBlocked(
        on pool: LoopBound<PostgresLoopPool>, holder: PostgresTestSession, key: Int64,
        answered: @escaping @Sendable (String?) -> Void
    ) throws -> String {
        guard case .success = holder.blockingQuery("SELECT pg_advisory_lock($1)", [String(key)]) else {
            throw PostgresError.closed
        }
        pool.withValue { pool in
            pool.execute(.unprepared("SELECT pg_backend_pid()::text, pg_advisory_xact_lock($1)"), [String(key)]) { result in
                answered((try? result.get())?[0, 0])
            }
        }
        return try #require(
            eventually { () -> String? in
                guard
                    case .success(let rows) = holder.blockingQuery(
                        "SELECT pid::text FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = ($1::bigint & 4294967295)::oid",
                        [String(key)]), rows.count == 1
                else { return nil }
                return rows[0, 0]
            })
    }

    /// What the pipeline-depth tests share: a pool of `connections` on a loop of its own, each
    /// holding one request in flight, no stall and no deadline in reach; a session of the test's
    /// own holding an advisory lock; and a first request sent, waiting for that lock.
    final class BlockedPool: @unchecked Sendable {  // `waiting` is set once, before the test reads it
        let pool: LoopBound<PostgresLoopPool>
        let shutdown: () -> Void
        let holder: PostgresTestSession
        let key = Int64.random(in: 1...Int64.max)
        /// The blocked request's backend once answered, and whether it was.
        let slow = Mutex<(backend: String?, done: Bool)>((nil, false))
        /// The pid of the backend the blocked request waits in.
        var waiting = ""

        init(pool: LoopBound<PostgresLoopPool>, shutdown: @escaping () -> Void, holder: PostgresTestSession) {
            self.pool = pool
            self.shutdown = shutdown
            self.holder = holder
        }

        /// Lets the blocked request go.
        func release() {
            _ = holder.blockingQuery("SELECT pg_advisory_unlock($1)", [String(key)])
        }

        func close() {
            shutdown()
            holder.close()
        }
    }

    func blockedPool(
        connections: Int, readSpillAfter: Duration = .milliseconds(20), stallThreshold: Duration = .seconds(600)
    ) async throws -> BlockedPool {
        var timing = PostgresTiming()
        timing.stallThreshold = stallThreshold
        timing.readSpillAfter = readSpillAfter
        timing.requestTimeout = .seconds(600)
        // No other timer of the connections' in reach either (it would tell the pool of room).
        timing.connectTimeout = .seconds(600)
        let (pool, shutdown) = try readyPool(
            PostgresConfiguration(
                connectionString: cluster.connectionString(), timing: timing, connectionsPerLoop: connections,
                pipelineDepth: 1))
        let blocked = BlockedPool(pool: pool, shutdown: shutdown, holder: try await PostgresTestSession.open(cluster))
        blocked.waiting = try sendBlocked(on: pool, holder: blocked.holder, key: blocked.key) { [weak blocked] backend in
            blocked?.slow.withTracedLock { $0 = (backend, true) }
        }
        return blocked
    }

    /// Issue 22: a loop's reads all went to its first connection while it answered within the
    /// stall threshold, so each waited for every request sent before it there, a slow one
    /// included. A connection now holds at most `pipelineDepth`, and reads wait for a full one only
    /// while it answers: once it has gone `readSpillAfter` without an answer, they go to the next
    /// connection (a timer tells the pool: nothing else happens meanwhile) and are answered while
    /// the slow statement still runs.
    @Test func readsGoToTheNextConnectionOnceAFullOneHasNotAnsweredForTheSpillTime() async throws {
        // Never stalled here, and no deadline in reach: only the spill time sends reads elsewhere.
        let spill = Duration.milliseconds(500)
        let blocked = try await blockedPool(connections: 2, readSpillAfter: spill)
        defer { blocked.close() }
        let (pool, waiting) = (blocked.pool, blocked.waiting)
        let lastAnswer = pool.onLoop { $0.connections[0].lastProgress }
        let clock = ContinuousClock()
        let quick = Mutex<[(backend: String?, at: ContinuousClock.Instant)]>([])
        let (queued, quiet) = pool.onLoop { pool in
            pool.askBackendPids(20) { pid in quick.withTracedLock { $0.append((pid, clock.now)) } }
            return (pool.queuedCount, clock.now - pool.connections[0].lastProgress)
        }
        // Unless the machine took the spill time to get here, the reads wait for the timer.
        if quiet < spill { #expect(queued == 20, "quiet for \(quiet)") }
        #expect(eventually { quick.withTracedLock { $0.count } == 20 })
        #expect(!blocked.slow.withTracedLock { $0.done }, "the slow statement still waits for the lock")
        let answers = quick.withTracedLock { $0 }
        #expect(answers.allSatisfy { $0.backend != nil && $0.backend != waiting }, "\(answers) on the slow backend \(waiting)")
        #expect(answers.allSatisfy { $0.at - lastAnswer >= spill }, "answered before the first connection was quiet for \(spill)")
        blocked.release()
        #expect(eventually { blocked.slow.withTracedLock { $0.done } })
        #expect(blocked.slow.withTracedLock { $0.backend } == waiting)
    }

    /// While the first connection is full and answers, reads wait for it in the queue rather than
    /// going to the loop's next connection (one busy backend per loop for reads); with no spill
    /// time they go to any connection with room. Full for reads means `readPipelineDepth` in
    /// flight when it is set (writes keep `pipelineDepth`).
    @Test(
        arguments: [
            (Duration.seconds(600), nil, 29, 1), (Duration.zero, nil, 28, 2), (Duration.seconds(600), 4, 26, 1),
        ] as [(Duration, Int?, Int, Int)])
    func readsWaitForAFullConnectionThatAnswers(readSpillAfter: Duration, readDepth: Int?, queued: Int, backendsUsed: Int)
        async throws
    {
        var timing = PostgresTiming()
        timing.stallThreshold = .seconds(600)
        timing.readSpillAfter = readSpillAfter
        let (pool, shutdown) = try readyPool(
            PostgresConfiguration(
                connectionString: cluster.connectionString(), timing: timing, connectionsPerLoop: 2, pipelineDepth: 1,
                readPipelineDepth: readDepth))
        defer { shutdown() }
        let backends = Mutex<[String?]>([])
        let queuedAtOnce = pool.onLoop { pool in
            pool.askBackendPids(30) { pid in backends.withTracedLock { $0.append(pid) } }
            return pool.queuedCount
        }
        #expect(queuedAtOnce == queued)
        #expect(eventually { backends.withTracedLock { $0.count } == 30 })
        let all = backends.withTracedLock { $0 }
        #expect(!all.contains(nil))
        #expect(Set(all).count == backendsUsed, "\(Set(all))")
    }

    /// A write does not wait behind reads that wait for the first connection: it goes to the
    /// connection with the fewest in flight at once (reads and writes queue apart).
    @Test func aWriteIsNotHeldUpByReadsWaitingForTheFirstConnection() async throws {
        let blocked = try await blockedPool(connections: 2, readSpillAfter: .seconds(600))
        defer { blocked.close() }
        let (pool, waiting) = (blocked.pool, blocked.waiting)
        let reads = Mutex<[String?]>([])
        let write = Mutex<String??>(nil)
        let queued = pool.onLoop { pool in
            pool.askBackendPids(5) { pid in reads.withTracedLock { $0.append(pid) } }
            pool.executeOnLeastBusy(.unprepared("SELECT pg_backend_pid()::text"), []) { result in
                write.withTracedLock { $0 = .some((try? result.get())?[0, 0]) }
            }
            return pool.queuedCount
        }
        #expect(queued == 5)
        let writeBackend = try #require(eventually { write.withTracedLock { $0 } })
        #expect(writeBackend != nil && writeBackend != waiting, "the write ran on \(String(describing: writeBackend))")
        #expect(reads.withTracedLock { $0 }.isEmpty, "the reads still wait for the first connection")
        #expect(pool.onLoop { $0.queuedCount } == 5)
        blocked.release()
        #expect(eventually { reads.withTracedLock { $0.count } == 5 })
        #expect(reads.withTracedLock { $0 } == Array(repeating: waiting, count: 5))
    }

    /// A spill time longer than the stall threshold is cut to it: past the threshold the full
    /// connection counts as stalled, and the timer tells the pool then (not at the longer time).
    @Test func aSpillTimePastTheStallThresholdSpillsAtTheThreshold() async throws {
        let blocked = try await blockedPool(connections: 2, readSpillAfter: .seconds(600), stallThreshold: .milliseconds(200))
        defer { blocked.close() }
        let (pool, waiting) = (blocked.pool, blocked.waiting)
        let answers = Mutex<[String?]>([])
        pool.withValue { pool in
            pool.askBackendPids(3) { pid in answers.withTracedLock { $0.append(pid) } }
        }
        #expect(eventually { answers.withTracedLock { $0.count } == 3 })
        #expect(!blocked.slow.withTracedLock { $0.done })
        #expect(answers.withTracedLock { $0 }.allSatisfy { $0 != nil && $0 != waiting })
        blocked.release()
        #expect(eventually { blocked.slow.withTracedLock { $0.done } })
    }

    /// With every connection full, requests wait in the pool's queue (never sent, so no backend
    /// holds them) and go out in arrival order as room comes.
    @Test func requestsWaitInThePoolsQueueWhileEveryConnectionIsFull() async throws {
        let blocked = try await blockedPool(connections: 1)
        defer { blocked.close() }
        let pool = blocked.pool
        let order = Mutex<[Int]>([])
        pool.withValue { pool in
            for index in 0..<5 {
                pool.execute(.unprepared("SELECT $1::int"), [String(index)]) { result in
                    order.withTracedLock { $0.append((try? result.get())?[0, 0].flatMap { Int($0) } ?? -1) }
                }
            }
        }
        #expect(pool.onLoop { ($0.queuedCount, $0.pendingCount, $0.connections[0].inFlightCount) } == (5, 6, 1))
        blocked.release()
        #expect(eventually { order.withTracedLock { $0.count } == 5 })
        #expect(blocked.slow.withTracedLock { $0.done })
        #expect(order.withTracedLock { $0 } == [0, 1, 2, 3, 4])
        #expect(pool.onLoop { $0.queuedCount } == 0)
    }

    /// Closing the pool fails what waits in its queue too.
    @Test func closingThePoolFailsItsQueuedRequests() async throws {
        let blocked = try await blockedPool(connections: 1)
        defer { blocked.close() }
        let pool = blocked.pool
        let failures = Mutex<[PostgresError?]>([])
        pool.withValue { pool in
            for _ in 0..<3 {
                pool.execute(.unprepared("SELECT 1"), []) { result in
                    failures.withTracedLock {
                        if case .failure(let error) = result { $0.append(error) } else { $0.append(nil) }
                    }
                }
            }
            pool.close()
        }
        #expect(eventually { failures.withTracedLock { $0.count } == 3 })
        #expect(failures.withTracedLock { $0 } == [.closed, .closed, .closed])
        blocked.release()
    }

    @Test func aFreshSessionIsNotStalledByTheTimeBeforeItConnected() async throws {
        let loopThread = try LoopThread()
        defer { loopThread.shutdown() }
        let loop = loopThread.loop
        let clock = ContinuousClock()
        let created = Mutex<(LoopBound<PostgresConnection>, ContinuousClock.Instant)?>(nil)
        let made = DispatchSemaphore(value: 0)
        let configuration = PostgresConfiguration(connectionString: cluster.connectionString())
        loop.execute {
            let connection = PostgresConnection(loop: loop, configuration: configuration)
            created.withTracedLock { $0 = (LoopBound(connection, on: loop), connection.lastProgress) }
            made.signal()
        }
        made.wait()
        let (connection, progressAtCreation) = try #require(created.withTracedLock { $0 })
        defer { connection.withValue { $0.close() } }
        // Longer than a stall threshold could be in a test, then connect.
        #expect(eventually { clock.now - progressAtCreation > .milliseconds(100) })
        let started = clock.now
        connection.withValue { $0.start() }
        let progress = try #require(
            eventually { () -> ContinuousClock.Instant? in
                let (ready, progress) = connection.onLoop { ($0.isReady, $0.lastProgress) }
                return ready ? progress : nil
            })
        #expect(progress >= started, "the stall clock starts when the session is up")
    }

    /// On an idle pool a write goes to the reads' connection (of equals, the first: measured, the
    /// tails were shorter), one `awayFromReads` to another: a write that waits long for a lock would
    /// hold up every read sent behind it there.
    @Test func onAnIdlePoolAWriteAwayFromReadsGoesToAnotherConnectionThanTheReads() async throws {
        let (pool, shutdown) = try readyPool(PostgresConfiguration(connectionString: cluster.connectionString(), connectionsPerLoop: 2))
        defer { shutdown() }
        func backend(write: Bool, awayFromReads: Bool = false) -> String? {
            let answer = Mutex<String??>(nil)
            pool.withValue { pool in
                let completion: PostgresConnection.Completion = { result in
                    answer.withTracedLock { $0 = .some((try? result.get())?[0, 0]) }
                }
                if write {
                    pool.executeOnLeastBusy(
                        .unprepared("SELECT pg_backend_pid()::text"), [], awayFromReads: awayFromReads, completion: completion)
                } else {
                    pool.execute(.unprepared("SELECT pg_backend_pid()::text"), [], completion: completion)
                }
            }
            return eventually { answer.withTracedLock { $0 } } ?? nil
        }
        let read = try #require(backend(write: false))
        #expect(backend(write: true) == read)
        let away = try #require(backend(write: true, awayFromReads: true))
        #expect(away != read)
        #expect(backend(write: false) == read)
    }

    @Test func writesSpreadOverTheLoopsConnections() async throws {
        // Room for all on either connection: this is about where writes go, not about the queue.
        let (pool, shutdown) = try readyPool(
            PostgresConfiguration(connectionString: cluster.connectionString(), connectionsPerLoop: 2, pipelineDepth: 100))
        defer { shutdown() }
        let backends = Mutex<[String?]>([])
        pool.withValue { pool in
            pool.askBackendPids(100, asWrites: true) { pid in backends.withTracedLock { $0.append(pid) } }
        }
        #expect(eventually { backends.withTracedLock { $0.count } == 100 })
        let counts = Dictionary(grouping: backends.withTracedLock { $0 }.compactMap { $0 }, by: { $0 }).mapValues(\.count)
        #expect(counts.values.sorted() == [50, 50])
    }
}

extension PostgresLoopPool {
    /// Sends `count` reads of their backend's pid (call it on the pool's loop), or writes
    /// (`executeOnLeastBusy`) with `asWrites`; `answered` gets each pid, nil for a failure.
    func askBackendPids(_ count: Int, asWrites: Bool = false, answered: @escaping (String?) -> Void) {
        for _ in 0..<count {
            let completion: PostgresConnection.Completion = { result in answered((try? result.get())?[0, 0]) }
            if asWrites {
                executeOnLeastBusy(.unprepared("SELECT pg_backend_pid()::text"), [], completion: completion)
            } else {
                execute(.unprepared("SELECT pg_backend_pid()::text"), [], completion: completion)
            }
        }
    }
}
