import CLibevent
import EventLoops
import Glibc
import HTTPValues

/// An answer whose body is written over time (`Transfer-Encoding: chunked`; close-delimited for an
/// HTTP/1.0 client), with back-pressure: each write says whether the connection's output is over
/// its bound, and the stream's event handler hears when it has drained and when the connection
/// closed. Use it on the request's loop thread only (it may be carried there in work queued with
/// `EventLoop.execute`, hence `Sendable`; asserted in debug builds); `finish` ends the answer and
/// the connection goes on with the client's next request.
public struct HTTPResponseStream: @unchecked Sendable {
    let connection: HTTPConnection
    let request: ConnectionStateMachine.RequestID

    /// Queues `bytes` as the next part of the body and writes it out as far as the socket takes it.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> HTTPStreamWrite {
        assertOnLoop()
        return connection.streamWrite(bytes, request: request, flushing: true)
    }

    /// Queues `bytes` as the next part of the body without writing: a batch of parts goes out in
    /// one system call at the next `flush()` (or write).
    @discardableResult
    public func queue(_ bytes: [UInt8]) -> HTTPStreamWrite {
        assertOnLoop()
        return connection.streamWrite(bytes, request: request, flushing: false)
    }

    /// Writes what is queued (as one chunk) as far as the socket takes it.
    public func flush() {
        assertOnLoop()
        guard isOpen else { return }
        connection.sealStagedChunk()
        if !connection.servicing { connection.flush() }
    }

    /// Ends the body. The connection then reads the client's next request (or closes, when the
    /// answer said so).
    public func finish() {
        assertOnLoop()
        connection.streamFinish(request: request)
    }

    /// Whether writes are still taken.
    public var isOpen: Bool { connection.isOpen && connection.stream?.request == request }

    /// Bytes queued on the connection and not yet taken by the socket (0 once closed).
    public var pendingBytes: Int { isOpen ? connection.streamPendingBytes : 0 }

    /// Asks for `.drained` once at most `bytes` are pending (after the socket has taken the rest).
    public func notifyWhenDrained(below bytes: Int) {
        assertOnLoop()
        guard isOpen else { return }
        connection.streamDrainRequested(below: bytes)
    }

    /// Closes the connection now, without ending the body (a subscriber cut off): the client sees
    /// the stream break, not end.
    public func abort() {
        assertOnLoop()
        guard isOpen else { return }
        connection.close()
    }

    /// Stops a debug build when the stream is used off its loop's thread: its connection is the
    /// loop's, without a lock, and a write from elsewhere would race the loop's own.
    private func assertOnLoop() {
        assert(connection.server.loop.isCurrent, "a response stream used off its request's loop thread")
    }
}

extension HTTPResponder {
    /// Answers with `status` and `headers` now and a body written later through the returned
    /// stream (no `Content-Length`: the body's length is not known). `onEvent` hears `.drained`
    /// and `.closed`; `backPressure`: the marks its writes are judged by besides the connection's
    /// output bound. Nil when the connection has closed already. A HEAD request, and a status
    /// that has no body (1xx, 204, 304), gets the head and a finished stream (writes are `.closed`).
    public func startStream(
        status: Int, headers: HTTPHeaders, backPressure: HTTPStreamBackPressure = .connection,
        onEvent: @escaping (HTTPStreamEvent) -> Void
    ) -> HTTPResponseStream? {
        assert(connection.server.loop.isCurrent, "a response stream started off its request's loop thread")
        guard
            connection.startStream(status: status, headers: headers, backPressure: backPressure, request: request, onEvent: onEvent)
        else { return nil }
        return HTTPResponseStream(connection: connection, request: request)
    }
}

/// A streamed answer in progress on a connection: what the connection needs to write it (the
/// connection's machine makes it when the stream starts and keeps its back-pressure and end beside
/// it, `ConnectionMachine+Streams`). A class: the machine's exchange holds it while the stream
/// lasts, and its fields are read and its staged parts set in place, without copying the handler
/// out.
final class StreamState {
    let request: ConnectionStateMachine.RequestID
    /// Chunked framing (HTTP/1.1) or close-delimited (HTTP/1.0).
    let chunked: Bool
    let onEvent: (HTTPStreamEvent) -> Void
    /// Parts queued since the last flush, to be framed as one chunk (chunked streams only).
    var staged: StagedChunk?

    init(request: ConnectionStateMachine.RequestID, chunked: Bool, onEvent: @escaping (HTTPStreamEvent) -> Void) {
        self.request = request
        self.chunked = chunked
        self.onEvent = onEvent
    }
}

/// Bytes of a chunked stream queued and not yet framed: a batch of parts becomes one chunk.
final class StagedChunk {
    let buffer: OpaquePointer

    init?() {
        guard let buffer = evbuffer_new() else { return nil }
        self.buffer = buffer
    }

