import Testing

@testable import EventHTTP

/// When a service round's answers reach the socket: at the end of the loop's turn, asked for once
/// a turn, unless the loop writes at once, the turn is ending, nothing is queued, the socket is
/// blocked or the answer is streamed.
@Suite("ConnectionMachine: writes at the end of the loop's turn")
struct ConnectionMachineTurnEndTests {
    func machine() -> ConnectionMachine {
        ConnectionMachine(
            overLimit: false, budget: ConnectionBudget(maxPipelinedRequests: 2, maxOutputBytes: 1000), now: .now)
    }

    @Test("the first round that queues answers asks the loop once; later rounds of the turn wait; the turn's end starts afresh")
    func onceATurn() {
        var machine = machine()
        #expect(machine.roundQueued(pendingBytes: 120, writeBlocked: false, timing: .atTurnEnd) == .atTurnEnd)
        #expect(machine.awaitsTurnEnd)
        #expect(machine.roundQueued(pendingBytes: 240, writeBlocked: false, timing: .atTurnEnd) == .waiting)
        machine.turnEnded()
        #expect(!machine.awaitsTurnEnd)
        // The turn's end writes them in a round of its own.
        #expect(machine.roundQueued(pendingBytes: 240, writeBlocked: false, timing: .turnEnding) == .now)
        #expect(!machine.awaitsTurnEnd)
        #expect(machine.roundQueued(pendingBytes: 60, writeBlocked: false, timing: .atTurnEnd) == .atTurnEnd)
    }

    @Test("written now: a loop that writes at once, a turn that is ending, nothing queued, a blocked socket")
    func writtenNow() {
        var machine = machine()
        #expect(machine.roundQueued(pendingBytes: 120, writeBlocked: false, timing: .atOnce) == .now)
        #expect(machine.roundQueued(pendingBytes: 120, writeBlocked: false, timing: .turnEnding) == .now)
        #expect(machine.roundQueued(pendingBytes: 0, writeBlocked: false, timing: .atTurnEnd) == .now)
        #expect(machine.roundQueued(pendingBytes: 120, writeBlocked: true, timing: .atTurnEnd) == .now)
        #expect(!machine.awaitsTurnEnd, "none of them waits for the turn's end")
    }

    @Test("a streamed answer is written as its writer flushes, not at the turn's end")
    func streamedAnswer() {
        var machine = machine()
        _ = machine.requestStarted(.init(rawValue: 1))
        #expect(machine.streamStarted(.init(rawValue: 1), now: .now, onEvent: { _ in }) != nil)
        #expect(machine.roundQueued(pendingBytes: 300, writeBlocked: false, timing: .atTurnEnd) == .now)
        #expect(!machine.awaitsTurnEnd)
        machine.streamEnded()
        #expect(machine.roundQueued(pendingBytes: 300, writeBlocked: false, timing: .atTurnEnd) == .atTurnEnd)
    }
}
