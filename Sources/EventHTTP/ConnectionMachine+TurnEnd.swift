/// Writes at the end of the loop's turn. The answers the loop's connections queue while it handles
/// one poll's events are written together after them, not each as it is made: a client with many
/// connections (a load balancer, a browser, a load generator) then wakes once for many answers
/// rather than once for each, and on a virtual machine waking a thread on another core costs more
/// than answering a GET. libevent's own bufferevents write in a later turn, and SwiftNIO servers
/// flush once a turn's reads are done; an answer waits at most for the rest of its turn.
///
/// Up to `turnWriteBytes` a turn: past them answers go out at once. Held longer, the bytes of many
/// large answers (lists, 256 connections, pipelined batches) left the core's caches before they were
/// written, and those workloads cost more CPU per request than written at once (unpinned run of
/// 2026-12-07: 35.6 against 32.9 µs for a list of 20 on 256 connections; with a 64 KiB bound 33.2).
extension ConnectionMachine {
    /// Most bytes a loop's connections hold for the end of one turn, counted as the bytes each had
    /// queued when it began to wait (a connection already waiting may add answers up to the bound
    /// again, and at most its own `maxOutputBytes`); 64 answers of a few hundred bytes fit.
    static let turnWriteBytes = 64 << 10

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
    /// all it could), while the loop's connections hold `turnBytes` for the turn's end. They wait
    /// for the turn's end too when the loop writes then, there is something to write on a socket
    /// that takes it and the turn holds no more than `turnWriteBytes` with them; an answer being
    /// streamed is written as its writer flushes, and a blocked socket waits for its readiness edge
    /// either way.
    mutating func roundQueued(pendingBytes: Int, writeBlocked: Bool, timing: WriteTiming, turnBytes: Int) -> RoundWrite {
        guard timing == .atTurnEnd, pendingBytes > 0, !writeBlocked, turnBytes + pendingBytes <= Self.turnWriteBytes
        else { return .now }
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
