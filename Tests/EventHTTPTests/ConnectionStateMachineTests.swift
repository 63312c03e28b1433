import Glibc
import Testing

@testable import EventHTTP

/// The event loop's connection bookkeeping without a socket: time is a fake clock (instants from
/// `t0`), connections and requests are plain numbers.
@Suite("ConnectionStateMachine: accept, requests, close, time-outs, sweep, back-off and drain")
struct ConnectionStateMachineTests: ConnectionStateMachineFixture {
    let t0 = ContinuousClock.now

    func events(heads: Int, messages: Int) -> FramingEvents { FramingEvents(headsCompleted: heads, messagesCompleted: messages) }

    // MARK: accept and the connection limit

    @Test(
        "below the limit a connection is admitted and counted; at the limit (every loop's connections counted) it is admitted over the limit"
    )
    func admission() {
        var machine = machine(maxConnections: 2)
        #expect(machine.accepted(connection(1), openOnServer: 0, now: t0) == .admitted(overLimit: false, resumedAfterFailures: nil))
        #expect(machine.accepted(connection(2), openOnServer: 1, now: t0) == .admitted(overLimit: false, resumedAfterFailures: nil))
        #expect(machine.openConnections == 2)
        #expect(machine.accepted(connection(3), openOnServer: 2, now: t0) == .admitted(overLimit: true, resumedAfterFailures: nil))
        #expect(machine.openConnections == 3)
        #expect(machine.overLimitCount == 1)
        // Another loop's connections count too: at the limit with none of this loop's.
        var other = self.machine(maxConnections: 2)
        #expect(other.accepted(connection(9), openOnServer: 5, now: t0) == .admitted(overLimit: true, resumedAfterFailures: nil))
        #expect(other.accepted(connection(10), openOnServer: 1, now: t0) == .admitted(overLimit: false, resumedAfterFailures: nil))
        #expect(other.overLimitCount == 1)
    }

    @Test("requests on a connection over the limit are refused, the others served; its close frees the mark")
    func overLimitRequestsAreRefused() {
        var machine = machine(opening: 1, maxConnections: 1)
        #expect(machine.accepted(connection(2), openOnServer: 1, now: t0) == .admitted(overLimit: true, resumedAfterFailures: nil))
        #expect(machine.requestStarted(request(10), connection: connection(1)) == .init(refuse: false))
        #expect(machine.requestStarted(request(20), connection: connection(2)) == .init(refuse: true))
        #expect(machine.requestStarted(request(21), connection: connection(2)) == .init(refuse: true))
        #expect(machine.connectionClosed(connection(2)) == .init(linger: false))
        #expect(machine.overLimitCount == 0)
        #expect(machine.openConnections == 1)
    }

    @Test("an identifier accepted again replaces the old connection, with its marks")
    func reusedIdentifier() {
        var machine = machine(maxConnections: 1)
        _ = machine.accepted(connection(1), openOnServer: 1, now: t0)
        #expect(machine.overLimitCount == 1)
        _ = machine.outputPending(connection(1), bytes: 5000)
        #expect(machine.throttledCount == 1)
        #expect(machine.accepted(connection(1), openOnServer: 0, now: t0) == .admitted(overLimit: false, resumedAfterFailures: nil))
        #expect(machine.openConnections == 1)
        #expect(machine.overLimitCount == 0)
        #expect(machine.throttledCount == 0)
        #expect(machine.connections[connection(1)]?.reading == true)
    }

    // MARK: requests in flight, close

    @Test("a completed request leaves; a closed connection takes its unfinished requests with it, and only those")
    func inFlight() {
        var machine = machine(opening: 1, 2)
        _ = machine.requestStarted(request(10), connection: connection(1))
        _ = machine.requestStarted(request(20), connection: connection(1))
        _ = machine.requestStarted(request(30), connection: connection(2))
        #expect(machine.requestsInFlight == 3)
        _ = machine.requestCompleted(request(20), connection: connection(1))
        #expect(machine.requestsInFlight == 2)
        #expect(machine.connectionClosed(connection(1)) == .init(linger: false))
        #expect(machine.requestsInFlight == 1)
        #expect(machine.openConnections == 1)
        // Completing a request already gone with its connection changes nothing.
        #expect(machine.requestCompleted(request(10), connection: connection(1)) == .nothing)
        #expect(machine.requestsInFlight == 1)
        _ = machine.requestCompleted(request(30), connection: connection(2))
        #expect(machine.requestsInFlight == 0)
        // A connection never accepted: nothing to forget.
        #expect(machine.connectionClosed(connection(77)) == nil)
        #expect(machine.openConnections == 1)
    }

