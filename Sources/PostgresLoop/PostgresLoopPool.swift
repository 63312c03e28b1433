import EventLoops

/// A few connections on one event loop, each answered on this loop. Use it on its loop's thread only.
///
/// A connection holds at most `pipelineDepth` requests in flight; past that, requests wait in the
/// pool's queues (`PostgresPoolQueue`, one for reads and one for writes, each in arrival order)
/// until a connection may take them (below). Why: a request sent on a connection waits for every
/// request sent before it there, so a backend that waits for a CPU or a row lock holds up all it
/// was sent; bounded, it holds up a few, and the others go to a connection that answers
/// (docs/performance.md, PostgreSQL).
///
/// `execute` (a read) sends to the loop's first ready connection, which pipelines them; while it is
/// full, reads wait in the queue for it as long as it answers. The next connection takes reads
/// only while the first is not ready (connecting, or backing off after a lost connection), stalled
/// (holding requests without having answered any for `stallThreshold`), or full and without an
/// answer for `readSpillAfter`. One busy backend per loop for reads keeps the CPUs' switching low
/// and the tail short when the database shares the server's CPUs (docs/performance.md, PostgreSQL);
/// a statement that takes long holds up the loop's reads for `readSpillAfter` at most.
///
/// `executeOnLeastBusy` sends to the ready connection with the fewest requests in flight: for
/// statements that take row locks. Of equals, the first; `awayFromReads` (a statement that may wait
/// long for a lock, such as a clear for its table's): the last, since every read sent behind it on
/// the reads' connection would wait too. (Ties to the last for every write lengthened the POST and
/// PATCH tails in an A/B of 8 rounds each: POST p99 median 23.5 ms against 18.8.) Writes spread:
/// a backend that holds a row's lock and has the next statement on that row queued takes the lock
/// again as soon as it commits, before the waiter it woke runs; one busy backend per loop would keep
/// a to-do's writes from the other loops while its pipeline stays full. Not covered: while a clear
/// waits for its table, another write of the loop queues behind it in PostgreSQL, and when that
/// write went to the reads' connection (the least busy), reads sent behind it wait too, up to the
/// stall threshold.
public final class PostgresLoopPool: PostgresExecuting {
    public let connections: [PostgresConnection]
    private let stallThreshold: Duration
    private let readSpillAfter: Duration
    /// The most requests a connection takes in flight: any (`depth`), reads (`readDepth`).
    private let depth: Int
    private let readDepth: Int
    /// How long a request may wait for its answer when its caller gives no deadline.
    public let requestTimeout: Duration
    private let clock = ContinuousClock()
    /// Reads and writes wait apart: a write is not held up by reads waiting for the first
    /// connection while another has room (each queue keeps its own arrival order).
    private var reads = PostgresPoolQueue<Waiting>()
    private var writes = PostgresPoolQueue<Waiting>()
    private var deadlineTimer: LoopTimer?
    /// Fires when a full connection that reads wait for has gone `readSpillAfter` without an
    /// answer, so that they go to the next connection (nothing else may happen until then).
    private var spillTimer: LoopTimer?
    /// When each timer is armed to fire (meaningful while it `isScheduled`).
    private var deadlineArmedFor = ContinuousClock.Instant.now
    private var spillArmedFor = ContinuousClock.Instant.now
    /// `pump` is running (a completion it runs may tell it of room again).
    private var pumping = false

