import HTTPValues

@testable import EventHTTP

/// A loop's machine and its connections' machines, composed as the shells compose them
/// (`HTTPLoopServer` and each `HTTPConnection`): each connection's events go to its own
/// `ConnectionMachine`, and what the loop counts — connections, requests in flight, reading
/// stopped, what a drain waits for — is told to the loop's `ConnectionStateMachine` as the shells
/// tell it. Connections are plain numbers here, as the loop hands them out; an unknown one (closed,
/// or never accepted) answers what a shell without that connection would do: nothing.
struct LoopMachines {
    typealias ConnectionID = ConnectionStateMachine.ConnectionID
    typealias RequestID = ConnectionStateMachine.RequestID
    typealias LingerID = ConnectionStateMachine.LingerID
    typealias BodyRate = ConnectionMachine.BodyRate
    typealias AnswerFraming = ConnectionMachine.AnswerFraming
    typealias Action = ConnectionMachine.Action

    static let serviceRoundsPerTurn = ConnectionMachine.serviceRoundsPerTurn
    static let flushRoundsPerTurn = ConnectionMachine.flushRoundsPerTurn

    static func headDecided(refuses: Bool) -> ConnectionMachine.BodyAction { ConnectionMachine.headDecided(refuses: refuses) }

    static func keepsAlive(minorVersion: Int, asksClose: Bool, asksKeepAlive: Bool) -> Bool {
        ConnectionMachine.keepsAlive(minorVersion: minorVersion, asksClose: asksClose, asksKeepAlive: asksKeepAlive)
    }

    var loop: ConnectionStateMachine
    /// Each open connection's machine (its `HTTPConnection`'s `state`).
    var connections: [ConnectionID: ConnectionMachine] = [:]

    // MARK: the loop's figures

    var openConnections: Int { loop.openConnections }
    var requestsInFlight: Int { loop.requestsInFlight }
    var throttledCount: Int { loop.throttledCount }
    var phase: ConnectionStateMachine.Phase { loop.phase }
    var isDraining: Bool { loop.isDraining }
    var lingeringCount: Int { loop.lingeringCount }
    /// Open connections accepted over the limit.
    var overLimitCount: Int { connections.values.filter(\.overLimit).count }
    /// What `HTTPLoopServer` tells the drain: some connection's head is not answered yet.
    var hasRequestsAwaitingAnswer: Bool { connections.values.contains { $0.awaitsAnswer } }

    // MARK: the shells' composition

    /// A reading change, carried out as `HTTPConnection.run` does: the loop counts it.
    private mutating func told(_ reading: Action) -> Action {
        loop.readingChanged(reading)
        return reading
    }

    /// `change` applied to `id`'s machine; `unknown` when there is none.
    private mutating func on<Answer>(_ id: ConnectionID, unknown: Answer, _ change: (inout ConnectionMachine) -> Answer) -> Answer {
        guard connections[id] != nil else { return unknown }
        return change(&connections[id]!)
    }

    /// `question` asked of `id`'s machine; `unknown` when there is none.
    private func asked<Answer>(_ id: ConnectionID, unknown: Answer, _ question: (ConnectionMachine) -> Answer) -> Answer {
        connections[id].map(question) ?? unknown
    }

    mutating func accepted(_ id: ConnectionID, openOnServer: Int, now: ContinuousClock.Instant) -> ConnectionStateMachine.AcceptAction {
        // A number handed out again (the loop never does) replaces the connection it named.
        if connections[id] != nil { _ = connectionClosed(id) }
        let action = loop.accepted(openOnServer: openOnServer, now: now)
        if case .admitted(let overLimit, _) = action { connections[id] = loop.connection(overLimit: overLimit, now: now) }
        return action
    }

    mutating func connectionClosed(_ id: ConnectionID) -> ConnectionMachine.Closed? {
        guard var machine = connections.removeValue(forKey: id) else { return nil }
        let closed = machine.closed()
        loop.connectionClosed(requestsInFlight: machine.requestsInFlight, throttled: !machine.reading)
        return closed
    }

    mutating func requestStarted(_ request: RequestID, connection id: ConnectionID, keepAlive: Bool = true, http10: Bool = false)
        -> ConnectionMachine.RequestStart
    {
        guard connections[id] != nil else { return .init(refuse: false) }
        loop.requestStarted()
        return connections[id]!.requestStarted(request, keepAlive: keepAlive, http10: http10)
    }

    mutating func requestStarted(
        _ request: RequestID, connection id: ConnectionID, minorVersion: Int, asksClose: Bool, asksKeepAlive: Bool
    ) -> ConnectionMachine.RequestStart {
        guard connections[id] != nil else { return .init(refuse: false) }
        loop.requestStarted()
        return connections[id]!.requestStarted(
            request, isHead: false, minorVersion: minorVersion, asksClose: asksClose, asksKeepAlive: asksKeepAlive)
    }

