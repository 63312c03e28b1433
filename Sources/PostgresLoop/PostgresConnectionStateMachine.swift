/// The bookkeeping of one PostgreSQL connection in pipeline mode, with no I/O: it is told what
/// happened (a request, a result, the socket connected or broke, a timer fired) and answers with
/// the actions to carry out (`PostgresConnection` does them with libpq on its loop).
///
/// It keeps the requests in the order they were sent (each one is its own pipeline segment, ended
/// by a sync, so an error aborts only that request), which statements this connection has prepared,
/// the earliest deadline (one timer covers the connect deadline and every request's), and the
/// back-off between connection attempts.
///
/// A sent request past its deadline is answered `timedOut` at once and stays in the pipeline,
/// abandoned: once it is the one the server runs, a cancel request goes out (`cancel`), so that the
/// statement stops in the database and the requests behind it on the connection carry on. Its
/// results are read and dropped. Only when the server does not finish it within `cancelGrace` of
/// the cancel (a frozen server) is the connection dropped. A cancel may reach the server just
/// after the statement it was meant for ended and stop the next one (57014): that request did
/// nothing and fails `interrupted`, which `PostgresConnection` sends again. Time comes in with each event, so tests drive it with a
/// fake clock; the jitter of the back-off comes in as a fraction in 0...1.
public struct PostgresConnectionStateMachine: Sendable {
    public typealias Instant = ContinuousClock.Instant
    public typealias RequestID = UInt64

    /// What the wrapper does next, in order.
    public enum Action: Sendable, Equatable {
        /// Start a non-blocking connect (and enter pipeline mode once it is up).
        case connect
        /// Send the request's statement, preparing it first when `prepare`, then a sync.
        case send(RequestID, prepare: Bool)
        case succeed(RequestID, PostgresRows)
        case fail(RequestID, PostgresError)
        /// Stop watching the socket, then close the connection.
        case closeConnection
        /// Call `reconnectDue` after this delay.
        case scheduleReconnect(after: Duration)
        /// Call `timerFired` at this instant (replaces an earlier arming).
        case armTimer(at: Instant)
        /// Ask the server to cancel the statement it is running on this connection (without blocking
        /// the loop); the request it is meant for was answered already.
        case cancel(RequestID)
    }

    /// One result libpq handed over for the request at the head of the pipeline.
    public enum Incoming: Sendable, Equatable {
        /// `PGRES_TUPLES_OK` or `PGRES_COMMAND_OK`.
        case rows(PostgresRows)
        /// `PGRES_FATAL_ERROR` (or a nonfatal error result).
        case error(ServerError)
        /// `PGRES_PIPELINE_ABORTED`: skipped after an earlier error in the segment.
        case aborted
        /// `PGRES_PIPELINE_SYNC`: the segment is over.
        case sync
    }

    public enum Phase: Sendable, Equatable {
        /// Not started, or closed connection not reopened yet.
        case idle
        case connecting(deadline: Instant)
        case ready
        /// Waiting for `reconnectDue`; requests fail at once meanwhile.
        case backingOff(reason: String)
        case closed
    }

    struct Request: Sendable {
        enum Stage: Sendable, Equatable { case unsent, awaitingPrepare, awaitingResult, awaitingSync }
        let id: RequestID
        let statement: String?
        let deadline: Instant
        var stage: Stage = .unsent
        var outcome: Result<PostgresRows, PostgresError>?
        /// Answered `timedOut` already: its results are dropped.
        var abandoned = false
        /// Sent when a cancel went out: a 57014 on it may be that cancel's.
        var mayBeCancelled = false
    }

    public let timing: PostgresTiming
    public private(set) var phase: Phase = .idle
    /// Requests in arrival order from `head` on: unsent while connecting, sent when ready.
    private var requests: [Request] = []
    private var head = 0
    /// Statement names prepared on this connection (true) or being prepared (false).
    private var prepared: [String: Bool] = [:]
    private var failedAttempts = 0
    private var timerArmedAt: Instant?
    /// The abandoned request the last cancel was sent for, and when to give up waiting for it.
    private var cancelTarget: RequestID?
    private var cancelDeadline: Instant?
    /// How many of the requests from `head` on are abandoned.
    private var abandonedCount = 0

    /// PostgreSQL's SQLSTATE for a cancelled statement (a cancel request or `statement_timeout`).
    public static let queryCanceled = "57014"

    public init(timing: PostgresTiming) {
        self.timing = timing
    }

    /// Requests not answered yet.
    public var pendingCount: Int { requests.count - head - abandonedCount }

    /// Requests the server still holds or runs, answered or not (abandoned ones included).
    public var inFlightCount: Int { requests.count - head }

    /// Whether libpq holds results the head request still waits for (bound the reading by this: an
    /// idle pipelined connection answers "not busy" with no result forever).
    public var expectsResults: Bool { phase == .ready && head < requests.count }

