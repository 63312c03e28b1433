/// Memory hand-back, accepting's back-off, and the graceful stop (a connection's time-outs are its
/// own machine's: `ConnectionMachine+Timeouts`).
extension ConnectionStateMachine {
    /// From this size on a buffer's memory is handed back to the system a few sweeps after it is seen.
    static let largeBufferBytes = 256 << 10

    /// A buffer of `bytes` was seen (the loop calls only for large ones, sparing the hot path).
    mutating func bufferSeen(bytes: Int) {
        if bytes >= Self.largeBufferBytes { trimCountdown = Self.trimSweeps }
    }

    /// The periodic sweep: whether to hand freed memory back to the system now (a few sweeps after
    /// a large buffer was seen).
    mutating func sweep() -> Bool {
        guard trimCountdown > 0 else { return false }
        trimCountdown -= 1
        return trimCountdown == 0
    }

    /// `accept(2)` failed with `error` (EMFILE, ENFILE, ENOBUFS, ENOMEM, …) at `now`.
    mutating func acceptFailed(error: Int32, now: Instant) -> [Action] {
        guard phase == .serving else { return [] }
        return backoff.acceptFailed(error: error, now: now).map(Action.backoff)
    }

    /// The back-off's retry interval is over.
    mutating func acceptRetryDue() -> [Action] {
        guard phase == .serving else { return [] }
        return backoff.retryDue().map(Action.backoff)
    }

    /// A stop was requested at `now`: stop accepting, mark answers `Connection: close`, and exit once
    /// the requests in flight and the requests whose head arrived are answered, or `gracePeriod`
    /// after `now`. A second request restarts the grace period. `awaitingAnswers`: some connection
    /// has a request whose head arrived and whose answer is not written (`ConnectionMachine.awaitsAnswer`).
    mutating func shutdownRequested(now: Instant, gracePeriod: Duration, awaitingAnswers: Bool) -> [Action] {
        switch phase {
        case .stopped:
            return []
        case .serving:
            backoff.stop()
            phase = .draining(deadline: now + gracePeriod)
            var actions: [Action] = [.stopAccepting, .markDraining, .armDrainTimer(every: drainInterval)]
            if let exit = tick(now: now, awaitingAnswers: awaitingAnswers) { actions.append(exit) }
            return actions
        case .draining:
            phase = .draining(deadline: now + gracePeriod)
            return tick(now: now, awaitingAnswers: awaitingAnswers).map { [$0] } ?? []
        }
    }

    /// The drain timer fired at `now`: `closeServerAndExit` once nothing awaits an answer or the
    /// deadline has passed; nil otherwise (and when not draining). `awaitingAnswers`: as for
    /// `shutdownRequested`.
    mutating func tick(now: Instant, awaitingAnswers: Bool) -> Action? {
        guard case .draining(let deadline) = phase else { return nil }
        // Requests in the handler, and requests whose head arrived before the stop (their body may
        // still be arriving), are answered first.
        guard (requestsInFlight == 0 && !awaitingAnswers) || now >= deadline else { return nil }
        phase = .stopped
        return .closeServerAndExit
    }
}