    var count: Int { evbuffer_get_length(buffer) }

    deinit { evbuffer_free(buffer) }
}

extension HTTPConnection {
    func startStream(
        status: Int, headers: HTTPHeaders, backPressure: HTTPStreamBackPressure, request: ConnectionStateMachine.RequestID,
        onEvent: @escaping (HTTPStreamEvent) -> Void
    ) -> Bool {
        guard isOpen else { return false }
        // No time-out runs while the handler works; a stream counts from its writes again.
        let draining = server.isDraining
        guard
            let decided = state.streamStarted(
                request, now: .now, status: status, draining: draining, backPressure: backPressure, onEvent: onEvent)
        else { return false }
        let framing = HTTPResponseWriter.Framing(
            isHead: decided.isHead, closes: decided.closes, http10KeepAlive: false,
            streamed: decided.chunked ? .chunked : .closeDelimited)
        bytesQueued += HTTPResponseWriter.write(
            HTTPResponse(status: status, headers: headers), framing: framing, date: server.date.current(), to: output)
        if decided.bodiless {
            streamFinish(request: request)
        } else {
            // A client that ended its side before the stream started (its end read with the
            // request) sends no readiness edge again: a callback of its own tells the stream.
            if !servicing { service() }
            if isOpen, state.clientEnded { resumeLater() }
        }
        return true
    }

    func streamWrite(_ bytes: [UInt8], request: ConnectionStateMachine.RequestID, flushing: Bool) -> HTTPStreamWrite {
        guard isOpen, let current = stream, current.request == request else { return .closed }
        guard !bytes.isEmpty else {
            let pending = streamPendingBytes
            return writeResult(state.streamWrote(queuedBytes: false, pendingBytes: pending))
        }
        if current.chunked, !flushing, let staged = current.staged ?? StagedChunk() {
            // Queued: framed together with the parts after it, at the next flush.
            if current.staged == nil { current.staged = staged }
            bytes.withUnsafeBytes { _ = evbuffer_add(staged.buffer, $0.baseAddress, $0.count) }
        } else {
            sealStagedChunk()
            bytesQueued += bytes.withUnsafeBytes { HTTPResponseWriter.writePart($0, chunked: current.chunked, to: output) }
        }
        server.wireCounters.noteOutput(evbuffer_get_length(output))
        if flushing, !servicing { flush() }
        guard isOpen, stream?.request == request else { return .closed }
        let pending = streamPendingBytes
        var action = state.streamWrote(queuedBytes: true, pendingBytes: pending, batched: !flushing)
        if action == .flushFirst {
            sealStagedChunk()
            if !servicing { flush() }
            guard isOpen, stream?.request == request else { return .closed }
            let flushed = streamPendingBytes
            action = state.streamFlushedForWrite(pendingBytes: flushed)
        }
        return writeResult(action)
    }

    private func writeResult(_ action: ConnectionMachine.StreamWriteAction) -> HTTPStreamWrite {
        switch action {
        case .accepted, .flushFirst: return .accepted
        case .overBound: return .overBound
        case .cutOff:
            // The writer hears it by this answer: the stream is let go before the close, which
            // would tell it `.closed` as well.
            state.streamCutOff()
            close()
            return .cutOff
        }
    }

    /// The stream's writer asks for `.drained` once at most `bytes` are pending.
    func streamDrainRequested(below bytes: Int) {
        state.streamDrainRequested(below: bytes)
    }

    /// Output not yet written, the stream's queued parts included.
    var streamPendingBytes: Int { evbuffer_get_length(output) + (stream?.staged?.count ?? 0) }

    /// Moves the stream's queued parts to the output as one chunk.
    func sealStagedChunk() {
        guard let staged = stream?.staged else { return }
        bytesQueued += HTTPResponseWriter.writeChunk(movingFrom: staged.buffer, to: output)
    }

    func streamFinish(request: ConnectionStateMachine.RequestID) {
        guard isOpen, stream?.request == request else { return }
        sealStagedChunk()
        if state.streamEnded().lastChunk {
            bytesQueued += HTTPResponseWriter.writeLastChunk(to: output)
        }
        unwrittenAnswers.append((request, bytesQueued))
        if !servicing { service() }
    }

    /// After a flush: tells the stream that the output drained when the machine says so; whether it did.
    func streamDrained(pendingBytes: Int) -> Bool {
        let action = state.streamOutputDrained(pendingBytes: pendingBytes)
        guard action != .nothing else { return false }
        run(action)
        return true
    }

    /// Tells the stream that its client ended its side, when the machine says so (once). Called at
    /// the end of the loop's callbacks only, never from inside a handler's call into the
    /// connection: the handler that is still starting its stream hears it after it returned.
    func tellStreamIfClientEnded() {
        guard isOpen else { return }
        run(state.streamClientEnded())
    }
}