    private struct Waiting {
        let query: PostgresQuery
        let parameters: [String?]
        let write: Bool
        /// A write to keep off the reads' connection when another is as free (`executeOnLeastBusy`).
        let awayFromReads: Bool
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
        // Past the stall threshold a connection counts as stalled and reads go elsewhere anyway.
        readSpillAfter = min(configuration.timing.readSpillAfter, configuration.timing.stallThreshold)
        depth = max(1, configuration.pipelineDepth)
        readDepth = max(1, configuration.readPipelineDepth ?? configuration.pipelineDepth)
        requestTimeout = configuration.timing.requestTimeout
        deadlineTimer = LoopTimer(loop: loop) { [weak self] in self?.expire() }
        if connections.count > 1, readSpillAfter > .zero {
            spillTimer = LoopTimer(loop: loop) { [weak self] in self?.pump() }
        }
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
                query: query, parameters: parameters, write: false, awayFromReads: false, deadline: deadline, arrived: clock.now,
                completion: completion))
    }

    /// `execute` for a statement that takes row locks (a write): to the ready connection with the
    /// fewest requests in flight (`leastBusyWithRoom`); `awayFromReads`: of equals, not the reads' one.
    public func executeOnLeastBusy(
        _ query: PostgresQuery, _ parameters: [String?], deadline: ContinuousClock.Instant? = nil, awayFromReads: Bool = false,
        completion: @escaping PostgresConnection.Completion
    ) {
        submit(
            Waiting(
                query: query, parameters: parameters, write: true, awayFromReads: awayFromReads, deadline: deadline,
                arrived: clock.now, completion: completion))
    }

    /// Requests waiting for an answer on this loop, in its queue or on its connections.
    public var pendingCount: Int { queuedCount + connections.reduce(0) { $0 + $1.pendingCount } }

    /// Requests held in the queues, for no connection could take them.
    public var queuedCount: Int { reads.count + writes.count }

    /// Whether a connection is up.
    public var isReady: Bool { connections.contains { $0.isReady } }

    /// Fails the queued requests and every connection's with `closed`.
    public func close() {
        deadlineTimer?.cancel()
        spillTimer?.cancel()
        for request in writes.removeAll() + reads.removeAll() { request.completion(.failure(.closed)) }
        for connection in connections { connection.close() }
    }

    /// Sends `request` at once when nothing of its kind (read or write) waits before it and a
    /// connection can take it, else queues it. A request with a deadline of its own (earlier than
    /// the ones queued before it) fails when it reaches its queue's head or its connection, not
    /// before.
    private func submit(_ request: Waiting) {
        let nothingBefore = request.write ? writes.isEmpty : reads.isEmpty
        if nothingBefore, let connection = target(write: request.write, awayFromReads: request.awayFromReads) {
            if let deadline = request.deadline {
                connection.execute(
                    request.query, request.parameters, deadline: deadline, arrived: request.arrived, completion: request.completion)
            } else {
                connection.execute(request.query, request.parameters, completion: request.completion)
            }
            return
        }
        let deadline = request.deadline ?? request.arrived + requestTimeout
        if request.write { writes.append(request, deadline: deadline) } else { reads.append(request, deadline: deadline) }
        armTimer()
        armSpillTimer()
    }

    /// Sends the queued requests, each queue oldest first, a write and a read in turn, while a
    /// connection can take them.
    private func pump() {
        guard !pumping else { return }
        pumping = true
        defer { pumping = false }
        var sent = true
        while sent {
            sent = false
            if let head = writes.first, let connection = target(write: true, awayFromReads: head.element.awayFromReads),
                let next = writes.removeFirst()
            {
                send(next, on: connection)
                sent = true
            }
            if reads.first != nil, let connection = target(write: false, awayFromReads: false), let next = reads.removeFirst() {
                send(next, on: connection)
                sent = true
            }
        }
        armTimer()
        armSpillTimer()
    }

    private func send(_ request: (element: Waiting, deadline: ContinuousClock.Instant), on connection: PostgresConnection) {
        connection.execute(
            request.element.query, request.element.parameters, deadline: request.deadline, arrived: request.element.arrived,
            completion: request.element.completion)
    }

    /// Fails the queued requests past their deadline (`timedOut`: they were never sent).
    private func expire() {
        let now = clock.now
        for request in writes.removeExpired(now: now) + reads.removeExpired(now: now) { request.completion(.failure(.timedOut)) }
        armTimer()
    }

    /// Arms the timer for the earliest deadline at the head of a queue, unless it is armed already
    /// for that or an earlier one (it then finds nothing or less to expire, and arms again).
    private func armTimer() {
        guard let timer = deadlineTimer else { return }
        let heads = [writes.nextDeadline, reads.nextDeadline].compactMap { $0 }
        guard let deadline = heads.min() else {
            if timer.isScheduled { timer.stop() }
            return
        }
        if !timer.isScheduled || deadline < deadlineArmedFor {
            deadlineArmedFor = deadline
            timer.schedule(after: deadline - clock.now)
        }
    }

    /// While reads wait in their queue, arms the spill timer (unless it is armed already for that
    /// moment or an earlier one) for the first moment a full connection will have gone
    /// `readSpillAfter` without an answer: another connection may then take them. Fired early (an
    /// answer came meanwhile), it finds nothing to send and arms again.
    private func armSpillTimer() {
        guard let timer = spillTimer, !reads.isEmpty else { return }
        let now = clock.now
        var next: ContinuousClock.Instant?
        for connection in connections where connection.isReady && connection.inFlightCount >= readDepth {
            let spill = connection.lastProgress + readSpillAfter
            guard spill > now, now - connection.lastProgress < stallThreshold else { continue }
            next = min(next ?? spill, spill)
        }
        if let next, !timer.isScheduled || next < spillArmedFor {
            spillArmedFor = next
            timer.schedule(after: next - now)
        }
    }

    /// Where a request goes now: among ready connections, one with fewer than `depth` in flight
    /// (the first not stalled for a read, the least busy for a write), nil when every ready one is
    /// full (it waits in the queue). With none ready, as before: one still connecting, else any
    /// (backing off: the request fails at once as unavailable).
    private func target(write: Bool, awayFromReads: Bool) -> PostgresConnection? {
        guard connections.contains(where: \.isReady) else { return leastBusy() }
        return write ? leastBusyWithRoom(lastOfEquals: awayFromReads) : choose()
    }

    /// For a read: the first ready connection that is not stalled, if it has room; when it is full,
    /// nil (the read waits for it) unless it has gone `readSpillAfter` without an answer, and then
    /// the next one the same way. When only stalled ones have room: nil while a connection that
    /// answers is full (the request waits for it, not behind a stalled statement), else the one
    /// that answered last.
    private func choose() -> PostgresConnection? {
        var now: ContinuousClock.Instant?
        var leastStalled: PostgresConnection?
        var answering = false
        for connection in connections where connection.isReady {
            if connection.inFlightCount == 0 { return connection }
            let time = now ?? clock.now
            now = time
            let quiet = time - connection.lastProgress
            let room = connection.inFlightCount < readDepth
            if quiet < stallThreshold {
                if room { return connection }
                if quiet < readSpillAfter { return nil }
                answering = true
            } else if room, leastStalled.map({ connection.lastProgress > $0.lastProgress }) ?? true {
                leastStalled = connection
            }
        }
        return answering ? nil : leastStalled
    }

    /// The ready connection with the fewest requests in flight, cancelled ones included, if it
    /// has room; of equals, the first, or the last (`lastOfEquals`: away from the reads' first).
    private func leastBusyWithRoom(lastOfEquals: Bool) -> PostgresConnection? {
        var least: PostgresConnection?
        for connection in connections where connection.isReady {
            guard let current = least else {
                least = connection
                continue
            }
            if connection.inFlightCount < current.inFlightCount || (lastOfEquals && connection.inFlightCount == current.inFlightCount) {
                least = connection
            }
        }
        guard let least, least.inFlightCount < depth else { return nil }
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