    @Test("a refused stream lingers at its close; a finished one does not")
    func lingering() {
        var machine = machine(opening: 1, 2)
        #expect(machine.streamFinished(connection(1), refused: true) == .stopReading)
        #expect(machine.streamFinished(connection(2), refused: false) == .stopReading)
        #expect(machine.throttledCount == 2)
        #expect(machine.connectionClosed(connection(1)) == .init(linger: true))
        #expect(machine.connectionClosed(connection(2)) == .init(linger: false))
        #expect(machine.throttledCount == 0)
        #expect(machine.openConnections == 0)
    }

    // MARK: budget

    @Test("reading stops at the pipelined limit and resumes when an answer is written")
    func pipelinedBudget() {
        var machine = machine(opening: 1)
        #expect(machine.framed(connection(1), events(heads: 1, messages: 1)) == .nothing)
        #expect(machine.framed(connection(1), events(heads: 1, messages: 1)) == .stopReading)
        #expect(machine.throttledCount == 1)
        #expect(machine.framed(connection(1), events(heads: 1, messages: 1)) == .nothing, "already stopped")
        _ = machine.requestStarted(request(1), connection: connection(1))
        #expect(machine.requestCompleted(request(1), connection: connection(1)) == .nothing, "still 2 pipelined")
        _ = machine.requestStarted(request(2), connection: connection(1))
        #expect(machine.requestCompleted(request(2), connection: connection(1)) == .resumeReading)
        #expect(machine.throttledCount == 0)
        // Events for a connection the machine does not know change nothing.
        #expect(machine.framed(connection(99), events(heads: 5, messages: 5)) == .nothing)
    }

    @Test("reading stops while more than the output budget waits to be sent, and resumes when the client takes it")
    func outputBudget() {
        var machine = machine(opening: 1)
        #expect(machine.outputPending(connection(1), bytes: 1000) == .nothing)
        #expect(machine.outputPending(connection(1), bytes: 1001) == .stopReading)
        #expect(machine.outputPending(connection(1), bytes: 4000) == .nothing)
        #expect(machine.throttledCount == 1)
        #expect(machine.outputPending(connection(1), bytes: 0) == .resumeReading)
        #expect(machine.throttledCount == 0)
    }

    // MARK: time-outs

    @Test("a connection times out after the time-out without reading or writing, counted from its last activity")
    func idleTimeout() {
        var machine = machine(opening: 1, 2)
        let timeout = Duration.milliseconds(1000)
        #expect(machine.expired(now: at(999), timeout: timeout).isEmpty)
        machine.activity(connection(2), now: at(500))
        #expect(machine.expired(now: at(1000), timeout: timeout) == [connection(1)])
        #expect(machine.expired(now: at(1499), timeout: timeout) == [connection(1)])
        #expect(Set(machine.expired(now: at(1500), timeout: timeout)) == [connection(1), connection(2)])
        // Activity of a connection the machine does not know changes nothing.
        machine.activity(connection(9), now: at(2000))
        #expect(machine.connections[connection(9)] == nil)
    }

    @Test("a head must be whole within the time-out from its first byte, however often bytes of it arrive")
    func slowHead() {
        var machine = machine(opening: 1)
        let timeout = Duration.milliseconds(1000)
        machine.headStarted(connection(1), now: at(100))
        for step in 1...9 { machine.activity(connection(1), now: at(100 * step + 100)) }
        machine.headStarted(connection(1), now: at(900))
        #expect(machine.expired(now: at(1099), timeout: timeout).isEmpty)
        #expect(machine.expired(now: at(1100), timeout: timeout) == [connection(1)], "counted from the first byte of the head")
        machine.headCompleted(connection(1))
        #expect(machine.expired(now: at(1100), timeout: timeout).isEmpty, "whole: the idle time-out counts from the last byte")
    }