    mutating func requestCompleted(_ request: RequestID, connection id: ConnectionID) -> Action {
        guard connections[id] != nil else { return .nothing }
        loop.requestCompleted()
        return told(connections[id]!.requestCompleted())
    }

    /// The handler answered the request with `id`'s handler.
    @discardableResult
    mutating func requestAnswered(_ id: ConnectionID, now: ContinuousClock.Instant, closeAsked: Bool = false) -> AnswerFraming {
        let draining = loop.isDraining
        return on(id, unknown: AnswerFraming(closes: true, http10KeepAlive: false)) { machine in
            guard case .handling(let request, _) = machine.exchange else { return AnswerFraming(closes: true, http10KeepAlive: false) }
            return machine.requestAnswered(request, now: now, draining: draining, closeAsked: closeAsked)!
        }
    }

    mutating func activity(_ id: ConnectionID, now: ContinuousClock.Instant) { on(id, unknown: ()) { $0.activity(now: now) } }
    mutating func headStarted(_ id: ConnectionID, now: ContinuousClock.Instant) { on(id, unknown: ()) { $0.headStarted(now: now) } }
    mutating func headCompleted(_ id: ConnectionID) { on(id, unknown: ()) { $0.headCompleted() } }
    mutating func clientEnded(_ id: ConnectionID) { on(id, unknown: ()) { $0.clientEndedStream() } }
    mutating func socketFailed(_ id: ConnectionID) { on(id, unknown: ()) { $0.socketFailed() } }
    mutating func bodyBegan(_ id: ConnectionID, now: ContinuousClock.Instant) { on(id, unknown: ()) { $0.bodyBegan(now: now) } }
    mutating func bodyBytesArrived(_ id: ConnectionID, count: Int) { on(id, unknown: ()) { $0.bodyBytesArrived(count: count) } }

    func clientHasEnded(_ id: ConnectionID) -> Bool { asked(id, unknown: false) { $0.clientEnded } }

    mutating func framed(_ id: ConnectionID, _ events: FramingEvents) -> Action {
        told(on(id, unknown: .nothing) { $0.framed(events) })
    }

    mutating func outputQueued(_ id: ConnectionID, bytes: Int) -> Action {
        told(on(id, unknown: .nothing) { $0.outputQueued(bytes: bytes) })
    }

    mutating func outputPending(_ id: ConnectionID, bytes: Int) -> Action {
        told(on(id, unknown: .nothing) { $0.outputPending(bytes: bytes) })
    }

    mutating func streamFinished(_ id: ConnectionID, refused: Bool) -> Action {
        told(on(id, unknown: .nothing) { $0.streamFinished(refused: refused) })
    }

    mutating func refused(_ id: ConnectionID) -> ConnectionMachine.Refusal {
        let refusal = on(id, unknown: .init(reading: .nothing, framing: .init(closes: true, http10KeepAlive: false))) {
            $0.streamRefused()
        }
        _ = told(refusal.reading)
        return refusal
    }

    mutating func outputEmptied(_ id: ConnectionID) -> Action {
        on(id, unknown: .nothing) { $0.outputEmptied() }
    }

    func takesRequests(_ id: ConnectionID) -> Bool { asked(id, unknown: false) { $0.takesRequests } }
    func framesRequests(_ id: ConnectionID) -> Bool { asked(id, unknown: false) { $0.framesRequests } }

    func closesAtClientEnd(_ id: ConnectionID, unframedBytes: Int, pendingBytes: Int) -> Bool {
        asked(id, unknown: false) { $0.closesAtClientEnd(unframedBytes: unframedBytes, pendingBytes: pendingBytes) }
    }

    func bodyAwaited(_ id: ConnectionID, expectsContinue: Bool, bodyArrived: Bool) -> ConnectionMachine.BodyAction {
        asked(id, unknown: .read) { $0.bodyAwaited(expectsContinue: expectsContinue, bodyArrived: bodyArrived) }
    }

    /// An unknown connection frames nothing: at the last round it yields, else it is done.
    func afterServiceRound(_ id: ConnectionID, round: Int, moreInput: Bool) -> ConnectionMachine.RoundStep {
        asked(id, unknown: moreInput && round >= Self.serviceRoundsPerTurn ? .yieldTurn : .done) {
            $0.afterServiceRound(round: round, moreInput: moreInput)
        }
    }

    func afterFlushRound(round: Int, refilled: Bool, writeBlocked: Bool, pendingBytes: Int) -> ConnectionMachine.RoundStep {
        ConnectionMachine.afterFlushRound(round: round, refilled: refilled, writeBlocked: writeBlocked, pendingBytes: pendingBytes)
    }

    // MARK: time-outs, as `HTTPLoopServer.checkTimeouts` runs them

