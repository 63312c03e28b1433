/// Sweeping out connections closed unseen, accepting's back-off, and the graceful stop.
extension ConnectionStateMachine {
    /// The periodic sweep (and the one at the limit): evhttp closes connections that never sent a
    /// request (idle time-outs, garbage, early hang-ups) without telling anyone. A connection lives
    /// while its session is registered or it has an event in the loop (`eventOwners`).
    mutating func sweep(eventOwners: Set<ConnectionID>) -> Swept {
        var dropped: [ConnectionID] = []
        for (id, connection) in connections where connection.session == nil && !eventOwners.contains(id) {
            dropped.append(id)
        }
        for id in dropped { remove(id) }
        var trim = false
        if trimCountdown > 0 {
            trimCountdown -= 1
            trim = trimCountdown == 0
        }
        return Swept(dropped: dropped, trimMemory: trim)
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
