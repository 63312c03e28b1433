import EventLoops

/// A few connections on one event loop, each answered on this loop. Use it on its loop's thread only.
///
/// `execute` sends a request to the loop's first ready connection, which pipelines them; the next
/// connection takes new requests only while the first is not ready (connecting, or backing off
/// after a lost connection) or stalled: holding requests without having answered any for
/// `stallThreshold`. Why not spread reads: a request waits for every request sent before it on its
/// connection, so each busy backend that is waiting for a CPU holds up all it was sent; one busy
/// backend per loop keeps them few (docs/performance.md, PostgreSQL).
///
/// `executeOnLeastBusy` sends to the ready connection with the fewest requests in flight: for
/// statements that take row locks. A backend that holds a row's lock and has the next statement on
/// that row queued takes the lock again as soon as it commits, before the waiter it woke runs; one
/// busy backend per loop would keep a to-do's writes from the other loops while its pipeline stays full.
public final class PostgresLoopPool: PostgresExecuting {
    public let connections: [PostgresConnection]
    private let stallThreshold: Duration
    private let clock = ContinuousClock()

    public init(loop: EventLoop, configuration: PostgresConfiguration) {
        connections = (0..<max(1, configuration.connectionsPerLoop)).map { _ in
            PostgresConnection(loop: loop, configuration: configuration)
        }
        stallThreshold = configuration.timing.stallThreshold
        for connection in connections { connection.start() }
    }

    public func execute(
        _ query: PostgresQuery, _ parameters: [String?], completion: @escaping PostgresConnection.Completion
    ) {
        choose().execute(query, parameters, completion: completion)
    }

    /// `execute` for a statement that takes row locks (a write): to the ready connection with the
    /// fewest requests in flight (`leastBusy`).
    public func executeOnLeastBusy(
        _ query: PostgresQuery, _ parameters: [String?], completion: @escaping PostgresConnection.Completion
    ) {
        leastBusy().execute(query, parameters, completion: completion)
    }

    /// Requests waiting for an answer on this loop's connections.
    public var pendingCount: Int { connections.reduce(0) { $0 + $1.pendingCount } }

    /// Whether a connection is up.
    public var isReady: Bool { connections.contains { $0.isReady } }

    public func close() {
        for connection in connections { connection.close() }
    }

    /// The first ready connection that is not stalled; when every ready one is, the one that
    /// answered last. With none ready: one still connecting, the fewest requests waiting there
    /// (they wait for it up to their deadline), else any (backing off: the request fails at once as
    /// unavailable).
    private func choose() -> PostgresConnection {
        var now: ContinuousClock.Instant?
        var leastStalled: PostgresConnection?
        for connection in connections where connection.isReady {
            if connection.inFlightCount == 0 { return connection }
            let time = now ?? clock.now
            now = time
            if time - connection.lastProgress < stallThreshold { return connection }
            if leastStalled.map({ connection.lastProgress > $0.lastProgress }) ?? true { leastStalled = connection }
        }
        return leastStalled ?? leastBusy()
    }

    /// Ready connections first (the one the server holds the fewest statements for, cancelled ones
    /// included), then ones still connecting (the request waits for them up to its deadline), then
    /// any (backing off: it fails at once as unavailable).
    private func leastBusy() -> PostgresConnection {
        func rank(_ connection: PostgresConnection) -> (Int, Int) {
            switch connection.phase {
            case .ready: (0, connection.inFlightCount)
            case .connecting, .idle: (1, connection.inFlightCount)
            case .backingOff, .closed: (2, 0)
            }
        }
        return connections.min { rank($0) < rank($1) }!
    }
}

/// Something requests can be sent to on a loop: a connection or a pool of them.
public protocol PostgresExecuting: AnyObject, SendableMetatype {
    func execute(_ query: PostgresQuery, _ parameters: [String?], completion: @escaping PostgresConnection.Completion)
}

extension PostgresConnection: PostgresExecuting {}
