import HTTPValues

/// Streamed answers (`HTTPResponseStream`): how one is framed, whether it has a body at all, its
/// back-pressure (a write that leaves the output over its bound or at the stream's own marks,
/// `HTTPStreamBackPressure`: paused, flushed first, cut off; the output drained again below the
/// mark), its end (with or without a last chunk) and a client gone while it runs. The connection
/// writes the bytes and tells the stream's handler what the machine decided
/// (`HTTPResponseStream.swift`): the one owner of a stream's back-pressure.
extension ConnectionMachine {
    /// How a streamed answer is framed.
    struct StreamFraming: Sendable, Equatable {
        /// `Transfer-Encoding: chunked` (HTTP/1.1); otherwise the body ends with the connection
        /// (HTTP/1.0).
        var chunked: Bool
        /// `Connection: close`: the connection closes once the stream has finished and is written.
        var closes: Bool
        /// The answer has no body (a HEAD request; 1xx, 204, 304): the stream finishes at once.
        var bodiless = false
        /// The request was a HEAD request: the head says what a GET's would, with no body.
        var isHead = false
    }

    /// The stream in progress on a connection, as far as the machine decides for it (its framing,
    /// chunked or not, is its `StreamState`'s).
    struct StreamFlow: Sendable, Equatable {
        var bodiless = false
        /// A write left the output over its bound (or the writer asked to hear when it drains) and
        /// `.drained` has not been told yet.
        var overBound = false
        /// Pending bytes at or below which `.drained` is told (nil: half the output bound).
        var drainBelow: Int?
        /// `.clientEnded` was told.
        var clientEndTold = false
        /// The marks the stream asked for.
        var backPressure = HTTPStreamBackPressure.connection
        /// A queued write was told to flush first: whether it had left the output over the
        /// connection's bound before the flush.
        var overBoundBeforeFlush = false
    }

    /// What a write to a stream tells its writer.
    enum StreamWriteAction: Sendable, Equatable {
        case accepted
        /// The output is over its bound (or at the stream's pause mark): wait for `.drained`.
        case overBound
        /// A queued write reached the stream's pause mark: write the output out as far as the
        /// socket takes it, then `streamFlushedForWrite`.
        case flushFirst
        /// The output reached the stream's cut-off mark: close the connection, and tell the writer
        /// by the write's answer alone.
        case cutOff
    }

    /// How the connection ends a stream.
    struct StreamEnd: Sendable, Equatable {
        /// Write the last chunk (`0\r\n\r\n`): a chunked stream that has a body.
        var lastChunk: Bool
    }

    /// The handler answers `request` with a stream of `status`, starting at `now` (`draining`: the
    /// loop is stopping), whose events go to `onEvent`: chunked for HTTP/1.1, and for HTTP/1.0
    /// ended by the close; the connection closes after it when it would after an answer, and
    /// always for HTTP/1.0. A HEAD request's stream and a status without a body (1xx, 204, 304)
    /// have no body. `backPressure`: the marks the stream's writes are judged by, besides the
    /// output bound. Nil when `request` is not the one with the handler (no stream starts).
    mutating func streamStarted(
        _ request: RequestID, now: Instant, status: Int = 200, draining: Bool = false,
        backPressure: HTTPStreamBackPressure = .connection, onEvent: @escaping (HTTPStreamEvent) -> Void
    ) -> StreamFraming? {
        guard case .handling(request, let isHead) = exchange else { return nil }
        let bodiless = isHead || status < 200 || status == 204 || status == 304
        lastActivity = now
        let chunked = !http10
        let closes = !keepAlive || draining || !chunked
        if closes { closing = .afterStream }
        exchange = .streaming(
            StreamState(request: request, chunked: chunked, onEvent: onEvent), StreamFlow(bodiless: bodiless, backPressure: backPressure))
        return StreamFraming(chunked: chunked, closes: closes, bodiless: bodiless, isHead: isHead)
    }

    /// The stream's flow, if a stream runs.
    var flow: StreamFlow? {
        if case .streaming(_, let flow) = exchange { return flow }
        return nil
    }

    /// Sets the stream's flow (a stream runs).
    private mutating func setFlow(_ flow: StreamFlow) {
        guard case .streaming(let stream, _) = exchange else { return }
        exchange = .streaming(stream, flow)
    }

