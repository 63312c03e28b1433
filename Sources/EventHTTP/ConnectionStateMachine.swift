/// One event loop's connection bookkeeping, with no I/O: it is told what happened on the loop (a
/// connection accepted, a request started or completed, a connection closed, a sweep, a stop
/// requested, a tick of the drain timer) and answers with what the loop must do (refuse a request,
/// watch a connection's close, stop or resume reading, forget or linger on a closed connection,
/// pause or resume accepting, stop accepting, drain, close the server and exit the loop).
///
/// Connections, evhttp sessions and requests are plain identifiers (the loop derives them from the
/// addresses of its bufferevents, evhttp connections and evhttp requests, which are unique while
/// alive; an address reused by a new connection replaces the old one, which closed unseen). Time
/// comes in with the events that need it, so tests drive the machine with a fake clock.
///
/// The per-request events (`requestStarted`, `requestCompleted`, `framed`) allocate nothing: they
/// answer with small enums, not arrays.
struct ConnectionStateMachine: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// A connection, from accept to close (the loop uses its bufferevent's address).
    struct ConnectionID: Hashable, Sendable {
        let rawValue: UInt
    }

    /// evhttp's connection object on top of a connection, known once bytes or a request arrived.
    struct SessionID: Hashable, Sendable {
        let rawValue: UInt
    }

    /// A request handed to the handler.
    struct RequestID: Hashable, Sendable {
        let rawValue: UInt
    }

    /// What the machine knows of one open connection.
    struct Connection: Sendable, Equatable {
        /// The evhttp session, once registered (its close is watched from then on).
        var session: SessionID?
        /// Accepted while the server was at its connection limit: its requests are refused.
        var overLimit = false
        /// Pipelined requests and unsent answer bytes.
        var budget: ConnectionBudget
        /// Whether reading is allowed now (the loop's read watermark is open).
        var reading = true
        /// The framing refused the stream: the close lingers so that the refusal is delivered.
        var refused = false
    }

    /// Where the loop is in its life.
    enum Phase: Sendable, Equatable {
        case serving
        /// Stop requested: no accepting; answers carry `Connection: close`; the loop exits once
        /// nothing awaits an answer or at `deadline`.
        case draining(deadline: Instant)
        /// The server is closed and the loop told to exit.
        case stopped
    }

    /// What the loop does with a connection it just accepted.
    enum AcceptAction: Sendable, Equatable {
        /// The server is at its limit: sweep out the connections closed unseen, then call
        /// `accepted` again with the new total and `afterSweep: true`.
        case sweepFirst
        /// Counted; refuse its requests when `overLimit`; report the end of a back-off episode
        /// when `resumedAfterFailures` is set.
        case admitted(overLimit: Bool, resumedAfterFailures: Int?)
    }

    /// What the loop does for a request the handler is about to get.
    struct RequestStart: Sendable, Equatable {
        /// The session is new: watch its close.
        var watchClose: Bool
        /// The connection is over the limit: answer with a refusal.
        var refuse: Bool
    }

    /// Whether a connection's reading changes.
    enum ReadingAction: Sendable, Equatable {
        case unchanged
        /// Close the read watermark: the client holds too many unanswered requests or unsent bytes,
        /// or its stream is over.
        case stopReading
        case resumeReading
    }

    /// What the loop does when a session closed.
    struct Closed: Sendable, Equatable {
        /// Forget the connection's wire state.
        var connection: ConnectionID
        /// Keep reading and discarding on a copy of its socket (a refused stream).
        var linger: Bool
    }

    /// The outcome of a sweep.
    struct Swept: Sendable, Equatable {
        /// Connections closed unseen: forget their wire state.
        var dropped: [ConnectionID]
        /// Hand freed memory back to the system now.
        var trimMemory: Bool
    }

    /// What the loop does at a stop and while draining.
    enum ShutdownAction: Sendable, Equatable {
        /// Detach the listener and remove the accepting socket.
        case stopAccepting
        /// Mark answers `Connection: close` from now on.
        case markDraining
        /// Call `tick` every `interval` until the machine says `closeServerAndExit`.
        case armDrainTimer(every: Duration)
        /// Stop the drain timer, free the HTTP server (closing its connections) and exit the loop.
        case closeServerAndExit
    }

    /// The server-wide connection limit.
    let maxConnections: Int
    /// The budget every new connection starts with.
    let budget: ConnectionBudget
    /// How often a draining loop checks whether it may exit.
    let drainInterval: Duration
    /// How long a refused connection's socket lingers at most (the connection time-out).
    let lingerTimeout: Duration
    /// Sweeps after a large buffer before freed memory is handed back.
    static let trimSweeps = 3

    // The state below is changed only by the machine's own methods (in this file and its
    // extensions); the loop reads it.
    /// Every connection accepted and not known to be closed.
    var connections: [ConnectionID: Connection] = [:]
    /// The connection under each registered session.
    var sessions: [SessionID: ConnectionID] = [:]
    /// Each request in flight with its session (a request without one is keyed to itself).
    var requests: [RequestID: SessionID] = [:]
    /// Connections marked over the limit (their check is skipped while there are none).
    var overLimitCount = 0
    /// Connections whose reading is stopped.
    var throttledCount = 0
    /// Sweeps left before freed memory is handed back (0: nothing to do).
    var trimCountdown = 0
    /// Each lingering socket with the instant it is closed whatever arrives.
    var lingering: [LingerID: Instant] = [:]
    // Last: their layout (`ContinuousClock.Instant`) is known only at run time, and every field
    // after them would be found through type metadata on each access, on the hot path too.
    var phase: Phase = .serving
    /// Accepting's back-off at the descriptor limit.
    var backoff: AcceptBackoff

    init(
        maxConnections: Int, budget: ConnectionBudget, acceptRetryInterval: Duration, acceptLogInterval: Duration,
        drainInterval: Duration = .milliseconds(10), lingerTimeout: Duration = .seconds(60)
    ) {
        self.maxConnections = maxConnections
        self.budget = budget
        self.drainInterval = drainInterval
        self.lingerTimeout = lingerTimeout
        backoff = AcceptBackoff(retryInterval: acceptRetryInterval, logInterval: acceptLogInterval)
    }

    /// Connections open on this loop (accepted and not known to be closed).
    var openConnections: Int { connections.count }

    /// Requests handed to the handler and not finished.
    var requestsInFlight: Int { requests.count }

    /// Whether `session` is registered.
    func knows(_ session: SessionID) -> Bool { sessions[session] != nil }

    /// Whether answers carry `Connection: close` (a stop was requested).
    var isDraining: Bool { phase != .serving }

    /// A connection was accepted; `openOnServer` counts the server's open connections (every loop's).
    /// At the limit the loop sweeps first, then calls again with `afterSweep`; a connection still
    /// at the limit is kept (its client gets a refusal, not a reset) but marked over the limit.
    mutating func accepted(_ id: ConnectionID, openOnServer: Int, afterSweep: Bool = false) -> AcceptAction {
        let atLimit = openOnServer >= maxConnections
        if atLimit && !afterSweep { return .sweepFirst }
        // The address of a connection closed unseen, reused: the old one is gone.
        if connections[id] != nil { remove(id) }
        connections[id] = Connection(overLimit: atLimit, budget: budget)
        if atLimit { overLimitCount += 1 }
        var resumed: Int?
        if backoff.episodeFailures > 0, case .reportResumed(let failures)? = backoff.accepted().first { resumed = failures }
        return .admitted(overLimit: atLimit, resumedAfterFailures: resumed)
    }

    /// The first bytes arrived on `connection`, whose evhttp session is `session`: registers the
    /// session, so that the close of a connection that never completes a request is seen. Returns
    /// whether to watch the session's close.
    mutating func sessionStarted(_ session: SessionID, on connection: ConnectionID) -> Bool {
        guard sessions[session] == nil, connections[connection] != nil else { return false }
        register(session, on: connection)
        return true
    }

    /// The handler is about to get `request`, which arrived on `session` (nil: evhttp gave it
    /// none) over `connection` (nil: no bufferevent).
    mutating func requestStarted(_ request: RequestID, session: SessionID?, connection: ConnectionID?) -> RequestStart {
        requests[request] = session ?? SessionID(rawValue: request.rawValue)
        guard let session else { return RequestStart(watchClose: false, refuse: false) }
        var start = RequestStart(watchClose: false, refuse: false)
        let owner: ConnectionID
        if let known = sessions[session] {
            owner = known
        } else if let connection {
            register(session, on: connection)
            start.watchClose = true
            owner = connection
        } else {
            return start
        }
        start.refuse = overLimitCount > 0 && connections[owner]?.overLimit == true
        return start
    }

    /// The answer to `request`, on `connection`, was written.
    mutating func requestCompleted(_ request: RequestID, connection: ConnectionID?) -> ReadingAction {
        requests.removeValue(forKey: request)
        guard let connection else { return .unchanged }
        return updateConnection(connection) { $0.budget.recordAnswer() }
    }

    /// `session` closed: its requests still in flight are over (their answers can no longer be
    /// delivered), and its connection is gone. Nil when the session was never registered.
    mutating func connectionClosed(_ session: SessionID) -> Closed? {
        if requests.values.contains(session) { requests = requests.filter { $0.value != session } }
        guard let id = sessions[session] else { return nil }
        let linger = connections[id]?.refused == true
        remove(id)
        sessions.removeValue(forKey: session)
        return Closed(connection: id, linger: linger)
    }

    /// Drops `id` and what hangs on it (not its session's requests: they end with the session).
    mutating func remove(_ id: ConnectionID) {
        guard let old = connections.removeValue(forKey: id) else { return }
        if old.overLimit { overLimitCount -= 1 }
        if !old.reading { throttledCount -= 1 }
        if let session = old.session, sessions[session] == id { sessions.removeValue(forKey: session) }
    }

    private mutating func register(_ session: SessionID, on connection: ConnectionID) {
        sessions[session] = connection
        if connections[connection] == nil { connections[connection] = Connection(budget: budget) }
        connections[connection]?.session = session
    }
}
