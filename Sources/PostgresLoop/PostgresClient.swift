import EventLoops
import LockTracing
import Synchronization

/// The database for a whole server: one `PostgresLoopPool` per event loop, made on first use on that
/// loop, so that every request is answered on its own loop with no thread hop.
public final class PostgresClient: Sendable {
    public let configuration: PostgresConfiguration
    private let pools = LoopLocal<PostgresLoopPool>()
    private let phases = Mutex<(makeObserver: @Sendable () -> @Sendable (PostgresRequestPhases) -> Void, skipping: UInt?)?>(nil)

    public init(configuration: PostgresConfiguration) {
        self.configuration = configuration
    }

    /// Tells an observer where the time of each request went (`PostgresRequestPhases`), on the
    /// request's loop, for the pools made from now on (but `skipping`'s): set it before the loops
    /// send requests. `makeObserver` makes one observer per pool, so that loops share nothing
    /// when they record.
    public func observePhases(
        skipping: EventLoop? = nil, _ makeObserver: @escaping @Sendable () -> @Sendable (PostgresRequestPhases) -> Void
    ) {
        phases.withTracedLock { $0 = (makeObserver, skipping?.identity) }
    }

    /// The pool of `loop`; call it on that loop's thread (asserted in debug builds: the pool is the
    /// loop's, without a lock).
    public func pool(on loop: EventLoop) -> PostgresLoopPool {
        pools.value(on: loop) { loop in
            let make = phases.withTracedLock { phases in phases.flatMap { $0.skipping == loop.identity ? nil : $0.makeObserver } }
            let pool = PostgresLoopPool(loop: loop, configuration: configuration, phases: make?())
            // Its connections' timers and socket watches live on the loop's base: closed there when
            // the loop stops, so that a pool released later (a `close()` after the loop stopped drops
            // its work and releases the pool on the calling thread) frees nothing of a freed base.
            let bound = LoopBound(pool, on: loop)
            loop.whenStopping { bound.valueOnLoop.close() }
            return pool
        }
    }

    /// Closes every pool on its own loop: their requests fail with `closed`.
    public func close() {
        for pool in pools.removeAll() { pool.withValue { $0.close() } }
    }
}