    public var isReady: Bool { phase == .ready }

    public mutating func start(now: Instant) -> [Action] {
        guard phase == .idle else { return [] }
        return beginConnecting(now: now)
    }

    /// A new request; `statement` names a prepared statement (nil: unprepared SQL). Its deadline
    /// is `deadline`, or `requestTimeout` from now (a request that waited in its pool's queue, or
    /// one step of a call begun earlier, brings the deadline it got before). One whose deadline
    /// has passed fails as timed out at once, unsent.
    public mutating func request(_ id: RequestID, statement: String?, now: Instant, deadline: Instant? = nil) -> [Action] {
        let deadline = deadline ?? now + timing.requestTimeout
        switch phase {
        case .closed:
            return [.fail(id, .closed)]
        case .backingOff(let reason):
            return [.fail(id, .unavailable(reason: reason))]
        case _ where deadline <= now:
            return [.fail(id, .timedOut)]
        case .idle:
            requests.append(Request(id: id, statement: statement, deadline: deadline))
            return withTimer(beginConnecting(now: now))
        case .connecting:
            requests.append(Request(id: id, statement: statement, deadline: deadline))
            return withTimer([])
        case .ready:
            var request = Request(id: id, statement: statement, deadline: deadline)
            let action = markSent(&request)
            requests.append(request)
            return withTimer([action])
        }
    }

    /// The connection is up and in pipeline mode: the requests that waited for it go out.
    public mutating func connected(now: Instant) -> [Action] {
        guard case .connecting = phase else { return [] }
        phase = .ready
        failedAttempts = 0
        prepared = [:]
        var actions: [Action] = []
        for index in head..<requests.count {
            var request = requests[index]
            actions.append(markSent(&request))
            requests[index] = request
        }
        return withTimer(actions)
    }

    public mutating func connectFailed(reason: String, now: Instant, jitter: Double) -> [Action] {
        guard case .connecting = phase else { return [] }
        return backOff(reason: reason, error: .unavailable(reason: reason), jitter: jitter)
    }

    /// The socket broke (`PQconsumeInput` or a send failed, or the status turned bad).
    public mutating func connectionLost(reason: String, now: Instant, jitter: Double) -> [Action] {
        switch phase {
        case .ready:
            return backOff(reason: reason, error: .connectionLost(reason: reason), jitter: jitter)
        case .connecting:
            return connectFailed(reason: reason, now: now, jitter: jitter)
        case .idle, .backingOff, .closed:
            return []
        }
    }

    /// One result for the head request.
    public mutating func received(_ incoming: Incoming, now: Instant, jitter: Double) -> [Action] {
        guard phase == .ready, head < requests.count else {
            return connectionLost(reason: "a result arrived with no request waiting", now: now, jitter: jitter)
        }
        var request = requests[head]
        switch (request.stage, incoming) {
        case (.awaitingPrepare, .rows):
            prepared[request.statement!] = true
            request.stage = .awaitingResult
        case (.awaitingPrepare, .error(let error)):
            prepared[request.statement!] = nil
            request.outcome = .failure(.server(error))
            request.stage = .awaitingResult
        case (.awaitingResult, .rows(let rows)):
            request.outcome = request.outcome ?? .success(rows)
            request.stage = .awaitingSync
        case (.awaitingResult, .error(let error)):
            request.outcome = request.outcome ?? .failure(Self.failure(error, request))
            request.stage = .awaitingSync
        case (.awaitingResult, .aborted):
            request.outcome =
                request.outcome
                ?? .failure(.server(ServerError(sqlState: "XX000", message: "pipeline aborted")))
            request.stage = .awaitingSync
        case (.awaitingSync, .error(let error)):
            // A fatal error after the statement's answer (the server shutting down): the sync will
            // not come; the connection's end fails the request.
            request.outcome = .failure(.server(error))
        case (.awaitingSync, .sync):
            popHead()
            let answer: [Action]
            if request.abandoned {
                abandonedCount -= 1
                answer = []
            } else {
                switch request.outcome {
                case .success(let rows): answer = [.succeed(request.id, rows)]
                case .failure(let error): answer = [.fail(request.id, error)]
                case nil: answer = [.fail(request.id, .server(ServerError(sqlState: "XX000", message: "no result")))]
                }
            }
            return answer + withTimer(cancelIfHeadAbandoned(now: now))
        default:
            return connectionLost(
                reason: "unexpected result \(incoming) while awaiting \(request.stage)", now: now, jitter: jitter)
        }
        requests[head] = request
        return []
    }