    @Test("a closed connection lingers after a refusal, and after an answer while its client has not ended its stream")
    func lingerAfterAnswer() {
        var machine = machine(opening: 1, 2, 3, 4)
        /// An answer that closes connection `id`, written.
        func closingAnswerWritten(_ id: UInt) {
            _ = machine.requestStarted(request(id), connection: connection(id), keepAlive: false)
            #expect(machine.requestAnswered(connection(id), now: t0).closes)
            _ = machine.requestCompleted(request(id), connection: connection(id))
            #expect(machine.outputEmptied(connection(id)) == .close)
        }
        closingAnswerWritten(1)
        #expect(machine.connectionClosed(connection(1)) == .init(linger: true))
        machine.clientEnded(connection(2))
        closingAnswerWritten(2)
        #expect(machine.connectionClosed(connection(2)) == .init(linger: false))
        #expect(machine.connectionClosed(connection(3)) == .init(linger: false), "a time-out: nothing to deliver")
        _ = machine.streamFinished(connection(4), refused: true)
        machine.clientEnded(connection(4))
        #expect(machine.connectionClosed(connection(4)) == .init(linger: true))
    }

    @Test("no time-out while a request is with the handler; it counts again from the answer")
    func handlerHoldsNoTimeout() {
        var machine = machine(opening: 1)
        let timeout = Duration.milliseconds(1000)
        _ = machine.requestStarted(request(1), connection: connection(1))
        #expect(machine.expired(now: at(60_000), timeout: timeout).isEmpty, "the handler is working")
        machine.requestAnswered(connection(1), now: at(60_000))
        #expect(machine.requestsInFlight == 1, "answered, not written yet")
        #expect(machine.expired(now: at(60_999), timeout: timeout).isEmpty)
        // The client does not take the answer: the write time-out closes the connection.
        #expect(machine.expired(now: at(61_000), timeout: timeout) == [connection(1)])
        _ = machine.connectionClosed(connection(1))
        #expect(machine.requestsInFlight == 0)
    }

    // MARK: sweep

    @Test("a buffer of 256 KiB or more makes the third sweep after it hand memory back, once")
    func trim() {
        var machine = machine()
        machine.bufferSeen(bytes: (256 << 10) - 1)
        #expect(machine.sweep() == false)
        machine.bufferSeen(bytes: 256 << 10)
        #expect(machine.sweep() == false)
        #expect(machine.sweep() == false)
        #expect(machine.sweep() == true)
        #expect(machine.sweep() == false)
        // A new large buffer during the countdown restarts it.
        machine.bufferSeen(bytes: 1 << 20)
        _ = machine.sweep()
        machine.bufferSeen(bytes: 1 << 20)
        #expect(machine.sweep() == false)
        #expect(machine.sweep() == false)
        #expect(machine.sweep() == true)
    }

    // MARK: accept back-off

