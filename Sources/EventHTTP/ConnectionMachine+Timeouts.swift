/// A connection's time-outs, checked by the loop's timer (`HTTPLoopServer.checkTimeouts`) and
/// decided here: the idle and write time-out, a head that trickles in, and a body below the
/// minimum rate (`ConnectionMachine+BodyRate`).
extension ConnectionMachine {
    /// The body's rate checked at `now` (`bodyTooSlow`): `refuseSlowBody` for a body too slow (the
    /// shell refuses the stream with the 408: `streamRefused`). The loop checks every connection's
    /// body first, then their time-outs (`isExpired`): a refusal's writes count as activity.
    mutating func timeoutsChecked(now: Instant) -> Action {
        bodyTooSlow(now: now) ? .refuseSlowBody : .nothing
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
