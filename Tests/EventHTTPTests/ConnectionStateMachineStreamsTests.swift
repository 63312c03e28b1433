import HTTPValues
import Testing

@testable import EventHTTP

/// Decisions that moved into the machine from the connection: a streamed answer's body or none,
/// its last chunk, its back-pressure (over the output bound, drained below the mark), a client
/// gone while it runs; one request framed at a time; how a refusal is framed; no lingering on a
/// failed socket; the keep-alive rule of the client's version and `Connection` options; when
/// queued output can change reading. Time is a fake clock (instants from `t0`).
@Suite("ConnectionStateMachine: streamed answers, one request at a time, refusals, keep-alive rule, output bound")
struct ConnectionStateMachineStreamsTests: ConnectionStateMachineFixture {
    let t0 = ContinuousClock.now

    /// Connection `id` accepted, its request `id` with the handler (HTTP/1.`minor`).
    func streaming(_ id: UInt, in machine: inout Machine, minor: Int = 1) {
        open(id, in: &machine)
        _ = machine.requestStarted(request(id), connection: connection(id), minorVersion: minor, asksClose: false, asksKeepAlive: true)
    }

    /// A machine with connection 1's stream (HTTP/1.1) started at `t0`, with `backPressure`.
    func streamStarted(backPressure: HTTPStreamBackPressure = .connection) -> Machine {
        var machine = machine()
        streaming(1, in: &machine)
        _ = machine.streamStarted(connection(1), now: t0, backPressure: backPressure)
        return machine
    }

    // MARK: a stream's body and its end

    @Test("a HEAD request's stream and 1xx, 204 and 304 have no body (finished at once, no last chunk); others end with the last chunk")
    func bodiless() {
        for (status, isHead, expected) in [
            (200, true, true), (101, false, true), (204, false, true), (304, false, true), (200, false, false),
        ] {
            var machine = machine()
            streaming(1, in: &machine)
            let framing = machine.streamStarted(connection(1), now: t0, status: status, isHead: isHead)
            #expect(framing == .init(chunked: true, closes: false, bodiless: expected, isHead: isHead), "\(status) head: \(isHead)")
            #expect(machine.streamEnded(connection(1)) == .init(lastChunk: !expected), "\(status) head: \(isHead)")
            #expect(machine.takesRequests(connection(1)))
        }
    }

    @Test("an HTTP/1.0 stream is ended by the close: no last chunk; a stream that already ended has none either")
    func closeDelimitedEnd() {
        var machine = machine()
        streaming(1, in: &machine, minor: 0)
        #expect(machine.streamStarted(connection(1), now: t0) == .init(chunked: false, closes: true, bodiless: false))
        #expect(machine.streamEnded(connection(1)) == .init(lastChunk: false))
        #expect(machine.outputEmptied(connection(1)) == .close)
        var other = self.machine()
        streaming(2, in: &other)
        _ = other.streamStarted(connection(2), now: t0)
        #expect(other.streamEnded(connection(2)) == .init(lastChunk: true))
        #expect(other.streamEnded(connection(2)) == .init(lastChunk: false), "ended once")
    }

    // MARK: back-pressure

