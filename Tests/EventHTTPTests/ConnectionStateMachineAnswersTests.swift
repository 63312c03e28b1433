import Testing

@testable import EventHTTP

/// What becomes of a connection around its answers, decided by the machine without a socket: keep-alive
/// after an answer (HTTP version, `Connection`, the connection limit, a stop, the handler's
/// `Connection: close`), streams, the end of the client's stream, `Expect: 100-continue` and
/// lingering. Time is a fake clock (instants from `t0`); connections and requests are plain numbers.
@Suite("ConnectionStateMachine: keep-alive, close after an answer or a stream, 100-continue, the client's end")
struct ConnectionStateMachineAnswersTests: ConnectionStateMachineFixture {
    let t0 = ContinuousClock.now

    /// Request `request` on connection `id`, answered at `now`: how the machine frames the answer.
    func answer(
        _ request: UInt, on id: UInt, in machine: inout Machine, keepAlive: Bool = true, http10: Bool = false,
        closeAsked: Bool = false, now: Int = 0
    ) -> Machine.AnswerFraming {
        _ = machine.requestStarted(self.request(request), connection: connection(id), keepAlive: keepAlive, http10: http10)
        return machine.requestAnswered(connection(id), now: at(now), closeAsked: closeAsked)
    }

    // MARK: keep-alive after an answer

    @Test("an HTTP/1.1 answer keeps the connection; the client's Connection: close closes it once written, and nothing more is framed")
    func http11() {
        var machine = machine(opening: 1)
        #expect(answer(1, on: 1, in: &machine) == .init(closes: false, http10KeepAlive: false))
        #expect(machine.takesRequests(connection(1)))
        #expect(machine.outputEmptied(connection(1)) == .nothing)
        _ = machine.requestCompleted(request(1), connection: connection(1))
        #expect(answer(2, on: 1, in: &machine, keepAlive: false) == .init(closes: true, http10KeepAlive: false))
        #expect(!machine.takesRequests(connection(1)), "the answer that closes is queued: no more requests")
        _ = machine.requestCompleted(request(2), connection: connection(1))
        #expect(machine.outputEmptied(connection(1)) == .close)
        #expect(machine.connectionClosed(connection(1)) == .init(linger: true), "the client has not ended its stream")
    }

    @Test("HTTP/1.0: kept with Connection: keep-alive (and the answer says so), closed without")
    func http10() {
        var machine = machine(opening: 1)
        #expect(answer(1, on: 1, in: &machine, keepAlive: true, http10: true) == .init(closes: false, http10KeepAlive: true))
        #expect(machine.outputEmptied(connection(1)) == .nothing)
        #expect(answer(2, on: 1, in: &machine, keepAlive: false, http10: true) == .init(closes: true, http10KeepAlive: false))
        #expect(machine.outputEmptied(connection(1)) == .close)
    }

    @Test("the handler's Connection: close, a connection over the limit and a stop each close the connection after the answer")
    func closingAnswers() {
        var machine = machine(opening: 1, maxConnections: 2)
        #expect(answer(1, on: 1, in: &machine, closeAsked: true).closes)
        #expect(machine.outputEmptied(connection(1)) == .close)
        // Over the limit: refused, and closed although the client asked to keep it.
        #expect(machine.accepted(connection(2), openOnServer: 2, now: t0) == .admitted(overLimit: true, resumedAfterFailures: nil))
        #expect(machine.requestStarted(request(2), connection: connection(2), keepAlive: true) == .init(refuse: true))
        #expect(machine.requestAnswered(connection(2), now: t0) == .init(closes: true, http10KeepAlive: false))
        // Stopping: every answer closes, an HTTP/1.0 keep-alive one too.
        open(3, in: &machine)
        _ = machine.shutdownRequested(now: at(0), gracePeriod: .seconds(5))
        #expect(answer(3, on: 3, in: &machine, http10: true) == .init(closes: true, http10KeepAlive: false))
    }

    @Test("an answer for a connection that closed meanwhile is framed to close")
    func answerAfterClose() {
        var machine = machine()
        #expect(machine.requestAnswered(connection(9), now: t0) == .init(closes: true, http10KeepAlive: false))
        #expect(machine.outputEmptied(connection(9)) == .nothing, "unknown: nothing to close")
        #expect(!machine.takesRequests(connection(9)))
    }

    @Test("the answer counts as activity: the time-out runs from it")
    func answerIsActivity() {
        var machine = machine(opening: 1)
        _ = answer(1, on: 1, in: &machine, now: 5_000)
        #expect(machine.expired(now: at(5_999), timeout: .seconds(1)).isEmpty)
        #expect(machine.expired(now: at(6_000), timeout: .seconds(1)) == [connection(1)])
    }

    // MARK: streams

    @Test("an HTTP/1.1 stream is chunked and keeps the connection; the next request is taken after it")
    func chunkedStream() {
        var machine = machine(opening: 1)
        _ = machine.requestStarted(request(1), connection: connection(1))
        #expect(machine.streamStarted(connection(1), now: at(100)) == .init(chunked: true, closes: false))
        #expect(!machine.closesAtClientEnd(connection(1), unframedBytes: 0, pendingBytes: 0))
        machine.streamEnded(connection(1))
        #expect(machine.outputEmptied(connection(1)) == .nothing)
        #expect(machine.takesRequests(connection(1)))
    }

