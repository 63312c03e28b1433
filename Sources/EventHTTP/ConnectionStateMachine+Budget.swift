/// Reading follows each connection's budget: requests received and not answered, unsent answer
/// bytes, and whether its stream is over.
extension ConnectionStateMachine {
    /// The framing accepted request heads or completed requests on `connection`.
    mutating func framed(_ connection: ConnectionID, _ events: FramingEvents) -> ReadingAction {
        updateConnection(connection) { $0.budget.record(events) }
    }

    /// `bytes` of answers wait to be sent on `connection` (told after every write and every queued
    /// answer): only past the output bound, or while some connection is throttled, can its reading
    /// change, so the budget is looked at only then (the hot path stays a comparison).
    mutating func outputQueued(_ connection: ConnectionID, bytes: Int) -> ReadingAction {
        guard bytes > budget.maxOutputBytes || throttledCount > 0 else { return .unchanged }
        return outputPending(connection, bytes: bytes)
    }

    /// `bytes` of answers wait to be sent on `connection`.
    mutating func outputPending(_ connection: ConnectionID, bytes: Int) -> ReadingAction {
        updateConnection(connection) { $0.budget.outputBytes = bytes }
    }

    /// `connection`'s stream ends here: refused (answered with a refusal — the framing's, or the
    /// handler's from a head whose body was never read — lingering at close) or discarded. Nothing
    /// more is read or framed; the connection closes once what is queued is written.
    mutating func streamFinished(_ connection: ConnectionID, refused: Bool) -> ReadingAction {
        updateConnection(connection) {
            $0.budget.finished = true
            $0.closing = .onceWritten
            $0.bodyStarted = nil
            if refused { $0.refused = true }
        }
    }

    /// How a refusal is framed: `Connection: close`, and nothing after it.
    struct Refusal: Sendable, Equatable {
        var reading: ReadingAction
        var framing: AnswerFraming
    }

    /// `connection`'s stream is refused (the framing's refusal, the handler's answer from a head
    /// whose body is never read, a body too slow): it ends there (`streamFinished`), lingering at
    /// close, and the refusal is framed to close the connection, whatever the client asked.
    mutating func refused(_ connection: ConnectionID) -> Refusal {
        Refusal(reading: streamFinished(connection, refused: true), framing: AnswerFraming(closes: true, http10KeepAlive: false))
    }

    /// From this size on a buffer's memory is handed back to the system a few sweeps after it is seen.
    static let largeBufferBytes = 256 << 10

    /// A buffer of `bytes` was seen (the loop calls only for large ones, sparing the hot path).
    mutating func bufferSeen(bytes: Int) {
        if bytes >= Self.largeBufferBytes { trimCountdown = Self.trimSweeps }
    }

    /// Whether some connection has a request whose head arrived and whose answer is not written yet.
    var hasRequestsAwaitingAnswer: Bool {
        connections.values.contains { $0.budget.awaitsAnswer }
    }

    /// Applies `change` to `connection`'s record (if it is known) and says whether its reading flips.
    mutating func updateConnection(_ connection: ConnectionID, _ change: (inout Connection) -> Void) -> ReadingAction {
        guard let index = connections.index(forKey: connection) else { return .unchanged }
        change(&connections.values[index])
        let allow = connections.values[index].budget.allowsReading
        guard allow != connections.values[index].reading else { return .unchanged }
        connections.values[index].reading = allow
        throttledCount += allow ? -1 : 1
        return allow ? .resumeReading : .stopReading
    }
}