    @Test("a write that leaves the output over its bound says overBound until the output drains to half of it, told once")
    func overBoundAndDrained() {
        var machine = streamStarted()
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 1000) == .accepted)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 0) == false, "never over: nothing to tell")
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 1001) == .overBound)
        #expect(machine.streamWrote(connection(1), queuedBytes: false, pendingBytes: 600) == .overBound, "still waiting")
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 501) == false)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 500) == true)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 0) == false, "told once")
        #expect(machine.streamWrote(connection(1), queuedBytes: false, pendingBytes: 0) == .accepted)
    }

    @Test("a writer that asks to hear when the output is below a mark waits for it, whatever it wrote")
    func drainMark() {
        var machine = streamStarted()
        machine.streamDrainRequested(connection(1), below: 100)
        #expect(machine.streamWrote(connection(1), queuedBytes: false, pendingBytes: 300) == .overBound)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 101) == false)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 100) == true)
        // The next wait uses half the bound again.
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 2000) == .overBound)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 500) == true)
    }

    /// The live feed's marks for a bound of 1,000 unsent bytes (`FeedView.backPressure`): pause at
    /// half, resume at a quarter, cut off at the bound; a batch queued up to half is flushed before
    /// it is judged. (They were the event-stream writer's own until issue 37.)
    let feedMarks = HTTPStreamBackPressure(pauseAt: 500, resumeAt: 250, cutOffAt: 1000)

    @Test("a stream's marks: a batch that reaches half its bound is flushed first, then waits if still there, until a quarter is left")
    func streamMarksPauseAndResume() {
        var machine = streamStarted(backPressure: feedMarks)
        // 203-byte events, queued.
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 203, batched: true) == .accepted)
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 406, batched: true) == .accepted)
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 609, batched: true) == .flushFirst)
        // The socket took nothing: 609 after the flush, over half: wait.
        #expect(machine.streamFlushedForWrite(connection(1), pendingBytes: 609) == .overBound)
        #expect(machine.streamWrote(connection(1), queuedBytes: false, pendingBytes: 609) == .overBound, "still waiting")
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 251) == false)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 250) == true)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 0) == false, "told once")
        // A flush that the socket took: the write goes on.
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 700, batched: true) == .flushFirst)
        #expect(machine.streamFlushedForWrite(connection(1), pendingBytes: 100) == .accepted)
        // A write (a comment: written at once) is judged as it is.
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 499) == .accepted)
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 500) == .overBound)
    }

    @Test("a stream's marks: past the cut-off mark the stream is cut off, after a flush for a batch, at once for a write")
    func streamMarksCutOff() {
        var machine = streamStarted(backPressure: feedMarks)
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 303, batched: true) == .accepted)
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 1103, batched: true) == .flushFirst)
        #expect(machine.streamFlushedForWrite(connection(1), pendingBytes: 1103) == .cutOff)
        var other = streamStarted(backPressure: feedMarks)
        #expect(other.streamWrote(connection(1), queuedBytes: true, pendingBytes: 999) == .overBound)
        #expect(other.streamWrote(connection(1), queuedBytes: true, pendingBytes: 1000) == .cutOff)
    }

    @Test("a stream's marks above the output bound: the bound still pauses the writer, drained at half the bound")
    func outputBoundUnderTheMarks() {
        var machine = streamStarted(backPressure: HTTPStreamBackPressure(pauseAt: 4000, resumeAt: 2000, cutOffAt: 8000))
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 1001, batched: true) == .overBound)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 501) == false)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 500) == true)
        // Over the bound before its flush, under it after: it waits, as the bound said when queued.
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 4100, batched: true) == .flushFirst)
        #expect(machine.streamFlushedForWrite(connection(1), pendingBytes: 300) == .overBound)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 500) == true)
    }

    @Test("back-pressure is a stream's only: no stream, no overBound and no drained")
    func noStream() {
        var machine = machine()
        streaming(1, in: &machine)
        machine.streamDrainRequested(connection(1), below: 100)
        #expect(machine.streamWrote(connection(1), queuedBytes: true, pendingBytes: 5000) == .accepted)
        #expect(machine.streamOutputDrained(connection(1), pendingBytes: 0) == false)
        #expect(machine.streamWrote(connection(9), queuedBytes: true, pendingBytes: 5000) == .accepted)
    }

    // MARK: a client gone during a stream

    @Test("a connection that closes while its stream runs cuts the stream (its writer hears .closed); after the stream's end it does not")
    func streamCut() {
        var machine = streamStarted()
        #expect(machine.connectionClosed(connection(1)) == .init(linger: false, streamCut: true))
        streaming(2, in: &machine)
        _ = machine.streamStarted(connection(2), now: t0)
        machine.streamEnded(connection(2))
        #expect(machine.connectionClosed(connection(2))?.streamCut == false)
        streaming(3, in: &machine)
        #expect(machine.connectionClosed(connection(3))?.streamCut == false, "with the handler, no stream")
    }

    // MARK: one request at a time, refusals

    @Test("the next request is framed only once the one before is answered or its stream has ended; reading goes on meanwhile")
    func oneAtATime() {
        var machine = machine(opening: 1)
        #expect(machine.framesRequests(connection(1)))
        _ = machine.requestStarted(request(1), connection: connection(1))
        #expect(!machine.framesRequests(connection(1)), "with the handler")
        #expect(machine.takesRequests(connection(1)), "pipelined requests are still read")
        machine.requestAnswered(connection(1), now: at(1))
        #expect(machine.framesRequests(connection(1)))
        _ = machine.requestStarted(request(2), connection: connection(1))
        _ = machine.streamStarted(connection(1), now: at(2))
        #expect(!machine.framesRequests(connection(1)), "streaming")
        machine.streamEnded(connection(1))
        #expect(machine.framesRequests(connection(1)))
        _ = machine.outputPending(connection(1), bytes: 5000)
        #expect(!machine.framesRequests(connection(1)), "throttled")
        #expect(!machine.framesRequests(connection(9)), "unknown")
    }

    @Test("a refusal is framed to close, whatever the client asked; the stream ends there and the close lingers")
    func refusal() {
        var machine = machine(opening: 1)
        _ = machine.requestStarted(request(1), connection: connection(1), minorVersion: 0, asksClose: false, asksKeepAlive: true)
        machine.requestAnswered(connection(1), now: at(1))
        _ = machine.requestCompleted(request(1), connection: connection(1))
        #expect(machine.refused(connection(1)) == .init(reading: .stopReading, framing: .init(closes: true, http10KeepAlive: false)))
        #expect(!machine.framesRequests(connection(1)))
        #expect(!machine.takesRequests(connection(1)))
        #expect(machine.outputEmptied(connection(1)) == .close)
        #expect(machine.connectionClosed(connection(1)) == .init(linger: true))
    }

    @Test(
        "a connection whose read or write failed closes without lingering, after a refusal or an answer that closed it too; a stream it carried is cut"
    )
    func failedSocket() {
        var machine = machine(opening: 1)
        _ = machine.refused(connection(1))
        machine.socketFailed(connection(1))
        #expect(machine.connectionClosed(connection(1)) == .init(linger: false))
        open(2, in: &machine)
        _ = machine.requestStarted(request(2), connection: connection(2), keepAlive: false)
        machine.requestAnswered(connection(2), now: at(1))
        #expect(machine.outputEmptied(connection(2)) == .close)
        machine.socketFailed(connection(2))
        #expect(machine.connectionClosed(connection(2)) == .init(linger: false))
        streaming(3, in: &machine)
        _ = machine.streamStarted(connection(3), now: t0)
        machine.socketFailed(connection(3))
        #expect(machine.connectionClosed(connection(3)) == .init(linger: false, streamCut: true))
        machine.socketFailed(connection(9))
    }

    // MARK: keep-alive rule

    @Test("the client keeps the connection: HTTP/1.1 unless Connection: close, HTTP/1.0 only with keep-alive, close wins")
    func keepAliveRule() {
        #expect(Machine.keepsAlive(minorVersion: 1, asksClose: false, asksKeepAlive: false))
        #expect(!Machine.keepsAlive(minorVersion: 1, asksClose: true, asksKeepAlive: false))
        #expect(!Machine.keepsAlive(minorVersion: 1, asksClose: true, asksKeepAlive: true))
        #expect(!Machine.keepsAlive(minorVersion: 0, asksClose: false, asksKeepAlive: false))
        #expect(Machine.keepsAlive(minorVersion: 0, asksClose: false, asksKeepAlive: true))
        #expect(!Machine.keepsAlive(minorVersion: 0, asksClose: true, asksKeepAlive: true))
        // And how the answer is framed from what the request said.
        let cases: [(minor: Int, close: Bool, keepAlive: Bool, framing: Machine.AnswerFraming)] = [
            (1, false, false, .init(closes: false, http10KeepAlive: false)),
            (1, true, false, .init(closes: true, http10KeepAlive: false)),
            (0, false, false, .init(closes: true, http10KeepAlive: false)),
            (0, false, true, .init(closes: false, http10KeepAlive: true)),
        ]
        for (index, item) in cases.enumerated() {
            let id = UInt(index + 1)
            var machine = machine(opening: id)
            _ = machine.requestStarted(
                request(id), connection: connection(id), minorVersion: item.minor, asksClose: item.close, asksKeepAlive: item.keepAlive)
            #expect(machine.requestAnswered(connection(id), now: at(1)) == item.framing, "\(item)")
        }
    }

    // MARK: output bound

    @Test("queued output changes reading only past the bound, or while the connection is throttled")
    func outputQueued() {
        var machine = machine(opening: 1, 2)
        #expect(machine.outputQueued(connection(1), bytes: 1000) == .nothing)
        #expect(machine.connections[connection(1)]?.budget.outputBytes == 0, "below the bound: not even recorded")
        #expect(machine.outputQueued(connection(1), bytes: 1001) == .stopReading)
        // Another connection's throttling is not this one's: below the bound, still not recorded
        // (before the split, while any connection was throttled every one's output was).
        #expect(machine.outputQueued(connection(2), bytes: 10) == .nothing)
        #expect(machine.connections[connection(2)]?.budget.outputBytes == 0)
        // While throttled, its output is recorded however small.
        #expect(machine.outputQueued(connection(1), bytes: 900) == .resumeReading)
        #expect(machine.connections[connection(1)]?.budget.outputBytes == 900)
        #expect(machine.throttledCount == 0)
    }
}