    @Test("EMFILE pauses accepting and reports; the retry resumes; the next accepted connection reports the end of the episode")
    func backoff() {
        var machine = machine()
        #expect(
            machine.acceptFailed(error: EMFILE, now: at(0)) == [
                .backoff(.pause(retryAfter: .milliseconds(100))), .backoff(.reportPaused(reason: EMFILE, failures: 1)),
            ])
        #expect(machine.acceptFailed(error: EMFILE, now: at(5)) == [])
        #expect(machine.acceptRetryDue() == [.backoff(.resume)])
        #expect(
            machine.acceptFailed(error: EMFILE, now: at(110)) == [.backoff(.pause(retryAfter: .milliseconds(100)))],
            "reported within the log interval")
        #expect(machine.acceptRetryDue() == [.backoff(.resume)])
        #expect(machine.accepted(connection(1), openOnServer: 0, now: at(300)) == .admitted(overLimit: false, resumedAfterFailures: 3))
        #expect(machine.accepted(connection(2), openOnServer: 1, now: at(300)) == .admitted(overLimit: false, resumedAfterFailures: nil))
    }

    @Test("after a stop, accept failures and retries do nothing")
    func backoffAfterShutdown() {
        var machine = machine()
        _ = machine.acceptFailed(error: ENFILE, now: at(0))
        _ = machine.shutdownRequested(now: at(1), gracePeriod: .seconds(1))
        #expect(machine.acceptRetryDue() == [])
        #expect(machine.acceptFailed(error: ENFILE, now: at(2)) == [])
    }

    // MARK: shutdown

    @Test("an idle loop stops accepting, marks answers, and exits at once")
    func idleShutdown() {
        var machine = machine()
        #expect(!machine.isDraining)
        #expect(
            machine.shutdownRequested(now: at(0), gracePeriod: .seconds(5))
                == [.stopAccepting, .markDraining, .armDrainTimer(every: .milliseconds(10)), .closeServerAndExit])
        #expect(machine.phase == .stopped)
        #expect(machine.tick(now: at(10)) == nil)
        #expect(machine.shutdownRequested(now: at(20), gracePeriod: .seconds(5)) == [])
    }

    @Test("with requests in flight the loop drains: it exits when the last is answered, or when its connection closes")
    func drainInFlight() {
        var machine = machine(opening: 1, 2)
        _ = machine.requestStarted(request(1), connection: connection(1))
        _ = machine.requestStarted(request(2), connection: connection(2))
        #expect(machine.tick(now: at(0)) == nil, "not draining yet")
        #expect(
            machine.shutdownRequested(now: at(0), gracePeriod: .seconds(5)) == [
                .stopAccepting, .markDraining, .armDrainTimer(every: .milliseconds(10)),
            ])
        #expect(machine.isDraining)
        #expect(machine.phase == .draining(deadline: at(5000)))
        #expect(machine.tick(now: at(10)) == nil)
        _ = machine.requestCompleted(request(1), connection: connection(1))
        #expect(machine.tick(now: at(20)) == nil, "one left")
        _ = machine.connectionClosed(connection(2))
        #expect(machine.tick(now: at(30)) == .closeServerAndExit)
        #expect(machine.tick(now: at(40)) == nil)
    }

    @Test("a request whose head arrived but whose body has not is waited for too")
    func drainWaitsForHeads() {
        var machine = machine(opening: 1)
        _ = machine.framed(connection(1), events(heads: 1, messages: 0))
        #expect(machine.hasRequestsAwaitingAnswer)
        #expect(machine.shutdownRequested(now: at(0), gracePeriod: .seconds(5)).last == .armDrainTimer(every: .milliseconds(10)))
        #expect(machine.tick(now: at(10)) == nil)
        _ = machine.framed(connection(1), events(heads: 0, messages: 1))
        _ = machine.requestStarted(request(1), connection: connection(1))
        #expect(machine.tick(now: at(20)) == nil, "in the handler")
        _ = machine.requestCompleted(request(1), connection: connection(1))
        #expect(!machine.hasRequestsAwaitingAnswer)
        #expect(machine.tick(now: at(30)) == .closeServerAndExit)
    }

    @Test("a refused stream's head does not hold the drain")
    func refusedHeadDoesNotHoldTheDrain() {
        var machine = machine(opening: 1)
        _ = machine.framed(connection(1), events(heads: 1, messages: 0))
        _ = machine.streamFinished(connection(1), refused: true)
        #expect(machine.shutdownRequested(now: at(0), gracePeriod: .seconds(5)).last == .closeServerAndExit)
    }

    @Test("a drain that never finishes ends at the grace period's deadline; a second stop restarts the grace period")
    func drainDeadline() {
        var machine = machine(opening: 1)
        _ = machine.requestStarted(request(1), connection: connection(1))
        _ = machine.shutdownRequested(now: at(0), gracePeriod: .milliseconds(500))
        #expect(machine.tick(now: at(499)) == nil)
        #expect(machine.shutdownRequested(now: at(400), gracePeriod: .milliseconds(500)) == [])
        #expect(machine.phase == .draining(deadline: at(900)))
        #expect(machine.tick(now: at(899)) == nil)
        #expect(machine.tick(now: at(900)) == .closeServerAndExit)
        #expect(machine.requestsInFlight == 1)
    }
}
