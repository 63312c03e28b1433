import HTTPValues

/// One connection's decisions, with no I/O: where it is with its request (`exchange`: idle,
/// receiving a body, with the handler, streaming the answer), its budget and reading, whether it is
/// kept or closed after an answer, its time-outs, its body's rate, and a streamed answer's framing
/// and back-pressure. `HTTPConnection`, its shell, owns it, tells it what happened and carries out
/// what it answers; what is the loop's (the connection count and limit, requests in flight,
/// throttled connections, the drain, back-off, lingering) is `ConnectionStateMachine`'s.
///
/// Each fact has this one owner: whether a request is with the handler or streaming is the
/// exchange's case, and a stream's back-pressure exists only while it streams. Time comes in with
/// the events that need it, so tests drive the machine with a fake clock. Not `Sendable`: its
/// exchange holds the stream's event handler, and it lives on its connection's loop.
struct ConnectionMachine {
    typealias Instant = ContinuousClock.Instant
    typealias RequestID = ConnectionStateMachine.RequestID

    /// When a connection closes after its answers.
    enum Closing: Sendable, Equatable {
        case no
        /// Once the streamed answer in progress has finished and is written.
        case afterStream
        /// Once what is queued is written; nothing more is read or framed.
        case onceWritten
    }

    /// What a transition tells the connection to do: `HTTPConnection.run(_:)` carries it out.
    /// (Answers the shell uses where it asked — how to frame an answer or a stream, what a head's
    /// body needs, what a stream's write tells its writer, another round or not — are the
    /// transitions' own values.)
    enum Action: Sendable, Equatable {
        case nothing
        /// Stop reading (and framing what is buffered): the client holds too many unanswered
        /// requests or unsent bytes, or its stream is over. The loop counts it.
        case stopReading
        /// Read again, and frame what is buffered.
        case resumeReading
        /// Close the connection: the answer that closes it is written.
        case close
        /// Tell the stream's writer `event` (`.drained`, `.clientEnded`).
        case tellStream(HTTPStreamEvent)
        /// The body is arriving slower than the minimum rate: refuse the stream with a 408
        /// (`BodyRate.refusalDetail` says what to tell the client), as any refusal (`streamRefused`).
        case refuseSlowBody
    }

    /// What the shell does for a request the handler is about to get.
    struct RequestStart: Sendable, Equatable {
        /// The connection is over the limit: answer with a refusal.
        var refuse: Bool
    }

    /// What the shell does when the connection closed.
    struct Closed: Sendable, Equatable {
        /// Keep reading and discarding on its socket (a refused stream).
        var linger: Bool
        /// A streamed answer was in progress: its writer hears `.closed` (the client is gone, or
        /// the connection timed out or was aborted).
        var streamCut = false
    }

    // The state below is changed only by the machine's own methods (in this file and its
    // extensions); the shell reads it in place (`HTTPConnection.ask`).
    /// Where the connection is with its request (one at a time, in order).
    var exchange = Exchange.idle
    /// Accepted while the server was at its connection limit: its requests are refused.
    let overLimit: Bool
    /// Pipelined requests and unsent answer bytes.
    var budget: ConnectionBudget
    /// Whether reading is allowed now.
    var reading = true
    /// The framing refused the stream: the close lingers so that the refusal is delivered.
    var refused = false
    /// What the client asked of the connection with the request being answered: to keep it
    /// (and it is not over the limit), and whether it spoke HTTP/1.0.
    var keepAlive = true
    var http10 = false
    /// Whether the connection closes after what is queued (`onceWritten`: nothing more is read
    /// or framed), or after the streamed answer in progress (`afterStream`).
    var closing = Closing.no
    /// The answer that closes the connection has been written: the close comes after an answer.
    var answerDelivered = false
    /// The client ended its stream (a read found its end).
    var clientEnded = false
    /// A read or write failed: nothing more can be delivered on the socket.
    var broken = false
    /// Requests handed to the handler whose answer is not written yet.
    var requestsInFlight = 0
    /// Answers queued in this turn of the loop wait for its end to be written (`roundQueued`).
    var awaitsTurnEnd = false
    /// Bytes of the body being read that arrived since `bodyStarted`.
    var bodyBytes = 0
    /// The least a request body must average (nil: no minimum).
    let bodyRate: BodyRate?
    // Last: their layout (`ContinuousClock.Instant`) is known only at run time, and every field
    // after them would be found through type metadata on each access, on the hot path too.
    /// The last time bytes were read from or written to the connection (or it was accepted, or
    /// the handler answered): its time-out counts from here.
    var lastActivity: Instant
    /// When the first byte of a head that is not complete yet arrived: the whole head must
    /// arrive within the time-out, however slowly its bytes trickle in.
    var headStarted: Instant?
    /// When the head of the request whose body is being read arrived (with a minimum body
    /// rate only): the body's rate counts from here.
    var bodyStarted: Instant?

