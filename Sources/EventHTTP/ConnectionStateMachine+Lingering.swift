/// Lingering close for refused streams (as nginx does): the client may still be sending the body
/// or the rest of the stream the server refused, and closing a socket with unread input makes the
/// kernel send a reset that can destroy the refusal before the client reads it. So a refused
/// connection's socket is kept (a copy, half-closed) and what still arrives is read and discarded
/// until the client closes, pauses for `lingerIdle`, or `lingerTimeout` has passed in all. The
/// machine decides; the loop reads, discards and closes (`HTTPLoopServer+Lingering`).
extension ConnectionStateMachine {
    /// A socket being drained after a refusal (the loop uses the descriptor of its copy).
    struct LingerID: Hashable, Sendable {
        let rawValue: Int32
    }

    /// What the loop does with the socket of a refused connection that just closed.
    enum LingerStart: Sendable, Equatable {
        /// Read and discard what arrives; call `lingerRead` when input arrives or after
        /// `idleTimeout` without input.
        case linger(idleTimeout: Duration)
        /// Close it now: as many sockets linger as the connection limit allows.
        case close
    }

    /// What the loop does after reading a lingering socket.
    enum LingerAction: Sendable, Equatable {
        case keepReading
        /// Stop watching it and close it; the machine has forgotten it.
        case close
    }

    /// Sockets lingering on this loop.
    var lingeringCount: Int { lingering.count }

    /// A refused connection closed at `now` (`Closed.linger`) and the loop kept `id`, a copy of its
    /// socket. Lingering sockets are bounded by the connection limit (each holds a descriptor).
    mutating func lingerStarted(_ id: LingerID, now: Instant) -> LingerStart {
        guard lingering.count < maxConnections else { return .close }
        lingering[id] = now + lingerTimeout
        return .linger(idleTimeout: min(lingerTimeout, Self.lingerIdle))
    }

    /// The loop read `id` at `now` and discarded `discardedBytes`; `ended` when the client closed
    /// or the read failed, `idleTimedOut` when the idle time-out fired. Close at the end of the
    /// stream, at the deadline, or when the whole pause brought nothing (a busy loop may see the
    /// time-out fire although input arrived: then it keeps reading).
    mutating func lingerRead(_ id: LingerID, now: Instant, discardedBytes: Int, ended: Bool, idleTimedOut: Bool) -> LingerAction {
        guard let deadline = lingering[id] else { return .close }
        guard ended || now >= deadline || (idleTimedOut && discardedBytes == 0) else { return .keepReading }
        lingering.removeValue(forKey: id)
        return .close
    }

    /// The loop is exiting: every socket still lingering, to close; the machine forgets them.
    mutating func endAllLingering() -> [LingerID] {
        defer { lingering.removeAll() }
        return Array(lingering.keys)
    }

    /// Longest pause in a lingering client's sending before its socket is closed.
    static let lingerIdle: Duration = .seconds(5)
}
