/// Time-outs, memory hand-back, accepting's back-off, and the graceful stop.
extension ConnectionStateMachine {
    /// The connections whose time-out has passed at `now`: no request of theirs is with the
    /// handler, and nothing was read or written for `timeout` (an idle keep-alive connection, a
    /// body that stalled, a client that does not take its answer), or a head began `timeout` ago
    /// and is still not whole (a client that sends it a byte at a time). The loop closes them.
    func expired(now: Instant, timeout: Duration) -> [ConnectionID] {
        var expired: [ConnectionID] = []
        for (id, connection) in connections where !connection.handling {
            if now - connection.lastActivity >= timeout || connection.headStarted.map({ now - $0 >= timeout }) == true {
                expired.append(id)
            }
        }
        return expired
    }

    /// The periodic sweep: whether to hand freed memory back to the system now (a few sweeps after
    /// a large buffer was seen).
    mutating func sweep() -> Bool {
        guard trimCountdown > 0 else { return false }
        trimCountdown -= 1
        return trimCountdown == 0
    }

    /// `accept(2)` failed with `error` (EMFILE, ENFILE, ENOBUFS, ENOMEM, …) at `now`.
    mutating func acceptFailed(error: Int32, now: Instant) -> [AcceptBackoff.Action] {
        guard phase == .serving else { return [] }
        return backoff.acceptFailed(error: error, now: now)
    }

    /// The back-off's retry interval is over.
    mutating func acceptRetryDue() -> [AcceptBackoff.Action] {
        guard phase == .serving else { return [] }
        return backoff.retryDue()
    }

    /// A stop was requested at `now`: stop accepting, mark answers `Connection: close`, and exit once
    /// the requests in flight and the requests whose head arrived are answered, or `gracePeriod`
    /// after `now`. A second request restarts the grace period.
    mutating func shutdownRequested(now: Instant, gracePeriod: Duration) -> [ShutdownAction] {
        switch phase {
        case .stopped:
            return []
        case .serving:
            backoff.stop()
            phase = .draining(deadline: now + gracePeriod)
            var actions: [ShutdownAction] = [.stopAccepting, .markDraining, .armDrainTimer(every: drainInterval)]
            if let exit = tick(now: now) { actions.append(exit) }
            return actions
        case .draining:
            phase = .draining(deadline: now + gracePeriod)
            return tick(now: now).map { [$0] } ?? []
        }
    }

    /// The drain timer fired at `now`: `closeServerAndExit` once nothing awaits an answer or the
    /// deadline has passed; nil otherwise (and when not draining).
    mutating func tick(now: Instant) -> ShutdownAction? {
        guard case .draining(let deadline) = phase else { return nil }
        // Requests in the handler, and requests whose head arrived before the stop (their body may
        // still be arriving), are answered first.
        guard (requests.isEmpty && !hasRequestsAwaitingAnswer) || now >= deadline else { return nil }
        phase = .stopped
        return .closeServerAndExit
    }
}
