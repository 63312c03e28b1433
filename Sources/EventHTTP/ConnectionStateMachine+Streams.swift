import HTTPValues

/// Streamed answers (`HTTPResponseStream`): how one is framed, whether it has a body at all, its
/// back-pressure (a write that leaves the output over its bound or at the stream's own marks,
/// `HTTPStreamBackPressure`: paused, flushed first, cut off; the output drained again below the
/// mark), its end (with or without a last chunk) and a client gone while it runs. The loop
/// writes the bytes and tells the stream's handler what the machine decided
/// (`HTTPResponseStream.swift`): the one owner of a stream's back-pressure.
extension ConnectionStateMachine {
    /// How a streamed answer is framed.
    struct StreamFraming: Sendable, Equatable {
        /// `Transfer-Encoding: chunked` (HTTP/1.1); otherwise the body ends with the connection
        /// (HTTP/1.0).
        var chunked: Bool
        /// `Connection: close`: the connection closes once the stream has finished and is written.
        var closes: Bool
        /// The answer has no body (a HEAD request; 1xx, 204, 304): the stream finishes at once.
        var bodiless = false
    }

    /// The stream in progress on a connection, as far as the machine decides for it.
    struct StreamFlow: Sendable, Equatable {
        var chunked = true
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

    /// How the loop ends a stream.
    struct StreamEnd: Sendable, Equatable {
        /// Write the last chunk (`0\r\n\r\n`): a chunked stream that has a body.
        var lastChunk: Bool
    }

    /// The handler answers the request of `connection` with a stream of `status` (`isHead`: to a
    /// HEAD request), starting at `now`: chunked for HTTP/1.1, and for HTTP/1.0 ended by the
    /// close; the connection closes after it when it would after an answer, and always for
    /// HTTP/1.0. A HEAD request's stream and a status without a body (1xx, 204, 304) have no body.
    /// `backPressure`: the marks the stream's writes are judged by, besides the output bound.
    mutating func streamStarted(
        _ connection: ConnectionID, now: Instant, status: Int = 200, isHead: Bool = false,
        backPressure: HTTPStreamBackPressure = .connection
    ) -> StreamFraming {
        let bodiless = isHead || status < 200 || status == 204 || status == 304
        guard let index = connections.index(forKey: connection) else {
            return StreamFraming(chunked: true, closes: true, bodiless: bodiless)
        }
        connections.values[index].handling = false
        connections.values[index].streaming = true
        connections.values[index].lastActivity = now
        let chunked = !connections.values[index].http10
        let closes = !connections.values[index].keepAlive || phase != .serving || !chunked
        if closes { connections.values[index].closing = .afterStream }
        connections.values[index].streamFlow = StreamFlow(chunked: chunked, bodiless: bodiless, backPressure: backPressure)
        return StreamFraming(chunked: chunked, closes: closes, bodiless: bodiless)
    }

    /// The stream on `connection` was written to (`queuedBytes`: some bytes were queued; none, it
    /// only asks), and `pendingBytes` are not taken by the socket yet: over the output bound, or at
    /// the stream's pause mark, the writer is told to wait for `.drained`; at its cut-off mark the
    /// stream is cut off. A write of nothing says whether it still waits. `batched`: the bytes were
    /// queued without being written out, and a batch that reaches the pause mark is flushed before
    /// it is judged (`flushFirst`).
    mutating func streamWrote(_ connection: ConnectionID, queuedBytes: Bool, pendingBytes: Int, batched: Bool = false) -> StreamWriteAction
    {
        guard let index = connections.index(forKey: connection), connections.values[index].streaming else { return .accepted }
        guard queuedBytes else { return connections.values[index].streamFlow.overBound ? .overBound : .accepted }
        let overBound = pendingBytes > budget.maxOutputBytes
        if overBound { connections.values[index].streamFlow.overBound = true }
        if batched, let pauseAt = connections.values[index].streamFlow.backPressure.pauseAt, pendingBytes >= pauseAt {
            connections.values[index].streamFlow.overBoundBeforeFlush = overBound
            return .flushFirst
        }
        return judgeWrite(index, pendingBytes: pendingBytes, overBound: overBound)
    }