    /// The timer armed by `armTimer` fired: a connect or request deadline may have passed.
    public mutating func timerFired(now: Instant, jitter: Double) -> [Action] {
        timerArmedAt = nil
        if case .connecting(let deadline) = phase, deadline <= now {
            return withTimer(connectFailed(reason: "no connection within \(timing.connectTimeout)", now: now, jitter: jitter))
        }
        if phase == .ready {
            if let cancelDeadline, cancelDeadline <= now {
                // The server did not end a cancelled statement within the grace: it is frozen. Drop
                // the connection (the statement is bounded by `statement_timeout` there).
                return backOff(
                    reason: "a cancelled statement did not end within \(timing.cancelGrace)",
                    error: .connectionLost(reason: "connection dropped: a cancelled statement did not end"), jitter: jitter)
            }
            // Every sent request past its deadline is answered now and abandoned in the pipeline.
            var actions: [Action] = []
            for index in head..<requests.count where !requests[index].abandoned {
                guard requests[index].deadline <= now else { break }
                requests[index].abandoned = true
                abandonedCount += 1
                actions.append(.fail(requests[index].id, .timedOut))
            }
            return withTimer(actions + cancelIfHeadAbandoned(now: now))
        }
        guard head < requests.count, requests[head].deadline <= now else { return withTimer([]) }
        // Waiting for a connection that did not come in time: never sent, so nothing happened.
        var actions: [Action] = []
        while head < requests.count, requests[head].deadline <= now {
            actions.append(.fail(requests[head].id, .unavailable(reason: "no connection within the request deadline")))
            popHead()
        }
        return withTimer(actions)
    }

    /// The back-off delay passed: connect again.
    public mutating func reconnectDue(now: Instant) -> [Action] {
        guard case .backingOff = phase else { return [] }
        return withTimer(beginConnecting(now: now))
    }

    /// The owner closes the connection: every request fails with `closed`.
    public mutating func close() -> [Action] {
        let open: Bool
        switch phase {
        case .connecting, .ready: open = true
        case .idle, .backingOff, .closed: open = false
        }
        phase = .closed
        var actions: [Action] = open ? [.closeConnection] : []
        actions += failAll(.closed)
        return actions
    }

    private mutating func beginConnecting(now: Instant) -> [Action] {
        phase = .connecting(deadline: now + timing.connectTimeout)
        return withTimer([.connect])
    }

    private mutating func markSent(_ request: inout Request) -> Action {
        var prepare = false
        if let statement = request.statement, prepared[statement] == nil {
            prepared[statement] = false
            prepare = true
        }
        request.stage = prepare ? .awaitingPrepare : .awaitingResult
        return .send(request.id, prepare: prepare)
    }

    /// A cancel for the head request when it is abandoned and none went for it yet.
    private mutating func cancelIfHeadAbandoned(now: Instant) -> [Action] {
        guard head < requests.count, requests[head].abandoned else {
            cancelDeadline = nil
            return []
        }
        guard cancelTarget != requests[head].id else { return [] }
        cancelTarget = requests[head].id
        cancelDeadline = now + timing.cancelGrace
        for index in head..<requests.count { requests[index].mayBeCancelled = true }
        return [.cancel(requests[head].id)]
    }

    /// A statement's error as the request's failure: a cancel meant for another request is
    /// `interrupted` (nothing of it happened: it may be sent again); a cancel nobody asked for is
    /// `statement_timeout`, the backstop past the deadline.
    private static func failure(_ error: ServerError, _ request: Request) -> PostgresError {
        guard error.sqlState == queryCanceled else { return .server(error) }
        return request.mayBeCancelled ? .interrupted : .timedOut
    }

    private mutating func backOff(reason: String, error: PostgresError, jitter: Double) -> [Action] {
        let wasOpen = phase == .ready || { if case .connecting = phase { return true } else { return false } }()
        phase = .backingOff(reason: reason)
        prepared = [:]
        cancelTarget = nil
        cancelDeadline = nil
        var actions: [Action] = wasOpen ? [.closeConnection] : []
        actions += failAll(error)
        actions.append(.scheduleReconnect(after: timing.backoff(afterFailures: failedAttempts, jitter: jitter)))
        failedAttempts += 1
        return actions
    }

    private mutating func failAll(_ error: PostgresError) -> [Action] {
        let actions = requests[head...].filter { !$0.abandoned }.map { Action.fail($0.id, error) }
        abandonedCount = 0
        requests = []
        head = 0
        return actions
    }

    private mutating func popHead() {
        head += 1
        requests.dropTaken(head: &head)
    }

    /// Appends an `armTimer` when the earliest deadline is earlier than the armed one.
    private mutating func withTimer(_ actions: [Action]) -> [Action] {
        var next: Instant?
        if case .connecting(let deadline) = phase { next = deadline }
        if let first = requests[head...].first(where: { !$0.abandoned }) { next = min(next ?? first.deadline, first.deadline) }
        if let cancelDeadline { next = min(next ?? cancelDeadline, cancelDeadline) }
        guard let next, timerArmedAt.map({ next < $0 }) ?? true else { return actions }
        timerArmedAt = next
        return actions + [.armTimer(at: next)]
    }
}
