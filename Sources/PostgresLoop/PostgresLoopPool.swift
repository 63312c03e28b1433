import EventLoops

/// A few connections on one event loop, each answered on this loop. Use it on its loop's thread only.
///
/// A connection holds at most `pipelineDepth` requests in flight; past that, requests wait in the
/// pool's queue (`PostgresPoolQueue`, arrival order, shared by the connections) and go to the first
/// connection that answers one. Why: a request sent on a connection waits for every request sent
/// before it there, so a backend that waits for a CPU or a row lock holds up all it was sent;
/// bounded, it holds up a few, and the others go to a connection that answers (docs/performance.md,
/// PostgreSQL).
///
/// `execute` sends to the loop's first ready connection with room, which pipelines them; the next
/// connection takes requests only while the first is full, not ready (connecting, or backing off
/// after a lost connection) or stalled: holding requests without having answered any for
/// `stallThreshold`. Few busy backends per loop keep the CPUs' switching low.
///
/// `executeOnLeastBusy` sends to the ready connection with the fewest requests in flight: for
/// statements that take row locks. A backend that holds a row's lock and has the next statement on
/// that row queued takes the lock again as soon as it commits, before the waiter it woke runs; one
/// busy backend per loop would keep a to-do's writes from the other loops while its pipeline stays full.
public final class PostgresLoopPool: PostgresExecuting {
    public let connections: [PostgresConnection]
    private let stallThreshold: Duration
    private let depth: Int
    private let requestTimeout: Duration
    private let clock = ContinuousClock()
    private var waiting = PostgresPoolQueue<Waiting>()
    private var deadlineTimer: LoopTimer?
    /// `pump` is running (a completion it runs may tell it of room again).
    private var pumping = false

    private struct Waiting {
        let query: PostgresQuery
        let parameters: [String?]
        let write: Bool
        /// The deadline the caller gave (nil: `requestTimeout` from arrival).
        let deadline: ContinuousClock.Instant?
        let arrived: ContinuousClock.Instant
        let completion: PostgresConnection.Completion
    }

    /// `phases` is told where each request's time went (`PostgresConnection.onPhases`).
    public init(
        loop: EventLoop, configuration: PostgresConfiguration, phases: (@Sendable (PostgresRequestPhases) -> Void)? = nil
    ) {
        connections = (0..<max(1, configuration.connectionsPerLoop)).map { _ in
            let connection = PostgresConnection(loop: loop, configuration: configuration)
            connection.onPhases = phases
            return connection
        }
        stallThreshold = configuration.timing.stallThreshold
        depth = max(1, configuration.pipelineDepth)
        requestTimeout = configuration.timing.requestTimeout
        deadlineTimer = LoopTimer(loop: loop) { [weak self] in self?.expire() }
        for connection in connections {
            connection.onRoom = { [weak self] in self?.pump() }
            connection.start()
        }
    }

    public func execute(
        _ query: PostgresQuery, _ parameters: [String?], completion: @escaping PostgresConnection.Completion
    ) {
        execute(query, parameters, deadline: nil, completion: completion)
    }

    /// `deadline`: the call's, when the request is one step of a call that began earlier (nil:
    /// `requestTimeout` from now).
    public func execute(
        _ query: PostgresQuery, _ parameters: [String?], deadline: ContinuousClock.Instant?,
        completion: @escaping PostgresConnection.Completion
    ) {
        submit(
            Waiting(
                query: query, parameters: parameters, write: false, deadline: deadline, arrived: clock.now, completion: completion))
    }

    /// `execute` for a statement that takes row locks (a write): to the ready connection with the
    /// fewest requests in flight (`leastBusy`).
    public func executeOnLeastBusy(
        _ query: PostgresQuery, _ parameters: [String?], deadline: ContinuousClock.Instant? = nil,
        completion: @escaping PostgresConnection.Completion
    ) {
        submit(
            Waiting(
                query: query, parameters: parameters, write: true, deadline: deadline, arrived: clock.now, completion: completion))
    }

