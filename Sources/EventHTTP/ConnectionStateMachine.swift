/// One event loop's connection bookkeeping, with no I/O: what is the loop's, not one
/// connection's. It is told what happened on the loop (a connection accepted or closed, a request
/// handed to the handler or its answer written, a connection's reading stopped or resumed, a tick
/// of the drain timer, a stop requested, a large buffer seen, an accept that failed, a refused
/// socket left to linger) and answers with what the loop must do (pause or resume accepting,
/// drain, close everything and exit, linger or close a refused socket, hand memory back). What one
/// connection may do — its exchange, budget, keep-alive, time-outs, streams — is its own
/// `ConnectionMachine`'s, owned by `HTTPConnection`.
///
/// Connections and requests are plain numbers the loop hands out. Time comes in with the events
/// that need it, so tests drive the machine with a fake clock.
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

    /// What the loop does, told by a transition: `HTTPLoopServer.run(_:)` carries it out.
    enum Action: Sendable, Equatable {
        /// Close the listener.
        case stopAccepting
        /// Answers carry `Connection: close` from now on (each connection's machine frames them
        /// so, told `draining` by its shell from `isDraining`: `requestAnswered`, `streamStarted`).
        case markDraining
        /// Call `tick` every `interval` until the machine says `closeServerAndExit`.
        case armDrainTimer(every: Duration)
        /// Stop the drain timer, close every connection and exit the loop.
        case closeServerAndExit
        /// Accepting's back-off at the descriptor limit: pause or resume the listener, report
        /// (`ListenerGate` does the listener's part).
        case backoff(AcceptBackoff.Action)
    }

    /// The server-wide connection limit.
    let maxConnections: Int
    /// The budget every new connection starts with.
    let budget: ConnectionBudget
    /// How often a draining loop checks whether it may exit.
    let drainInterval: Duration
    /// How long a refused connection's socket lingers at most (the connections' time-out).
    let lingerTimeout: Duration
    /// The least a request body must average (nil: no minimum), for every new connection.
    let bodyRate: ConnectionMachine.BodyRate?
    /// Sweeps after a large buffer before freed memory is handed back.
    static let trimSweeps = 3

    // The state below is changed only by the machine's own methods (in this file and its
    // extensions); the loop reads it.
    /// Connections accepted and not closed.
    private(set) var openConnections = 0
    /// Requests handed to the handler whose answer is not written yet (their connection open).
    private(set) var requestsInFlight = 0
    /// Connections whose reading is stopped.
    private(set) var throttledCount = 0
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
        drainInterval: Duration = .milliseconds(10), lingerTimeout: Duration = .seconds(60),
        bodyRate: ConnectionMachine.BodyRate? = nil
    ) {
        self.maxConnections = maxConnections
        self.budget = budget
        self.drainInterval = drainInterval
        self.lingerTimeout = lingerTimeout
        self.bodyRate = bodyRate
        backoff = AcceptBackoff(retryInterval: acceptRetryInterval, logInterval: acceptLogInterval)
    }

    /// Whether answers carry `Connection: close` (a stop was requested).
    var isDraining: Bool { phase != .serving }

    /// A connection was accepted at `now`; `openOnServer` counts the server's open connections
    /// (every loop's). A connection at the limit is kept (its client gets a refusal, not a reset)
    /// but marked over the limit: its machine is `connection`'s answer.
    mutating func accepted(openOnServer: Int, now: Instant) -> AcceptAction {
        let atLimit = openOnServer >= maxConnections
        openConnections += 1
        var resumed: Int?
        if backoff.episodeFailures > 0, case .reportResumed(let failures)? = backoff.accepted().first { resumed = failures }
        return .admitted(overLimit: atLimit, resumedAfterFailures: resumed)
    }

    /// The machine of a connection accepted at `now` (`overLimit`: as `accepted` said).
    func connection(overLimit: Bool, now: Instant) -> ConnectionMachine {
        ConnectionMachine(overLimit: overLimit, budget: budget, bodyRate: bodyRate, now: now)
    }

    /// A connection's request went to the handler.
    mutating func requestStarted() {
        requestsInFlight += 1
    }

    /// A request's answer was written.
    mutating func requestCompleted() {
        requestsInFlight -= 1
    }

    /// A connection's reading stopped or resumed (its machine said so).
    mutating func readingChanged(_ reading: ConnectionMachine.Action) {
        switch reading {
        case .stopReading: throttledCount += 1
        case .resumeReading: throttledCount -= 1
        default: break
        }
    }

    /// A connection closed with `requestsInFlight` requests whose answers are not written (they
    /// are over) and its reading stopped or not (`throttled`).
    mutating func connectionClosed(requestsInFlight: Int, throttled: Bool) {
        openConnections -= 1
        self.requestsInFlight -= requestsInFlight
        if throttled { throttledCount -= 1 }
    }
}
