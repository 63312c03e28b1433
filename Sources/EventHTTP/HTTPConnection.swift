import CLibevent
import Glibc

/// One accepted socket on a loop: its input and output buffers, its framing, and the request the
/// handler is answering. The bytes move here (`HTTPConnection+IO`); what the connection may do —
/// read, frame more, close, linger, time out — is the loop's `ConnectionStateMachine`'s decision.
///
/// Requests are handed to the handler one at a time, in order: the next pipelined request is
/// framed once the previous one is answered, so answers go out in request order and what a client
/// sends ahead waits in the input (bounded by `WireSettings.inputBytes`). Used on its loop's
/// thread only.
final class HTTPConnection {
    let id: ConnectionStateMachine.ConnectionID
    let socket: Int32
    unowned let loop: EventLoop
    /// The peer's `address:port`, for the access log.
    let clientAddress: String
    /// Read and write readiness, edge-triggered and persistent: added once, never changed.
    var event: OpaquePointer?
    let input: OpaquePointer
    let output: OpaquePointer
    var framing: HTTPFraming
    /// Stream offset of the input's first byte.
    var inputOffset = 0
    /// A request whose head was read and whose body is still arriving.
    var pendingHead: HTTPRequest?
    /// Chunk data of the pending request's body, as stream ranges.
    var chunkSpans: [Range<Int>] = []
    /// The request the handler has and has not answered yet.
    var answering: ConnectionStateMachine.RequestID?
    /// Whether the request being answered is a HEAD, and what its client asked of the connection.
    var answeringIsHead = false
    var answeringKeepAlive = true
    var answeringHTTP10 = false
    /// An answer with `Connection: close` is queued: nothing more is framed; close once written.
    var closeAfterWrite = false
    /// The answer being streamed, if any, and whether the connection closes after it.
    var stream: StreamState?
    var closeAfterStream = false
    /// The stream was refused: its refusal goes out after the answer in progress, then the
    /// connection closes lingering.
    var pendingRefusal: HTTPFraming.Refusal?
    /// The client ended its side of the stream (EOF).
    var peerClosed = false
    /// The socket would block: the next write readiness edge flushes.
    var writeBlocked = false
    /// The kernel may hold bytes not read yet (a read filled its space, or reading was stopped).
    var readPending = false
    /// Inside one of the connection's own callbacks: answers queued now are flushed at its end.
    var servicing = false
    /// Inside `flush`: what a stream writes from its `.drained` event is written by that flush.
    var flushing = false
    var isOpen = true
    /// Answer bytes queued and written so far, and where each queued answer ends.
    var bytesQueued = 0
    var bytesWritten = 0
    var unwrittenAnswers: [(request: ConnectionStateMachine.RequestID, end: Int)] = []

    init?(id: ConnectionStateMachine.ConnectionID, socket: Int32, clientAddress: String, loop: EventLoop) {
        guard let input = evbuffer_new() else { return nil }
        guard let output = evbuffer_new() else {
            evbuffer_free(input)
            return nil
        }
        self.id = id
        self.socket = socket
        self.clientAddress = clientAddress
        self.loop = loop
        self.input = input
        self.output = output
        framing = HTTPFraming(limits: loop.wireSettings.framing)
        framing.recordsChunkData = true
        unwrittenAnswers.reserveCapacity(1)
    }

    /// Starts watching the socket; false when libevent cannot.
    func start(base: OpaquePointer) -> Bool {
        let flags = Int16(EV_READ | EV_WRITE | EV_PERSIST | EV_ET)
        guard let event = event_new(base, socket, flags, connectionCallback, Unmanaged.passUnretained(self).toOpaque()) else {
            return false
        }
        self.event = event
        guard event_add(event, nil) == 0 else { return false }
        return true
    }

    deinit {
        if let event { event_free(event) }
        evbuffer_free(input)
        evbuffer_free(output)
    }

    /// Readiness reported by the loop: read what arrived and answer what it completes, flush what
    /// waits to be written.
    fileprivate func ready(readable: Bool, writable: Bool) {
        if writable { writeBlocked = false }
        if readable { readPending = true }
        service()
    }

    /// Reads, frames and answers as far as the budget allows, then writes what is queued; repeats
    /// while that opened the budget again. Re-entered calls (an answer sent from inside the
    /// handler) only mark the work: the outer call does it.
    func service() {
        guard isOpen, !servicing else { return }
        servicing = true
        defer { servicing = false }
        var rounds = 0
        repeat {
            rounds += 1
            // Only once what was read is framed: a client that pipelines ahead is read no faster
            // than its requests are answered, so its input stays within one read of the budget.
            if readPending, unframedBytes == 0, loop.machine.isReading(id), !closeAfterWrite { readSocket() }
            guard isOpen else { return }
            frameAndDispatch()
            guard isOpen else { return }
            flush()
            guard isOpen else { return }
            // At the end of the stream with nothing to answer, what is left is no whole request;
            // a streamed answer has nobody left to read it.
            if peerClosed, stream != nil || (answering == nil && evbuffer_get_length(output) == 0) {
                close()
                return
            }
        } while (readPending || unframedBytes > 0) && answering == nil && loop.machine.isReading(id) && !closeAfterWrite
            && rounds < Self.roundsPerTurn
        // A client that keeps sending does not hold the loop: the rest waits for the next turn
        // (no readiness edge would come for bytes the kernel already holds).
        if rounds == Self.roundsPerTurn, readPending || unframedBytes > 0, let event { event_active(event, Int32(EV_READ), 0) }
    }

    /// Bytes read and not framed yet: requests pipelined behind the one being answered.
    var unframedBytes: Int {
        framing.isFinished ? 0 : evbuffer_get_length(input) - (framing.position - inputOffset)
    }

    /// Reads in one turn of the loop, at most, before other connections get theirs.
    static let roundsPerTurn = 16

    /// Closes the connection now: its requests in flight end, their answers are not delivered.
    /// With `linger`, the socket is half-closed and drained for a while first.
    func close() {
        guard isOpen else { return }
        isOpen = false
        if let event {
            event_del(event)
            event_free(event)
            self.event = nil
        }
        endStreamAtClose()
        let closed = loop.machine.connectionClosed(id)
        if closed?.linger == true, loop.linger(socket: socket) {
            // The loop owns the socket now.
        } else {
            Glibc.close(socket)
        }
        loop.connectionClosed(self)
    }
}

private let connectionCallback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void = { _, what, context in
    let connection = Unmanaged<HTTPConnection>.fromOpaque(context!).takeUnretainedValue()
    connection.ready(readable: what & Int16(EV_READ) != 0, writable: what & Int16(EV_WRITE) != 0)
}
