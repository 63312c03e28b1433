/// What becomes of a connection around its answers: whether an answer keeps the connection (the
/// client's HTTP version and `Connection` field, the connection limit, a stop, a handler's
/// `Connection: close`) or closes it once written, `100 Continue` or a final answer from the head
/// for a body the client holds back, and the end of the client's stream (streamed answers:
/// `ConnectionMachine+Streams`). The connection writes what its machine decided and reports back
/// (`HTTPConnection+IO`).
extension ConnectionMachine {
    /// How the answer to the request being answered is framed.
    struct AnswerFraming: Sendable, Equatable {
        /// `Connection: close`: nothing more is read or framed; the connection closes once the
        /// answer is written.
        var closes: Bool
        /// An HTTP/1.0 client keeps the connection: `Connection: keep-alive`.
        var http10KeepAlive: Bool
        /// The request was a HEAD request: the answer has no body.
        var isHead = false
    }

    /// What the connection does for a head whose body is still to come.
    enum BodyAction: Sendable, Equatable {
        /// Read the body: the client sends it without waiting (no `Expect: 100-continue`, or some
        /// of it came with the head, RFC 9110 §10.1.1).
        case read
        /// The client waits: ask the handler whether it refuses the request from its head alone
        /// (told whether the connection is over the limit, where every request is refused), then
        /// tell the machine its answer (`headDecided`).
        case askHandler(overLimit: Bool)
        /// Send `100 Continue`, then read the body.
        case sendContinue
        /// Send the handler's final answer now, no 100, and never read the body: the stream ends
        /// there (`streamRefused`), the connection closes once the answer is written and lingers,
        /// discarding the body if the client sends it anyway.
        case answerFromHead
    }

    /// Whether a client asks to keep the connection after its request (RFC 9112 §9.3): never with
    /// `Connection: close`; HTTP/1.1 unless it says so, HTTP/1.0 only with `Connection: keep-alive`.
    static func keepsAlive(minorVersion: Int, asksClose: Bool, asksKeepAlive: Bool) -> Bool {
        !asksClose && (minorVersion >= 1 || asksKeepAlive)
    }

    /// The handler is about to get `request` (`isHead`: a HEAD request), which arrived with
    /// HTTP/1.`minorVersion` and the `Connection` options `close` (`asksClose`) or `keep-alive`
    /// (`asksKeepAlive`): the machine decides from them whether the client asks to keep the
    /// connection (`keepsAlive`).
    mutating func requestStarted(
        _ request: RequestID, isHead: Bool, minorVersion: Int, asksClose: Bool, asksKeepAlive: Bool
    ) -> RequestStart {
        requestStarted(
            request, isHead: isHead,
            keepAlive: ConnectionMachine.keepsAlive(minorVersion: minorVersion, asksClose: asksClose, asksKeepAlive: asksKeepAlive),
            http10: minorVersion == 0)
    }

    /// The handler answered `request` at `now` (`closeAsked`: its answer says `Connection: close`;
    /// `draining`: the loop is stopping): the answer keeps the connection unless the client did not
    /// ask to keep it, the connection is over the limit, the loop is stopping, or the answer asks
    /// to close. Nil when `request` is not the one with the handler (answered already, or
    /// streaming): the answer is not sent.
    mutating func requestAnswered(_ request: RequestID, now: Instant, draining: Bool = false, closeAsked: Bool = false)
        -> AnswerFraming?
    {
        guard case .handling(request, let isHead) = exchange else { return nil }
        exchange = .idle
        lastActivity = now
        let closes = !keepAlive || draining || closeAsked
        if closes { closing = .onceWritten }
        return AnswerFraming(closes: closes, http10KeepAlive: http10 && !closes, isHead: isHead)
    }

    /// A head whose body is still to come arrived: `expectsContinue` when it says `Expect:
    /// 100-continue` (HTTP/1.1), `bodyArrived` when some of the body came with it. A client that
    /// waits is not sent `100 Continue` before the handler had its say on the head (`askHandler`);
    /// any other body is read.
    func bodyAwaited(expectsContinue: Bool, bodyArrived: Bool) -> BodyAction {
        guard expectsContinue, !bodyArrived else { return .read }
        return .askHandler(overLimit: overLimit)
    }

    /// The handler, asked about a head whose client waits (`askHandler`), `refuses` it or not:
    /// its answer goes out at once, else `100 Continue`.
    static func headDecided(refuses: Bool) -> BodyAction {
        refuses ? .answerFromHead : .sendContinue
    }

    /// Whether the connection may read and frame more requests: its budget allows it and no answer
    /// queued closes it.
    var takesRequests: Bool {
        reading && closing != .onceWritten
    }

    /// Whether the next request may be framed and handed to the handler now: the connection takes
    /// requests, and none of its requests is with the handler or streaming its answer (requests
    /// are answered one at a time, in order; what is pipelined waits in the input).
    var framesRequests: Bool {
        reading && closing != .onceWritten && !isAnswering
    }

    /// The connection's output is empty (all that was queued is written): close it when the
    /// answer written closes it.
    mutating func outputEmptied() -> Action {
        guard closing == .onceWritten else { return .nothing }
        answerDelivered = true
        return .close
    }

    /// A read found the end of the client's stream.
    mutating func clientEndedStream() {
        clientEnded = true
    }

    /// Whether the connection closes now because its client ended its stream and every whole request
    /// it sent is answered and written: nothing is with the handler or streaming, nothing read
    /// waits to be framed (`unframedBytes`; what is left is no whole request) and nothing waits to
    /// be written (`pendingBytes`). A client that ended its side may still read a stream: writes
    /// find out when it left.
    func closesAtClientEnd(unframedBytes: Int, pendingBytes: Int) -> Bool {
        clientEnded && !isAnswering && unframedBytes == 0 && pendingBytes == 0
    }
}
