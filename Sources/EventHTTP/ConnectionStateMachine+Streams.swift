/// Streamed answers (`HTTPResponseStream`): how one is framed, whether it has a body at all, its
/// back-pressure (a write that leaves the output over its bound, the output drained again below
/// the mark), its end (with or without a last chunk) and a client gone while it runs. The loop
/// writes the bytes and tells the stream's handler what the machine decided
/// (`HTTPResponseStream.swift`).
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
    }

    /// What a write to a stream tells its writer.
    enum StreamWriteAction: Sendable, Equatable {
        case accepted
        /// The output is over its bound: wait for `.drained`.
        case overBound
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
    mutating func streamStarted(_ connection: ConnectionID, now: Instant, status: Int = 200, isHead: Bool = false) -> StreamFraming {
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
        connections.values[index].streamFlow = StreamFlow(chunked: chunked, bodiless: bodiless)
        return StreamFraming(chunked: chunked, closes: closes, bodiless: bodiless)
    }

    /// The stream on `connection` was written to (`queuedBytes`: some bytes were queued; none, it
    /// only asks), and `pendingBytes` are not taken by the socket yet: over the output bound the
    /// writer is told to wait for `.drained`. A write of nothing says whether it still waits.
    mutating func streamWrote(_ connection: ConnectionID, queuedBytes: Bool, pendingBytes: Int) -> StreamWriteAction {
        guard let index = connections.index(forKey: connection), connections.values[index].streaming else { return .accepted }
        guard queuedBytes else { return connections.values[index].streamFlow.overBound ? .overBound : .accepted }
        guard pendingBytes > budget.maxOutputBytes else { return .accepted }
        connections.values[index].streamFlow.overBound = true
        return .overBound
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