    /// A connection accepted at `now` (`overLimit`: at the server's connection limit, see
    /// `ConnectionStateMachine.accepted`) with `budget` and the minimum `bodyRate`.
    init(overLimit: Bool, budget: ConnectionBudget, bodyRate: BodyRate? = nil, now: Instant) {
        self.overLimit = overLimit
        self.budget = budget
        self.bodyRate = bodyRate
        lastActivity = now
    }

    /// The answer being streamed, if any.
    var stream: StreamState? {
        if case .streaming(let stream, _) = exchange { return stream }
        return nil
    }

    /// Whether a request is with the handler or its answer is streaming: nothing more is framed.
    var isAnswering: Bool {
        switch exchange {
        case .handling, .streaming: return true
        case .idle, .receiving: return false
        }
    }

    /// Whether a request is with the handler (no time-out runs).
    var isHandling: Bool {
        if case .handling = exchange { return true }
        return false
    }

    /// Bytes were read from or written to the connection at `now`.
    mutating func activity(now: Instant) {
        lastActivity = now
    }

    /// Part of a head arrived at `now` (the first time counts).
    mutating func headStarted(now: Instant) {
        if headStarted == nil { headStarted = now }
    }

    /// The head is complete.
    mutating func headCompleted() {
        headStarted = nil
    }

    /// The handler is about to get `request` (`isHead`: its answer has no body); its client asks to
    /// keep the connection (`keepAlive`: HTTP/1.1 without `Connection: close`, HTTP/1.0 with
    /// `Connection: keep-alive`) and spoke HTTP/1.0 (`http10`). A request on a connection over the
    /// limit is refused, and the connection closes after its answer.
    mutating func requestStarted(_ request: RequestID, isHead: Bool = false, keepAlive: Bool = true, http10: Bool = false)
        -> RequestStart
    {
        exchange = .handling(request, isHead: isHead)
        requestsInFlight += 1
        bodyStarted = nil
        self.keepAlive = keepAlive && !overLimit
        self.http10 = http10
        return RequestStart(refuse: overLimit)
    }

    /// The answer to a request was written.
    mutating func requestCompleted() -> Action {
        requestsInFlight -= 1
        return updateReading { $0.budget.recordAnswer() }
    }

    /// The connection closes: its requests in flight are over (their answers can no longer be
    /// delivered), and so is a stream in progress. Its socket lingers after a refusal, and after
    /// an answer that closed it (`outputEmptied` said so) while the client has not ended its
    /// stream: unread input would make the kernel reset the connection and destroy the answer's
    /// tail. A time-out, a failed read or write (`socketFailed`), or the end of the client's stream
    /// closes it without lingering.
    mutating func closed() -> Closed {
        let streamCut = stream != nil
        exchange = .idle
        return Closed(linger: !broken && (refused || (answerDelivered && !clientEnded)), streamCut: streamCut)
    }

    /// A read or write failed (the client reset it, the socket broke): the shell closes the
    /// connection now, and it does not linger — nothing can be delivered on it any more.
    mutating func socketFailed() {
        broken = true
    }
}
