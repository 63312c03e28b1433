/// How much of a loop's turn one connection takes: a client that keeps sending, or a stream that
/// keeps refilling a socket that keeps taking it, does not hold the loop. After so many rounds the
/// rest of its work waits for a later turn (no readiness edge would come for bytes the kernel
/// already holds, or for a socket that never blocked), after the other connections had theirs.
extension ConnectionMachine {
    /// Rounds of read, frame, answer and write in one turn of the loop, at most.
    static let serviceRoundsPerTurn = 16
    /// Rounds of write and refill of a streamed answer in one flush, at most.
    static let flushRoundsPerTurn = 8

    /// What a connection does after a round of its work.
    enum RoundStep: Sendable, Equatable {
        /// Another round now.
        case again
        /// The rest in a later turn of the loop (`resumeLater`).
        case yieldTurn
        /// Nothing more to do until the next readiness edge or answer.
        case done
    }

    /// After `round` (from 1) rounds of the connection's service: `moreInput` when the kernel may
    /// hold bytes not read yet or bytes read are not framed. Another round while it may frame
    /// requests, at most `serviceRoundsPerTurn`; past them, what is left waits for a later turn.
    func afterServiceRound(round: Int, moreInput: Bool) -> RoundStep {
        guard moreInput else { return .done }
        if round >= Self.serviceRoundsPerTurn { return .yieldTurn }
        return framesRequests ? .again : .done
    }

    /// After `round` (from 1) rounds of a flush: `refilled` when the stream, told its output
    /// drained, queued more that the socket may take now. Another round while it does, at most
    /// `flushRoundsPerTurn`; past them, what is still queued for a socket that did not block goes
    /// out in a later turn.
    static func afterFlushRound(round: Int, refilled: Bool, writeBlocked: Bool, pendingBytes: Int) -> RoundStep {
        if refilled, round < Self.flushRoundsPerTurn { return .again }
        return refilled && !writeBlocked && pendingBytes > 0 ? .yieldTurn : .done
    }
}