    /// The connections whose time-out passed at `now`, in the order of their numbers.
    func expired(now: ContinuousClock.Instant, timeout: Duration) -> [ConnectionID] {
        connections.filter { $0.value.isExpired(now: now, timeout: timeout) }.keys.sorted { $0.rawValue < $1.rawValue }
    }

    /// The connections whose body is too slow at `now`, in the order of their numbers: each
    /// refused, as `HTTPConnection.run(.refuseSlowBody)` refuses it (`streamRefused`).
    mutating func slowBodies(now: ContinuousClock.Instant) -> [ConnectionID] {
        var slow: [ConnectionID] = []
        for id in connections.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard connections[id]!.timeoutsChecked(now: now) == .refuseSlowBody else { continue }
            _ = told(connections[id]!.streamRefused().reading)
            slow.append(id)
        }
        return slow
    }

    // MARK: streams

    /// The stream of the request with `id`'s handler (a HEAD request's when `isHead`), started at `now`.
    @discardableResult
    mutating func streamStarted(
        _ id: ConnectionID, now: ContinuousClock.Instant, status: Int = 200, isHead: Bool = false,
        backPressure: HTTPStreamBackPressure = .connection
    ) -> ConnectionMachine.StreamFraming {
        let draining = loop.isDraining
        let bodiless = isHead || status < 200 || status == 204 || status == 304
        let unknown = ConnectionMachine.StreamFraming(chunked: true, closes: true, bodiless: bodiless, isHead: isHead)
        return on(id, unknown: unknown) { machine in
            guard case .handling(let request, _) = machine.exchange else { return unknown }
            if isHead { machine.exchange = .handling(request, isHead: true) }
            return machine.streamStarted(
                request, now: now, status: status, draining: draining, backPressure: backPressure, onEvent: { _ in })!
        }
    }

    mutating func streamWrote(_ id: ConnectionID, queuedBytes: Bool, pendingBytes: Int, batched: Bool = false)
        -> ConnectionMachine.StreamWriteAction
    {
        on(id, unknown: .accepted) { $0.streamWrote(queuedBytes: queuedBytes, pendingBytes: pendingBytes, batched: batched) }
    }

    mutating func streamFlushedForWrite(_ id: ConnectionID, pendingBytes: Int) -> ConnectionMachine.StreamWriteAction {
        on(id, unknown: .accepted) { $0.streamFlushedForWrite(pendingBytes: pendingBytes) }
    }

    mutating func streamDrainRequested(_ id: ConnectionID, below bytes: Int) {
        on(id, unknown: ()) { $0.streamDrainRequested(below: bytes) }
    }

    /// Whether the stream is told `.drained`.
    mutating func streamOutputDrained(_ id: ConnectionID, pendingBytes: Int) -> Bool {
        on(id, unknown: false) { $0.streamOutputDrained(pendingBytes: pendingBytes) == .tellStream(.drained) }
    }

    /// Whether the stream is told `.clientEnded`.
    mutating func streamClientEnded(_ id: ConnectionID) -> Bool {
        on(id, unknown: false) { $0.streamClientEnded() == .tellStream(.clientEnded) }
    }

    @discardableResult
    mutating func streamEnded(_ id: ConnectionID) -> ConnectionMachine.StreamEnd {
        on(id, unknown: .init(lastChunk: false)) { $0.streamEnded() }
    }

    // MARK: the loop's own

    mutating func sweep() -> Bool { loop.sweep() }
    mutating func bufferSeen(bytes: Int) { loop.bufferSeen(bytes: bytes) }
    mutating func acceptFailed(error: Int32, now: ContinuousClock.Instant) -> [ConnectionStateMachine.Action] {
        loop.acceptFailed(error: error, now: now)
    }
    mutating func acceptRetryDue() -> [ConnectionStateMachine.Action] { loop.acceptRetryDue() }

    mutating func shutdownRequested(now: ContinuousClock.Instant, gracePeriod: Duration) -> [ConnectionStateMachine.Action] {
        loop.shutdownRequested(now: now, gracePeriod: gracePeriod, awaitingAnswers: hasRequestsAwaitingAnswer)
    }

    mutating func tick(now: ContinuousClock.Instant) -> ConnectionStateMachine.Action? {
        loop.tick(now: now, awaitingAnswers: hasRequestsAwaitingAnswer)
    }

    mutating func lingerStarted(_ id: LingerID, now: ContinuousClock.Instant) -> ConnectionStateMachine.LingerStart {
        loop.lingerStarted(id, now: now)
    }

    mutating func lingerRead(_ id: LingerID, now: ContinuousClock.Instant, discardedBytes: Int, ended: Bool, idleTimedOut: Bool)
        -> ConnectionStateMachine.LingerAction
    {
        loop.lingerRead(id, now: now, discardedBytes: discardedBytes, ended: ended, idleTimedOut: idleTimedOut)
    }

    mutating func endAllLingering() -> [LingerID] { loop.endAllLingering() }
}
