/// Reading follows each connection's budget: requests received and not answered, unsent answer
/// bytes, and whether its stream is over.
extension ConnectionStateMachine {
    /// The framing accepted request heads or completed requests on `connection`.
    mutating func framed(_ connection: ConnectionID, _ events: FramingEvents) -> ReadingAction {
        updateConnection(connection) { $0.budget.record(events) }
    }

    /// `bytes` of answers wait to be sent on `connection`.
    mutating func outputPending(_ connection: ConnectionID, bytes: Int) -> ReadingAction {
        updateConnection(connection) { $0.budget.outputBytes = bytes }
    }

    /// The framing ended `connection`'s stream: refused (answered with the framing's refusal,
    /// lingering at close) or discarded (after a request that closes the connection).
    mutating func streamFinished(_ connection: ConnectionID, refused: Bool) -> ReadingAction {
        updateConnection(connection) {
            $0.budget.finished = true
            if refused { $0.refused = true }
        }
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
