import EventLoops

/// A few connections on one event loop; a request goes to the ready one with the fewest requests
/// waiting and is answered on this loop. Use it on its loop's thread only.
public final class PostgresLoopPool: PostgresExecuting {
    public let connections: [PostgresConnection]

    public init(loop: LoopHandle, configuration: PostgresConfiguration) {
        connections = (0..<max(1, configuration.connectionsPerLoop)).map { _ in
            PostgresConnection(loop: loop, configuration: configuration)
        }
        for connection in connections { connection.start() }
    }

    public func execute(
        _ query: PostgresQuery, _ parameters: [String?], completion: @escaping PostgresConnection.Completion
    ) {
        choose().execute(query, parameters, completion: completion)
    }

    /// Requests waiting for an answer on this loop's connections.
    public var pendingCount: Int { connections.reduce(0) { $0 + $1.pendingCount } }

    /// Whether a connection is up.
    public var isReady: Bool { connections.contains { $0.isReady } }

    public func close() {
        for connection in connections { connection.close() }
    }

    /// Ready connections first (the one the server holds the fewest statements for, cancelled ones
    /// included), then ones still connecting (the request waits for them up to its
    /// deadline), then any (backing off: it fails at once as unavailable).
    private func choose() -> PostgresConnection {
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
