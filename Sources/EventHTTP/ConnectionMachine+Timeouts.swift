/// A connection's time-outs, checked by the loop's timer (`HTTPLoopServer.checkTimeouts`) and
/// decided here: the idle and write time-out, a head that trickles in, and a body below the
/// minimum rate (`ConnectionMachine+BodyRate`).
extension ConnectionMachine {
    /// What the shell does after a check of the time-outs.
    struct TimeoutAction: Sendable, Equatable {
        /// The body is too slow: the stream is refused (nothing more is read or framed, the
        /// connection closes once the refusal is written, and lingers); write the 408
        /// (`BodyRate.refusalDetail` says what to tell the client) and carry out `reading`.
        var refuseSlowBody = false
        /// The reading change of that refusal.
        var reading = ReadingAction.unchanged
    }

    /// The body's rate checked at `now` (`bodyTooSlow`): a body too slow is refused here. The loop
    /// checks every connection's body first, then their time-outs (`isExpired`): a refusal's
    /// writes count as activity.
    mutating func timeoutsChecked(now: Instant) -> TimeoutAction {
        guard bodyTooSlow(now: now) else { return TimeoutAction() }
        return TimeoutAction(refuseSlowBody: true, reading: streamFinished(refused: true))
    }

    /// Whether the time-out has passed at `now`, with `timeout` the longest a connection may go
    /// without reading or writing: no request of it is with the handler and nothing was read or
    /// written for `timeout` (an idle keep-alive connection, a body that stalled, a client that
    /// does not take its answer), or a head began `timeout` ago and is still not whole (a client
    /// that sends it a byte at a time). The loop closes it.
    func isExpired(now: Instant, timeout: Duration) -> Bool {
        guard !isHandling else { return false }
        return now - lastActivity >= timeout || headStarted.map({ now - $0 >= timeout }) == true
    }
}
