import CLibevent
import Glibc
import HTTPValues

/// One accepted socket on a loop: its input and output buffers, its framing, and its machine. The
/// bytes move here (`HTTPConnection+IO`); where the connection is with its request and what it may
/// do — read, frame more, keep the connection after an answer or close it, send `100 Continue`,
/// linger, time out — is its `ConnectionMachine`'s decision (what is the loop's, its
/// `ConnectionStateMachine`'s).
///
/// Requests are handed to the handler one at a time, in order: the next pipelined request is
/// framed once the previous one is answered, so answers go out in request order and what a client
/// sends ahead waits in the input (bounded by `WireSettings.inputBytes`). Used on its loop's
/// thread only.
final class HTTPConnection {
    let id: ConnectionStateMachine.ConnectionID
    let socket: Int32
    unowned let server: HTTPLoopServer
    /// The peer's `address:port`, for the access log.
    let clientAddress: String
    /// Read and write readiness, edge-triggered and persistent: added once, never changed.
    var event: OpaquePointer?
    let input: OpaquePointer
    let output: OpaquePointer
    var framing: HTTPFraming
    /// Stream offset of the input's first byte.
    var inputOffset = 0
    /// The client ended its side (`EV_CLOSED`): a short read then means the end of its stream.
    var peerHalfClosed = false
    /// Continues a connection's work in a later turn of the loop, after others had theirs.
    var resumeEvent: OpaquePointer?
    /// The socket would block: the next write readiness edge flushes.
    var writeBlocked = false
    /// The kernel may hold bytes not read yet (a read filled its space, or reading was stopped).
    var readPending = false
    /// Inside one of the connection's own callbacks: answers queued now are written (or left for
    /// the turn's end) when it ends.
    var servicing = false
    /// Inside `flush`: what a stream writes from its `.drained` event is written by that flush.
    var flushing = false
    var isOpen = true
    /// Answer bytes queued and written so far, and where each queued answer ends.
    var bytesQueued = 0
    var bytesWritten = 0
    var unwrittenAnswers: [(request: ConnectionStateMachine.RequestID, end: Int)] = []
    // Last: its layout (`ContinuousClock.Instant`) is known only at run time, and every stored
    // property after it would be found through the class's metadata on each access.
    /// The connection's decisions, with where it is with its request (`ConnectionMachine.Exchange`:
    /// framing, reading a body, with the handler, or streaming the answer; one at a time, in order).
    /// Its questions are asked in place (`ask`).
    var state: ConnectionMachine

    init?(
        id: ConnectionStateMachine.ConnectionID, socket: Int32, clientAddress: String, server: HTTPLoopServer, state: ConnectionMachine
    ) {
        guard let input = evbuffer_new() else { return nil }
        guard let output = evbuffer_new() else {
            evbuffer_free(input)
            return nil
        }
        self.id = id
        self.socket = socket
        self.clientAddress = clientAddress
        self.server = server
        self.input = input
        self.output = output
        self.state = state
        framing = HTTPFraming(limits: server.wireSettings.framing)
        framing.recordsBodySpans = true
        unwrittenAnswers.reserveCapacity(1)
    }

    /// `question` asked of the machine in place: read from the class's property, a non-mutating
    /// call copies the whole machine first (its layout is known only at run time), its exchange's
    /// request with it; asked of the property passed `inout`, it reads it in place.
    @inline(__always) func ask<Answer>(_ question: (inout ConnectionMachine) -> Answer) -> Answer {
        question(&state)
    }

    /// The answer being streamed, if any.
    var stream: StreamState? { ask { $0.stream } }

    /// Carries out what the machine said: a change of reading (the loop counts it; a connection
    /// allowed to read again reads what waits and frames what is buffered), the close, an event
    /// for the stream's writer, a slow body's refusal. Nothing, once the connection is closed: its
    /// close reported its reading and requests to the loop already (as the loop's machine, which
    /// kept connections by id, ignored what came for one it had forgotten).
    func run(_ action: ConnectionMachine.Action) {
        guard isOpen else { return }
        switch action {
        case .nothing:
            return
        case .stopReading:
            server.readingChanged(action)
        case .resumeReading:
            server.readingChanged(action)
            readPending = true
            if !servicing { service() }
        case .close:
            close()
        case .tellStream(let event):
            stream?.onEvent(event)
        case .refuseSlowBody:
            refuseSlowBody()
        }
    }

    /// The loop's timer at `now`: what the machine says of the body's rate (`refuseSlowBody`), for
    /// the loop to run once it has asked every connection.
    func bodyRateChecked(now: ContinuousClock.Instant) -> ConnectionMachine.Action {
        state.timeoutsChecked(now: now)
    }

    /// The loop's timer at `now`: whether the time-out has passed (the loop closes the connection).
    func isExpired(now: ContinuousClock.Instant, timeout: Duration) -> Bool {
        ask { $0.isExpired(now: now, timeout: timeout) }
    }

    /// The output holds `pendingBytes` not written yet: counted by the loop; reading stops while
    /// more than `maxOutputBytes` wait (the machine says so).
    func outputNoted(pendingBytes: Int) {
        server.noteOutput(pendingBytes: pendingBytes)
        run(state.outputQueued(bytes: pendingBytes))
    }