    /// The stream was written to (`queuedBytes`: some bytes were queued; none, it only asks), and
    /// `pendingBytes` are not taken by the socket yet: over the output bound, or at the stream's
    /// pause mark, the writer is told to wait for `.drained`; at its cut-off mark the stream is cut
    /// off. A write of nothing says whether it still waits. `batched`: the bytes were queued
    /// without being written out, and a batch that reaches the pause mark is flushed before it is
    /// judged (`flushFirst`).
    mutating func streamWrote(queuedBytes: Bool, pendingBytes: Int, batched: Bool = false) -> StreamWriteAction {
        guard case .streaming(_, var flow) = exchange else { return .accepted }
        guard queuedBytes else { return flow.overBound ? .overBound : .accepted }
        let overBound = pendingBytes > budget.maxOutputBytes
        if batched, let pauseAt = flow.backPressure.pauseAt, pendingBytes >= pauseAt {
            if overBound { flow.overBound = true }
            flow.overBoundBeforeFlush = overBound
            setFlow(flow)
            return .flushFirst
        }
        if overBound, !flow.overBound {
            flow.overBound = true
            setFlow(flow)
        }
        return judgeWrite(flow, pendingBytes: pendingBytes, overBound: overBound)
    }

    /// The write that was told `flushFirst` was written out down to `pendingBytes`: what it tells
    /// its writer.
    mutating func streamFlushedForWrite(pendingBytes: Int) -> StreamWriteAction {
        guard case .streaming(_, var flow) = exchange else { return .accepted }
        let overBound = flow.overBoundBeforeFlush
        flow.overBoundBeforeFlush = false
        setFlow(flow)
        return judgeWrite(flow, pendingBytes: pendingBytes, overBound: overBound)
    }

    /// A write that left `pendingBytes` (`overBound`: over the output bound when queued), by the
    /// stream's marks: cut off at the cut-off mark; at the pause mark, wait for `.drained` at the
    /// resume mark; else wait when over the output bound.
    private mutating func judgeWrite(_ flow: StreamFlow, pendingBytes: Int, overBound: Bool) -> StreamWriteAction {
        let marks = flow.backPressure
        if let cutOffAt = marks.cutOffAt, pendingBytes >= cutOffAt { return .cutOff }
        if let pauseAt = marks.pauseAt, pendingBytes >= pauseAt {
            var flow = flow
            flow.overBound = true
            flow.drainBelow = marks.resumeAt
            setFlow(flow)
            return .overBound
        }
        return overBound ? .overBound : .accepted
    }

    /// The stream's writer asks for `.drained` once at most `bytes` are pending.
    mutating func streamDrainRequested(below bytes: Int) {
        guard var flow else { return }
        flow.overBound = true
        flow.drainBelow = bytes
        setFlow(flow)
    }

    /// The output was written down to `pendingBytes`: the stream's writer hears `.drained` now
    /// when it waits and the output is at or below its mark (half the output bound unless it
    /// asked for another). Told once per wait.
    mutating func streamOutputDrained(pendingBytes: Int) -> Action {
        guard case .streaming(_, var flow) = exchange, flow.overBound,
            pendingBytes <= flow.drainBelow ?? budget.maxOutputBytes / 2
        else { return .nothing }
        flow.overBound = false
        flow.drainBelow = nil
        setFlow(flow)
        return .tellStream(.drained)
    }

    /// The stream hears `.clientEnded` now when its client ended its side (a read found the end
    /// of its stream, before the stream started or while it runs). Told once.
    mutating func streamClientEnded() -> Action {
        guard clientEnded, case .streaming(_, var flow) = exchange, !flow.clientEndTold else { return .nothing }
        flow.clientEndTold = true
        setFlow(flow)
        return .tellStream(.clientEnded)
    }

    /// The stream finished: the connection goes on with the next request, or closes once the
    /// stream is written. A chunked stream with a body ends with its last chunk.
    @discardableResult
    mutating func streamEnded() -> StreamEnd {
        guard case .streaming(let stream, let flow) = exchange else { return StreamEnd(lastChunk: false) }
        exchange = .idle
        if closing == .afterStream { closing = .onceWritten }
        return StreamEnd(lastChunk: stream.chunked && !flow.bodiless)
    }

    /// The stream is cut off (`cutOff`): let go before the connection closes, so that its writer
    /// hears it by the write's answer alone, not `.closed` as well.
    mutating func streamCutOff() {
        if stream != nil { exchange = .idle }
    }
}
