/// Writes at the end of the loop's turn. The answers the loop's connections queue while it handles
/// one poll's events are written together after them, not each as it is made: a client with many
/// connections (a load balancer, a browser, a load generator) then wakes once for many answers
/// rather than once for each, and on a virtual machine waking a thread on another core costs more
/// than answering a GET. libevent's own bufferevents write in a later turn, and SwiftNIO servers
/// flush once a turn's reads are done; an answer waits at most for the rest of its turn.
extension ConnectionMachine {
    /// When the loop writes what its connections queue (`HTTPServerConfiguration.writesAtTurnEnd`).
    enum WriteTiming: Sendable, Equatable {
        /// Each connection's answers go to its socket as soon as its callback has queued them.
        case atOnce
        /// At the end of the turn of the loop in which they were queued.
        case atTurnEnd
        /// The turn is ending: its writes are being made, and what is queued now is written now.
        case turnEnding
    }

    /// How a service round's queued answers reach the socket.
    enum RoundWrite: Sendable, Equatable {
        /// Write them now (`flush`).
        case now
        /// Ask the loop to write them at the end of its turn: the first answers of this turn.
        case atTurnEnd
        /// Nothing to do now: the connection waits for the turn's end already.
        case waiting
    }

    /// A round of service queued `pendingBytes` for the socket (`writeBlocked`: the socket took
    /// all it could). They wait for the turn's end when the loop writes then and there is
    /// something to write on a socket that takes it; an answer being streamed is written as its
    /// writer flushes, and a blocked socket waits for its readiness edge either way.
    mutating func roundQueued(pendingBytes: Int, writeBlocked: Bool, timing: WriteTiming) -> RoundWrite {
        guard timing == .atTurnEnd, pendingBytes > 0, !writeBlocked else { return .now }
        if case .streaming = exchange { return .now }
        if awaitsTurnEnd { return .waiting }
        awaitsTurnEnd = true
        return .atTurnEnd
    }

    /// The loop's turn ended: the connection's answers are written now.
    mutating func turnEnded() {
        awaitsTurnEnd = false
    }
}