    /// Starts watching the socket; false when libevent cannot.
    func start(base: OpaquePointer) -> Bool {
        let flags = Int16(EV_READ | EV_WRITE | EV_CLOSED | EV_PERSIST | EV_ET)
        guard let event = event_new(base, socket, flags, connectionCallback, Unmanaged.passUnretained(self).toOpaque()) else {
            return false
        }
        self.event = event
        guard event_add(event, nil) == 0 else { return false }
        return true
    }

    deinit {
        if let event { event_free(event) }
        if let resumeEvent { event_free(resumeEvent) }
        evbuffer_free(input)
        evbuffer_free(output)
    }

    /// Readiness reported by the loop: read what arrived and answer what it completes, write what
    /// waits (now, or at the turn's end).
    fileprivate func ready(readable: Bool, writable: Bool, closed: Bool) {
        if writable { writeBlocked = false }
        if readable || closed { readPending = true }
        if closed { peerHalfClosed = true }
        service()
        tellStreamIfClientEnded()
    }

    /// The loop's turn ended, and this connection's answers wait for it (`writeAtTurnEnd`): a last
    /// round of service writes them (and does what their writing opens: a close; more reading in a
    /// later turn).
    func turnEnded() {
        state.turnEnded()
        service(atTurnEnd: true)
    }

    /// Asks for `service` in a later turn of the loop: a zero time-out runs after the loop has
    /// polled, so the other connections' ready events run first (an `event_active` from inside
    /// the callback would run again before any of them).
    func resumeLater() {
        if resumeEvent == nil {
            resumeEvent = event_new(server.base, -1, 0, resumeCallback, Unmanaged.passUnretained(self).toOpaque())
        }
        guard let resumeEvent else { return }
        var now = timeval(tv_sec: 0, tv_usec: 0)
        event_add(resumeEvent, &now)
    }

    /// Reads, frames and answers as far as the budget allows, then writes what is queued (or has the
    /// loop write it at the end of its turn, `ConnectionMachine.roundQueued`); repeats while that
    /// opened the budget again. Re-entered calls (an answer sent from inside the handler) only mark
    /// the work: the outer call does it. `atTurnEnd`: one round that only writes (what was read is
    /// framed already), counted as the connection's last of the turn: more input waits for a later
    /// turn, as after `serviceRoundsPerTurn` rounds, so that a pipelining client does not get a
    /// second turn's worth of rounds before the others are polled again.
    func service(atTurnEnd: Bool = false) {
        guard isOpen, !servicing else { return }
        servicing = true
        defer { servicing = false }
        var round = atTurnEnd ? ConnectionMachine.serviceRoundsPerTurn - 1 : 0
        var reads = !atTurnEnd
        while true {
            round += 1
            if reads {
                // Only once what was read is framed: a client that pipelines ahead is read no faster
                // than its requests are answered, so its input stays within one read of the budget.
                if readPending, unframedBytes == 0, ask({ $0.takesRequests }) { readSocket() }
                guard isOpen else { return }
                frameAndDispatch()
                guard isOpen else { return }
            }
            reads = true
            let queued = evbuffer_get_length(output)
            switch state.roundQueued(
                pendingBytes: queued, writeBlocked: writeBlocked, timing: server.writeTiming, turnBytes: server.turnBytes)
            {
            case .now: flush()
            case .atTurnEnd: server.writeAtTurnEnd(self, bytes: queued)
            case .waiting: break
            }
            guard isOpen else { return }
            let unframed = unframedBytes
            let pending = evbuffer_get_length(output)
            if ask({ $0.closesAtClientEnd(unframedBytes: unframed, pendingBytes: pending) }) {
                close()
                return
            }
            let moreInput = readPending || unframedBytes > 0
            switch ask({ $0.afterServiceRound(round: round, moreInput: moreInput) }) {
            case .again: continue
            case .yieldTurn: resumeLater()
            case .done: break
            }
            return
        }
    }

    /// Bytes read and not framed yet: requests pipelined behind the one being answered.
    var unframedBytes: Int {
        framing.isFinished ? 0 : evbuffer_get_length(input) - (framing.position - inputOffset)
    }

    /// Closes the connection now: its requests in flight end, their answers are not delivered.
    /// When the machine says so (after an answer that closed it, to a client that has not ended
    /// its stream, and after a refusal), the socket lingers: half-closed and drained for a while,
    /// so that what the client still sends does not make the kernel reset the connection and
    /// destroy the answer's tail.
    func close() {
        guard isOpen else { return }
        isOpen = false
        if let event {
            event_del(event)
            event_free(event)
            self.event = nil
        }
        if let resumeEvent {
            event_free(resumeEvent)
            self.resumeEvent = nil
        }
        let current = stream
        let closed = state.closed()
        if closed.streamCut { current?.onEvent(.closed) }
        if closed.linger, server.linger(socket: socket) {
            // The loop owns the socket now.
        } else {
            Glibc.close(socket)
        }
        server.connectionClosed(self, requestsInFlight: state.requestsInFlight, throttled: !state.reading)
    }
}

private let connectionCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, what, context in
    let connection = Unmanaged<HTTPConnection>.fromOpaque(context!).takeUnretainedValue()
    connection.ready(
        readable: what & Int16(EV_READ) != 0, writable: what & Int16(EV_WRITE) != 0, closed: what & Int16(EV_CLOSED) != 0)
}

private let resumeCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, _, context in
    let connection = Unmanaged<HTTPConnection>.fromOpaque(context!).takeUnretainedValue()
    connection.readPending = true
    connection.service()
    connection.tellStreamIfClientEnded()
}
