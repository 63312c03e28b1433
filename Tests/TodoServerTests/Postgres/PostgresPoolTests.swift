import Dispatch
import EventLoops
import LockTracing
import PostgresLoop
import Synchronization
import Testing

/// How a loop's pool shares requests among its connections: the first ready one takes them while it
/// answers, the next one only while the first is down or stalled; writes go to the least busy.
@Suite(.enabled(if: PostgresTestCluster.isAvailable))
struct PostgresPoolTests {
    let cluster = PostgresTestCluster.shared!

    /// A pool on a loop of its own, its connections all up.
    func readyPool(_ configuration: PostgresConfiguration) throws -> (StandaloneLoop, LoopBound<PostgresLoopPool>) {
        let loop = try StandaloneLoop()
        let handle = loop.handle
        let made = DispatchSemaphore(value: 0)
        let box = Mutex<LoopBound<PostgresLoopPool>?>(nil)
        handle.execute {
            box.withTracedLock { $0 = LoopBound(PostgresLoopPool(loop: handle, configuration: configuration), on: handle) }
            made.signal()
        }
        made.wait()
        let pool = try #require(box.withTracedLock { $0 })
        #expect(eventually { onLoop(pool) { $0.connections.allSatisfy(\.isReady) } })
        return (loop, pool)
    }

    func onLoop<T: Sendable>(_ pool: LoopBound<PostgresLoopPool>, _ body: @escaping @Sendable (PostgresLoopPool) -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        pool.withValue { pool in
            result.withTracedLock { $0 = body(pool) }
            done.signal()
        }
        done.wait()
        return result.withTracedLock { $0! }
    }

    @Test func aLoopsRequestsGoToItsFirstConnectionWhileItAnswers() async throws {
        // A threshold no pause of a loaded machine reaches: this is about the healthy case.
        var timing = PostgresTiming()
        timing.stallThreshold = .seconds(30)
        let (loop, pool) = try readyPool(PostgresConfiguration(
            connectionString: cluster.connectionString(), timing: timing, connectionsPerLoop: 3))
        defer {
            pool.withValue { $0.close() }
            loop.shutdown()
        }
        let backends = Mutex<[String?]>([])
        for round in 1...5 {
            pool.withValue { pool in
                for _ in 0..<60 {
                    pool.execute(.unprepared("SELECT pg_backend_pid()::text"), []) { result in
                        backends.withTracedLock { $0.append((try? result.get())?[0, 0]) }
                    }
                }
            }
            #expect(eventually { backends.withTracedLock { $0.count } == round * 60 })
        }
        #expect(eventually { backends.withTracedLock { $0.count } == 300 })
        let all = backends.withTracedLock { $0 }
        #expect(!all.contains(nil))
        #expect(Set(all).count == 1, "\(Set(all))")
    }

    @Test func aStalledConnectionsNewRequestsGoToTheNextOne() async throws {
        var timing = PostgresTiming()
        timing.stallThreshold = .milliseconds(40)
        let (loop, pool) = try readyPool(PostgresConfiguration(
            connectionString: cluster.connectionString(), timing: timing, connectionsPerLoop: 2))
        defer {
            pool.withValue { $0.close() }
            loop.shutdown()
        }
        let clock = ContinuousClock()
        let slowDone = Mutex<ContinuousClock.Instant?>(nil)
        let slowBackend = Mutex<String?>(nil)
        pool.withValue { pool in
            pool.execute(.unprepared("SELECT pg_backend_pid()::text, pg_sleep(0.8)"), []) { result in
                slowBackend.withTracedLock { $0 = (try? result.get())?[0, 0] }
                slowDone.withTracedLock { $0 = clock.now }
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        // 200 ms after the slow statement went out, past the threshold, new requests go to the
        // second connection and are answered before it ends.
        let quick = Mutex<[(String?, ContinuousClock.Instant)]>([])
        pool.withValue { pool in
            for _ in 0..<20 {
                pool.execute(.unprepared("SELECT pg_backend_pid()::text"), []) { result in
                    quick.withTracedLock { $0.append(((try? result.get())?[0, 0], clock.now)) }
                }
            }
        }
        #expect(eventually { quick.withTracedLock { $0.count } == 20 && slowDone.withTracedLock { $0 } != nil })
        let answers = quick.withTracedLock { $0 }
        let slow = try #require(slowBackend.withTracedLock { $0 })
        let ended = try #require(slowDone.withTracedLock { $0 })
        #expect(answers.allSatisfy { $0.0 != nil && $0.0 != slow })
        #expect(answers.allSatisfy { $0.1 < ended })
    }

    @Test func writesSpreadOverTheLoopsConnections() async throws {
        let (loop, pool) = try readyPool(PostgresConfiguration(connectionString: cluster.connectionString(), connectionsPerLoop: 2))
        defer {
            pool.withValue { $0.close() }
            loop.shutdown()
        }
        let backends = Mutex<[String?]>([])
        pool.withValue { pool in
            for _ in 0..<100 {
                pool.executeOnLeastBusy(.unprepared("SELECT pg_backend_pid()::text"), []) { result in
                    backends.withTracedLock { $0.append((try? result.get())?[0, 0]) }
                }
            }
        }
        #expect(eventually { backends.withTracedLock { $0.count } == 100 })
        let counts = Dictionary(grouping: backends.withTracedLock { $0 }.compactMap { $0 }, by: { $0 }).mapValues(\.count)
        #expect(counts.values.sorted() == [50, 50])
    }
}