    /// Requests waiting for an answer on this loop, in its queue or on its connections.
    public var pendingCount: Int { waiting.count + connections.reduce(0) { $0 + $1.pendingCount } }

    /// Requests held in the queue, for no connection had room.
    public var queuedCount: Int { waiting.count }

    /// Whether a connection is up.
    public var isReady: Bool { connections.contains { $0.isReady } }

    /// Fails the queued requests and every connection's with `closed`.
    public func close() {
        deadlineTimer?.cancel()
        for request in waiting.removeAll() { request.completion(.failure(.closed)) }
        for connection in connections { connection.close() }
    }

    /// Sends `request` at once when nothing waits before it and a connection can take it, else
    /// queues it. A request with a deadline of its own (earlier than the ones queued before it)
    /// fails when it reaches the queue's head or its connection, not before.
    private func submit(_ request: Waiting) {
        if waiting.isEmpty, let connection = target(write: request.write) {
            if let deadline = request.deadline {
                connection.execute(
                    request.query, request.parameters, deadline: deadline, arrived: request.arrived, completion: request.completion)
            } else {
                connection.execute(request.query, request.parameters, completion: request.completion)
            }
            return
        }
        waiting.append(request, deadline: request.deadline ?? request.arrived + requestTimeout)
        armTimer()
    }

    /// Sends the queued requests, oldest first, while a connection can take them.
    private func pump() {
        guard !pumping else { return }
        pumping = true
        defer { pumping = false }
        while let next = waiting.first, let connection = target(write: next.element.write) {
            _ = waiting.removeFirst()
            connection.execute(
                next.element.query, next.element.parameters, deadline: next.deadline, arrived: next.element.arrived,
                completion: next.element.completion)
        }
        armTimer()
    }

    /// Fails the queued requests past their deadline (`timedOut`: they were never sent).
    private func expire() {
        for request in waiting.removeExpired(now: clock.now) { request.completion(.failure(.timedOut)) }
        armTimer()
    }

    /// Arms the timer for the oldest queued request's deadline, unless it is armed already (for
    /// an earlier one: it then finds nothing or less to expire, and arms again).
    private func armTimer() {
        guard let timer = deadlineTimer else { return }
        guard let deadline = waiting.nextDeadline else {
            if timer.isScheduled { timer.stop() }
            return
        }
        if !timer.isScheduled { timer.schedule(after: deadline - clock.now) }
    }

    /// Where a request goes now: among ready connections, one with fewer than `depth` in flight
    /// (the first not stalled for a read, the least busy for a write), nil when every ready one is
    /// full (it waits in the queue). With none ready, as before: one still connecting, else any
    /// (backing off: the request fails at once as unavailable).
    private func target(write: Bool) -> PostgresConnection? {
        guard connections.contains(where: \.isReady) else { return leastBusy() }
        return write ? leastBusyWithRoom() : choose()
    }

    /// The first ready connection with room that is not stalled. When only stalled ones have
    /// room: nil while a connection that answers is full (the request waits for it, not behind a
    /// stalled statement), else the one that answered last.
    private func choose() -> PostgresConnection? {
        var now: ContinuousClock.Instant?
        var leastStalled: PostgresConnection?
        var answering = false
        for connection in connections where connection.isReady {
            if connection.inFlightCount == 0 { return connection }
            let time = now ?? clock.now
            now = time
            let stalled = time - connection.lastProgress >= stallThreshold
            let room = connection.inFlightCount < depth
            if !stalled, room { return connection }
            if !stalled { answering = true }
            if stalled, room, leastStalled.map({ connection.lastProgress > $0.lastProgress }) ?? true { leastStalled = connection }
        }
        return answering ? nil : leastStalled
    }

    /// The ready connection with the fewest requests in flight, cancelled ones included, if it
    /// has room.
    private func leastBusyWithRoom() -> PostgresConnection? {
        let ready = connections.lazy.filter(\.isReady)
        guard let least = ready.min(by: { $0.inFlightCount < $1.inFlightCount }), least.inFlightCount < depth else { return nil }
        return least
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