    /// The write on `connection` that was told `flushFirst` was written out down to `pendingBytes`:
    /// what it tells its writer.
    mutating func streamFlushedForWrite(_ connection: ConnectionID, pendingBytes: Int) -> StreamWriteAction {
        guard let index = connections.index(forKey: connection), connections.values[index].streaming else { return .accepted }
        let overBound = connections.values[index].streamFlow.overBoundBeforeFlush
        connections.values[index].streamFlow.overBoundBeforeFlush = false
        return judgeWrite(index, pendingBytes: pendingBytes, overBound: overBound)
    }

    /// A write that left `pendingBytes` (`overBound`: over the output bound when queued), by the
    /// stream's marks: cut off at the cut-off mark; at the pause mark, wait for `.drained` at the
    /// resume mark; else wait when over the output bound.
    private mutating func judgeWrite(_ index: Int, pendingBytes: Int, overBound: Bool)
        -> StreamWriteAction
    {
        let marks = connections.values[index].streamFlow.backPressure
        if let cutOffAt = marks.cutOffAt, pendingBytes >= cutOffAt { return .cutOff }
        if let pauseAt = marks.pauseAt, pendingBytes >= pauseAt {
            connections.values[index].streamFlow.overBound = true
            connections.values[index].streamFlow.drainBelow = marks.resumeAt
            return .overBound
        }
        return overBound ? .overBound : .accepted
    }

    /// The stream's writer on `connection` asks for `.drained` once at most `bytes` are pending.
    mutating func streamDrainRequested(_ connection: ConnectionID, below bytes: Int) {
        guard let index = connections.index(forKey: connection), connections.values[index].streaming else { return }
        connections.values[index].streamFlow.overBound = true
        connections.values[index].streamFlow.drainBelow = bytes
    }

    /// `connection`'s output was written down to `pendingBytes`: whether its stream's writer hears
    /// `.drained` now (it waits, and the output is at or below its mark: half the output bound
    /// unless it asked for another). Told once per wait.
    mutating func streamOutputDrained(_ connection: ConnectionID, pendingBytes: Int) -> Bool {
        guard let index = connections.index(forKey: connection), connections.values[index].streaming else { return false }
        let flow = connections.values[index].streamFlow
        guard flow.overBound, pendingBytes <= flow.drainBelow ?? budget.maxOutputBytes / 2 else { return false }
        connections.values[index].streamFlow.overBound = false
        connections.values[index].streamFlow.drainBelow = nil
        return true
    }

    /// Whether the stream on `connection` hears `.clientEnded` now: its client ended its side (a
    /// read found the end of its stream, before the stream started or while it runs). Told once.
    mutating func streamClientEnded(_ connection: ConnectionID) -> Bool {
        guard let index = connections.index(forKey: connection), connections.values[index].streaming,
            connections.values[index].clientEnded, !connections.values[index].streamFlow.clientEndTold
        else { return false }
        connections.values[index].streamFlow.clientEndTold = true
        return true
    }

    /// The stream on `connection` finished: the connection goes on with the next request, or
    /// closes once the stream is written. A chunked stream with a body ends with its last chunk.
    @discardableResult
    mutating func streamEnded(_ connection: ConnectionID) -> StreamEnd {
        guard let index = connections.index(forKey: connection) else { return StreamEnd(lastChunk: false) }
        let flow = connections.values[index].streamFlow
        let end = StreamEnd(lastChunk: connections.values[index].streaming && flow.chunked && !flow.bodiless)
        connections.values[index].streaming = false
        connections.values[index].streamFlow = StreamFlow()
        if connections.values[index].closing == .afterStream { connections.values[index].closing = .onceWritten }
        return end
    }
}
