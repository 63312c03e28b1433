/// One event loop's connection bookkeeping, with no I/O: it is told what happened on the loop (a
/// connection accepted, bytes moved, a request framed, handed to the handler, answered and
/// written, a connection closed, a tick of the timers, a stop requested) and answers with what the
/// loop must do (refuse a request, stop or resume reading, close connections whose time-out
/// passed, linger on a refused one, pause or resume accepting, drain, close everything and exit).
/// What becomes of a connection after each answer — kept alive or closed once written, lingering
/// or not — is its decision too (`ConnectionStateMachine+Answers`), and so are a streamed answer's
/// framing, back-pressure and end (`+Streams`) and a body's minimum rate (`+BodyRate`).
///
/// Connections and requests are plain numbers the loop hands out. Time comes in with the events
/// that need it, so tests drive the machine with a fake clock.
///
/// The per-request events (`requestStarted`, `requestAnswered`, `requestCompleted`, `framed`,
/// `activity`) allocate nothing: they answer with small enums and structs, not arrays.
struct ConnectionStateMachine: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// A connection, from accept to close.
    struct ConnectionID: Hashable, Sendable, TableNumber {
        let rawValue: UInt
    }

    /// A request handed to the handler.
    struct RequestID: Hashable, Sendable, TableNumber {
        let rawValue: UInt
    }

    /// What the machine knows of one open connection.
    struct Connection: Sendable, Equatable {
        /// Accepted while the server was at its connection limit: its requests are refused.
        var overLimit = false
        /// Pipelined requests and unsent answer bytes.
        var budget: ConnectionBudget
        /// Whether reading is allowed now.
        var reading = true
        /// The framing refused the stream: the close lingers so that the refusal is delivered.
        var refused = false
        /// A request of this connection is with the handler: no time-out runs.
        var handling = false
        /// A streamed answer of this connection is being written (its request is answered but not
        /// finished).
        var streaming = false
        /// The stream's framing and back-pressure while `streaming`.
        var streamFlow = StreamFlow()
        /// What the client asked of the connection with the request being answered: to keep it
        /// (and the machine agreed: it is not over the limit), and whether it spoke HTTP/1.0.
        var keepAlive = true
        var http10 = false
        /// Whether the connection closes after what is queued (`onceWritten`: nothing more is read
        /// or framed), or after the streamed answer in progress (`afterStream`).
        var closing = Closing.no
        /// The answer that closes the connection has been written: the close comes after an answer.
        var answerDelivered = false
        /// The client ended its stream (a read found its end).
        var clientEnded = false
        /// A read or write failed: nothing more can be delivered on the socket.
        var broken = false
        /// Bytes of the body being read that arrived since `bodyStarted`.
        var bodyBytes = 0
        /// The last time bytes were read from or written to the connection (or it was accepted, or
        /// the handler answered): its time-out counts from here.
        var lastActivity: Instant
        /// When the first byte of a head that is not complete yet arrived: the whole head must
        /// arrive within the time-out, however slowly its bytes trickle in.
        var headStarted: Instant?
        /// When the head of the request whose body is being read arrived (with a minimum body
        /// rate only): the body's rate counts from here.
        var bodyStarted: Instant?
    }

    /// When a connection closes after its answers.
    enum Closing: Sendable, Equatable {
        case no
        /// Once the streamed answer in progress has finished and is written.
        case afterStream
        /// Once what is queued is written; nothing more is read or framed.
        case onceWritten
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
        /// Counted; refuse its requests when `overLimit`; report the end of a back-off episode
        /// when `resumedAfterFailures` is set.
        case admitted(overLimit: Bool, resumedAfterFailures: Int?)
    }

    /// What the loop does for a request the handler is about to get.
    struct RequestStart: Sendable, Equatable {
        /// The connection is over the limit: answer with a refusal.
        var refuse: Bool
    }

    /// Whether a connection's reading changes.
    enum ReadingAction: Sendable, Equatable {
        case unchanged
        /// Stop reading (and framing what is buffered): the client holds too many unanswered
        /// requests or unsent bytes, or its stream is over.
        case stopReading
        /// Read again, and frame what is buffered.
        case resumeReading
    }

    /// What the loop does when a connection closed.
    struct Closed: Sendable, Equatable {
        /// Keep reading and discarding on its socket (a refused stream).
        var linger: Bool
        /// A streamed answer was in progress: its writer hears `.closed` (the client is gone, or
        /// the connection timed out or was aborted).
        var streamCut = false
    }

    /// What the loop does at a stop and while draining.
    enum ShutdownAction: Sendable, Equatable {
        /// Close the listener.
        case stopAccepting
        /// Answers carry `Connection: close` from now on (the machine frames them so:
        /// `requestAnswered`, `streamStarted`).
        case markDraining
        /// Call `tick` every `interval` until the machine says `closeServerAndExit`.
        case armDrainTimer(every: Duration)
        /// Stop the drain timer, close every connection and exit the loop.
        case closeServerAndExit
    }

    /// The server-wide connection limit.
    let maxConnections: Int
    /// The budget every new connection starts with.
    let budget: ConnectionBudget
    /// How often a draining loop checks whether it may exit.
    let drainInterval: Duration
    /// How long a connection may go without reading or writing while no request of it is with
    /// the handler; also how long a refused connection's socket lingers at most.
    let lingerTimeout: Duration
    /// The least a request body must average (nil: no minimum).
    let bodyRate: BodyRate?
    /// Sweeps after a large buffer before freed memory is handed back.
    static let trimSweeps = 3

    // The state below is changed only by the machine's own methods (in this file and its
    // extensions); the loop reads it.
    /// Every connection accepted and not closed.
    var connections = NumberTable<ConnectionID, Connection>()
    /// Each request in flight (with the handler, or answered and not written yet) with its connection.
    var requests = NumberTable<RequestID, ConnectionID>()
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
        drainInterval: Duration = .milliseconds(10), lingerTimeout: Duration = .seconds(60), bodyRate: BodyRate? = nil
    ) {
        self.maxConnections = maxConnections
        self.budget = budget
        self.drainInterval = drainInterval
        self.lingerTimeout = lingerTimeout
        self.bodyRate = bodyRate
        backoff = AcceptBackoff(retryInterval: acceptRetryInterval, logInterval: acceptLogInterval)
    }

    /// Connections open on this loop.
    var openConnections: Int { connections.count }

    /// Requests handed to the handler and not finished.
    var requestsInFlight: Int { requests.count }

    /// Whether answers carry `Connection: close` (a stop was requested).
    var isDraining: Bool { phase != .serving }

    /// A connection was accepted at `now`; `openOnServer` counts the server's open connections
    /// (every loop's). A connection at the limit is kept (its client gets a refusal, not a reset)
    /// but marked over the limit.
    mutating func accepted(_ id: ConnectionID, openOnServer: Int, now: Instant) -> AcceptAction {
        let atLimit = openOnServer >= maxConnections
        if connections[id] != nil { remove(id) }
        connections[id] = Connection(overLimit: atLimit, budget: budget, lastActivity: now)
        if atLimit { overLimitCount += 1 }
        var resumed: Int?
        if backoff.episodeFailures > 0, case .reportResumed(let failures)? = backoff.accepted().first { resumed = failures }
        return .admitted(overLimit: atLimit, resumedAfterFailures: resumed)
    }

    /// Bytes were read from or written to `connection` at `now`.
    mutating func activity(_ connection: ConnectionID, now: Instant) {
        guard let index = connections.index(forKey: connection) else { return }
        connections.values[index].lastActivity = now
    }

    /// Part of a head arrived on `connection` at `now` (the first time counts).
    mutating func headStarted(_ connection: ConnectionID, now: Instant) {
        guard let index = connections.index(forKey: connection), connections.values[index].headStarted == nil else { return }
        connections.values[index].headStarted = now
    }

    /// The head on `connection` is complete.
    mutating func headCompleted(_ connection: ConnectionID) {
        guard let index = connections.index(forKey: connection) else { return }
        connections.values[index].headStarted = nil
    }

    /// The handler is about to get `request`, which arrived on `connection`; its client asks to
    /// keep the connection (`keepAlive`: HTTP/1.1 without `Connection: close`, HTTP/1.0 with
    /// `Connection: keep-alive`) and spoke HTTP/1.0 (`http10`). A request on a connection over the
    /// limit is refused, and the connection closes after its answer.
    mutating func requestStarted(_ request: RequestID, connection: ConnectionID, keepAlive: Bool = true, http10: Bool = false)
        -> RequestStart
    {
        requests[request] = connection
        guard let index = connections.index(forKey: connection) else { return RequestStart(refuse: false) }
        let refuse = overLimitCount > 0 && connections.values[index].overLimit
        connections.values[index].handling = true
        connections.values[index].bodyStarted = nil
        connections.values[index].keepAlive = keepAlive && !refuse
        connections.values[index].http10 = http10
        return RequestStart(refuse: refuse)
    }

    /// The answer to `request`, on `connection`, was written.
    mutating func requestCompleted(_ request: RequestID, connection: ConnectionID) -> ReadingAction {
        requests.removeValue(forKey: request)
        return updateConnection(connection) { $0.budget.recordAnswer() }
    }

    /// `connection` closed: its requests still in flight are over (their answers can no longer be
    /// delivered). Its socket lingers after a refusal, and after an answer that closed it
    /// (`outputEmptied` said so) while the client has not ended its stream: unread input would
    /// make the kernel reset the connection and destroy the answer's tail. A time-out, a failed
    /// read or write (`socketFailed`), or the end of the client's stream closes it without lingering. Nil when the
    /// connection was not known.
    mutating func connectionClosed(_ connection: ConnectionID) -> Closed? {
        guard let record = connections[connection] else { return nil }
        if requests.values.contains(connection) { requests = requests.filter { $0.value != connection } }
        remove(connection)
        let linger = !record.broken && (record.refused || (record.answerDelivered && !record.clientEnded))
        return Closed(linger: linger, streamCut: record.streaming)
    }

    /// A read or write on `connection` failed (the client reset it, the socket broke): the loop
    /// closes it now, and it does not linger — nothing can be delivered on it any more.
    mutating func socketFailed(_ connection: ConnectionID) {
        guard let index = connections.index(forKey: connection) else { return }
        connections.values[index].broken = true
    }

    /// Drops `id` and what hangs on it (not its requests: `connectionClosed` ends them).
    mutating func remove(_ id: ConnectionID) {
        guard let old = connections.removeValue(forKey: id) else { return }
        if old.overLimit { overLimitCount -= 1 }
        if !old.reading { throttledCount -= 1 }
    }
}