    @Test("an HTTP/1.0 stream is ended by the close: reading goes on while it runs, the close comes once it has finished and is written")
    func closeDelimitedStream() {
        var machine = machine(opening: 1)
        _ = machine.requestStarted(request(1), connection: connection(1), keepAlive: true, http10: true)
        #expect(machine.streamStarted(connection(1), now: t0) == .init(chunked: false, closes: true))
        #expect(machine.takesRequests(connection(1)), "still read: the end of the client's stream is seen")
        #expect(machine.outputEmptied(connection(1)) == .nothing, "written so far, not finished")
        machine.streamEnded(connection(1))
        #expect(!machine.takesRequests(connection(1)))
        #expect(machine.outputEmptied(connection(1)) == .close)
    }

    @Test("a stream closes after itself when the client asked to close, or the loop is stopping")
    func closingStreams() {
        var machine = machine(opening: 1)
        _ = machine.requestStarted(request(1), connection: connection(1), keepAlive: false)
        #expect(machine.streamStarted(connection(1), now: t0) == .init(chunked: true, closes: true))
        open(2, in: &machine)
        _ = machine.requestStarted(request(2), connection: connection(2))
        _ = machine.shutdownRequested(now: t0, gracePeriod: .seconds(1))
        #expect(machine.streamStarted(connection(2), now: t0) == .init(chunked: true, closes: true))
    }

    @Test("a stream's time-out counts from its start and its writes, not from the request")
    func streamTimeout() {
        var machine = machine(opening: 1)
        _ = machine.requestStarted(request(1), connection: connection(1))
        #expect(machine.expired(now: at(10_000), timeout: .seconds(1)).isEmpty, "with the handler")
        _ = machine.streamStarted(connection(1), now: at(10_000))
        machine.activity(connection(1), now: at(10_500))
        #expect(machine.expired(now: at(11_499), timeout: .seconds(1)).isEmpty)
        #expect(machine.expired(now: at(11_500), timeout: .seconds(1)) == [connection(1)])
    }

    // MARK: the end of the client's stream

    @Test("after the client's end, the connection closes once every whole request it sent is answered and written, without lingering")
    func clientEnd() {
        var machine = machine(opening: 1)
        #expect(!machine.closesAtClientEnd(connection(1), unframedBytes: 0, pendingBytes: 0), "the client has not ended")
        _ = machine.requestStarted(request(1), connection: connection(1))
        machine.clientEnded(connection(1))
        #expect(!machine.closesAtClientEnd(connection(1), unframedBytes: 0, pendingBytes: 0), "with the handler")
        _ = machine.requestAnswered(connection(1), now: t0)
        #expect(!machine.closesAtClientEnd(connection(1), unframedBytes: 0, pendingBytes: 120), "not written yet")
        #expect(!machine.closesAtClientEnd(connection(1), unframedBytes: 40, pendingBytes: 0), "pipelined bytes to frame")
        #expect(machine.closesAtClientEnd(connection(1), unframedBytes: 0, pendingBytes: 0))
        #expect(machine.connectionClosed(connection(1)) == .init(linger: false), "nothing more comes from the client")
    }

    @Test("a client that ended its side still gets its stream; the close comes when the stream is over")
    func clientEndDuringStream() {
        var machine = machine(opening: 1)
        _ = machine.requestStarted(request(1), connection: connection(1))
        _ = machine.streamStarted(connection(1), now: t0)
        machine.clientEnded(connection(1))
        #expect(!machine.closesAtClientEnd(connection(1), unframedBytes: 0, pendingBytes: 0))
        machine.streamEnded(connection(1))
        #expect(machine.closesAtClientEnd(connection(1), unframedBytes: 0, pendingBytes: 0))
    }

    // MARK: Expect: 100-continue

    @Test("a body the client sends without waiting is read: no Expect, or some of it came with the head; the handler is not asked")
    func bodyNotAwaited() {
        let machine = machine(opening: 1)
        #expect(machine.bodyAwaited(connection(1), expectsContinue: false, bodyArrived: false) == .read)
        #expect(machine.bodyAwaited(connection(1), expectsContinue: true, bodyArrived: true) == .read)
    }

    @Test("a client that waits gets 100 Continue for a request the handler accepts from its head")
    func continueSent() {
        let machine = machine(opening: 1)
        #expect(machine.bodyAwaited(connection(1), expectsContinue: true, bodyArrived: false) == .askHandler(overLimit: false))
        #expect(Machine.headDecided(refuses: false) == .sendContinue)
        #expect(machine.takesRequests(connection(1)))
    }

    @Test(
        "a head the handler refuses is answered at once: the stream ends there, the connection closes once written and lingers for the body"
    )
    func answeredFromHead() {
        var machine = machine(opening: 1)
        _ = machine.framed(connection(1), FramingEvents(headsCompleted: 1, messagesCompleted: 0))
        #expect(machine.bodyAwaited(connection(1), expectsContinue: true, bodyArrived: false) == .askHandler(overLimit: false))
        #expect(Machine.headDecided(refuses: true) == .answerFromHead)
        #expect(machine.streamFinished(connection(1), refused: true) == .stopReading)
        #expect(!machine.takesRequests(connection(1)))
        #expect(!machine.hasRequestsAwaitingAnswer, "the refused head does not hold a drain")
        #expect(machine.outputEmptied(connection(1)) == .close)
        #expect(machine.connectionClosed(connection(1)) == .init(linger: true))
    }

    @Test("the handler hears that a connection is over the limit (where it refuses every request)")
    func overLimitHead() {
        var machine = machine(maxConnections: 1)
        #expect(machine.accepted(connection(1), openOnServer: 1, now: t0) == .admitted(overLimit: true, resumedAfterFailures: nil))
        #expect(machine.bodyAwaited(connection(1), expectsContinue: true, bodyArrived: false) == .askHandler(overLimit: true))
        // A connection the machine does not know reads (and the loop closes it anyway).
        #expect(machine.bodyAwaited(connection(9), expectsContinue: true, bodyArrived: false) == .read)
    }
}
