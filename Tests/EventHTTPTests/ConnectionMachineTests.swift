import HTTPValues
import Testing

@testable import EventHTTP

/// One connection's machine on its own, without a loop or a socket: its exchange (idle, receiving a
/// body, with the handler, streaming) moved by its transitions, a stream's flow that exists only
/// while it streams, answers to a request that is not the one with the handler, and its time-outs.
/// Time is a fake clock (instants from `t0`).
@Suite("ConnectionMachine: one connection's exchange, answers, streams and time-outs")
struct ConnectionMachineTests {
    let t0 = ContinuousClock.now
    let budget = ConnectionBudget(maxPipelinedRequests: 2, maxOutputBytes: 1000)

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }
    func request(_ value: UInt) -> ConnectionStateMachine.RequestID { .init(rawValue: value) }
    func machine(overLimit: Bool = false, bodyRate: ConnectionMachine.BodyRate? = nil) -> ConnectionMachine {
        ConnectionMachine(overLimit: overLimit, budget: budget, bodyRate: bodyRate, now: t0)
    }

    /// The exchange's case, by name.
    func phase(_ machine: ConnectionMachine) -> String {
        switch machine.exchange {
        case .idle: "idle"
        case .receiving(let head, let body): "receiving \(head.method.rawValue) \(head.uri) \(body.count)"
        case .handling(let request, let isHead): "handling \(request.rawValue)\(isHead ? " HEAD" : "")"
        case .streaming(let stream, _): "streaming \(stream.request.rawValue)"
        }
    }

    @Test("a request goes idle → receiving → (taken) → handling → idle: its body is appended in place and handed over whole")
    func exchange() {
        var machine = machine()
        #expect(phase(machine) == "idle")
        #expect(machine.framesRequests)
        machine.receiving(HTTPRequest(method: .post, uri: "/todos"))
        #expect(phase(machine) == "receiving POST /todos 0")
        machine.appendToBody { $0.append(contentsOf: [1, 2, 3]) }
        machine.appendToBody { $0.append(4) }
        #expect(phase(machine) == "receiving POST /todos 4")
        let request = machine.takeReceived()
        #expect(request?.body == [1, 2, 3, 4])
        #expect(phase(machine) == "idle")
        #expect(machine.takeReceived() == nil, "taken once")
        #expect(machine.requestStarted(self.request(7), isHead: false) == .init(refuse: false))
        #expect(phase(machine) == "handling 7")
        #expect(machine.requestsInFlight == 1)
        #expect(!machine.framesRequests, "one request at a time")
        #expect(machine.requestAnswered(self.request(7), now: at(5)) == .init(closes: false, http10KeepAlive: false))
        #expect(phase(machine) == "idle")
        #expect(machine.lastActivity == at(5))
        #expect(machine.requestsInFlight == 1, "answered, not written")
        #expect(machine.requestCompleted() == .nothing)
        #expect(machine.requestsInFlight == 0)
    }

    @Test("an answer to a request that is not the one with the handler is not sent: answered already, another, or streaming")
    func staleAnswers() {
        var machine = machine()
        #expect(machine.requestAnswered(request(1), now: t0) == nil, "idle")
        _ = machine.requestStarted(request(1), isHead: true)
        #expect(machine.requestAnswered(request(2), now: t0) == nil, "another request")
        #expect(machine.requestAnswered(request(1), now: t0) == .init(closes: false, http10KeepAlive: false, isHead: true))
        #expect(machine.requestAnswered(request(1), now: t0) == nil, "answered already")
        #expect(machine.streamStarted(request(1), now: t0, onEvent: { _ in }) == nil, "no stream after the answer")
        _ = machine.requestStarted(request(3))
        #expect(machine.streamStarted(request(3), now: t0, onEvent: { _ in }) == .init(chunked: true, closes: false))
        #expect(machine.requestAnswered(request(3), now: t0) == nil, "streaming: no second answer inside the body")
        #expect(phase(machine) == "streaming 3")
    }

    @Test("a stream's flow exists only while it streams: its back-pressure is gone with its end, and a new stream starts fresh")
    func flowLivesWithTheStream() {
        var machine = machine()
        #expect(machine.flow == nil)
        machine.streamDrainRequested(below: 10)
        #expect(machine.flow == nil, "no stream: nothing to wait for")
        _ = machine.requestStarted(request(1))
        _ = machine.streamStarted(request(1), now: t0, onEvent: { _ in })
        #expect(machine.streamWrote(queuedBytes: true, pendingBytes: 1500) == .overBound)
        #expect(machine.flow?.overBound == true)
        #expect(machine.streamEnded() == .init(lastChunk: true))
        #expect(machine.flow == nil)
        #expect(phase(machine) == "idle")
        #expect(machine.streamOutputDrained(pendingBytes: 0) == .nothing, "no stream to tell")
        _ = machine.requestStarted(request(2))
        _ = machine.streamStarted(request(2), now: t0, onEvent: { _ in })
        #expect(machine.flow == ConnectionMachine.StreamFlow())
        #expect(machine.streamWrote(queuedBytes: false, pendingBytes: 0) == .accepted, "not waiting")
    }

    @Test("a close cuts a running stream and leaves the exchange idle; a cut-off stream is let go first and hears nothing more")
    func closeAndCutOff() {
        var machine = machine()
        _ = machine.requestStarted(request(1))
        _ = machine.streamStarted(request(1), now: t0, onEvent: { _ in })
        var cut = machine
        #expect(machine.closed() == .init(linger: false, streamCut: true))
        #expect(phase(machine) == "idle")
        cut.streamCutOff()
        #expect(phase(cut) == "idle")
        #expect(cut.closed() == .init(linger: false, streamCut: false))
    }

    @Test("a refusal drops the body that was arriving and ends the stream: nothing more is read, the close lingers")
    func refusalDropsTheBody() {
        var machine = machine()
        machine.receiving(HTTPRequest(method: .put, uri: "/todos/1"))
        machine.appendToBody { $0.append(9) }
        #expect(machine.streamRefused() == .init(reading: .stopReading, framing: .init(closes: true, http10KeepAlive: false)))
        #expect(phase(machine) == "idle")
        #expect(!machine.takesRequests)
        #expect(machine.outputEmptied() == .close)
        #expect(machine.closed() == .init(linger: true))
    }

    @Test("over the limit: its requests are refused and never keep the connection; the handler hears it for a head that waits")
    func overLimit() {
        var machine = machine(overLimit: true)
        #expect(machine.bodyAwaited(expectsContinue: true, bodyArrived: false) == .askHandler(overLimit: true))
        #expect(machine.requestStarted(request(1), isHead: false, keepAlive: true) == .init(refuse: true))
        #expect(machine.requestAnswered(request(1), now: t0)?.closes == true)
    }

    @Test(
        "time-outs on a fake clock: idle from the last activity, none with the handler, a head from its first byte, a slow body refused once"
    )
    func timeouts() {
        let timeout = Duration.seconds(1)
        var machine = machine(bodyRate: .init(bytesPerSecond: 100, gracePeriod: .milliseconds(500)))
        #expect(!machine.isExpired(now: at(999), timeout: timeout))
        #expect(machine.isExpired(now: at(1000), timeout: timeout))
        machine.activity(now: at(900))
        #expect(!machine.isExpired(now: at(1899), timeout: timeout))
        machine.headStarted(now: at(950))
        machine.activity(now: at(1900))
        machine.headStarted(now: at(1900))
        #expect(machine.isExpired(now: at(1950), timeout: timeout), "the head's first byte counts")
        machine.headCompleted()
        #expect(!machine.isExpired(now: at(1950), timeout: timeout))
        machine.receiving(HTTPRequest(method: .post, uri: "/todos"))
        machine.bodyBegan(now: at(2000))
        machine.bodyBytesArrived(count: 49)
        #expect(machine.timeoutsChecked(now: at(2499)) == .nothing, "within the grace period")
        #expect(machine.timeoutsChecked(now: at(2500)) == .refuseSlowBody, "49 bytes in 0.5 s")
        #expect(machine.streamRefused().reading == .stopReading, "the shell writes the 408 as any refusal")
        #expect(machine.timeoutsChecked(now: at(3000)) == .nothing, "refused once")
        #expect(!machine.takesRequests)
        var handling = self.machine()
        _ = handling.requestStarted(request(1))
        #expect(!handling.isExpired(now: at(60_000), timeout: timeout), "the handler is working")
        _ = handling.requestAnswered(request(1), now: at(60_000))
        #expect(handling.isExpired(now: at(61_000), timeout: timeout))
    }

    @Test("what the shell runs: reading stopped and resumed, the close once the closing answer is written, the stream's events, once each")
    func actions() {
        var machine = machine()
        #expect(machine.framed(FramingEvents(headsCompleted: 2, messagesCompleted: 2)) == .stopReading)
        _ = machine.requestStarted(request(1))
        #expect(machine.requestAnswered(request(1), now: t0)?.closes == false)
        #expect(machine.requestCompleted() == .resumeReading)
        #expect(machine.outputEmptied() == .nothing, "kept alive")
        _ = machine.requestStarted(request(2), keepAlive: false)
        _ = machine.streamStarted(request(2), now: t0, onEvent: { _ in })
        #expect(machine.streamClientEnded() == .nothing, "the client has not ended")
        machine.clientEndedStream()
        #expect(machine.streamClientEnded() == .tellStream(.clientEnded))
        #expect(machine.streamClientEnded() == .nothing, "told once")
        machine.streamDrainRequested(below: 100)
        #expect(machine.streamOutputDrained(pendingBytes: 101) == .nothing)
        #expect(machine.streamOutputDrained(pendingBytes: 100) == .tellStream(.drained))
        #expect(machine.streamOutputDrained(pendingBytes: 0) == .nothing, "told once per wait")
        #expect(machine.outputEmptied() == .nothing, "the stream runs: it closes after it")
        machine.streamEnded()
        #expect(machine.outputEmptied() == .close)
    }
}
