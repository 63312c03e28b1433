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
        #expect(machine.roundQueued(pendingBytes: 120, writeBlocked: false, timing: .atTurnEnd, turnBytes: 0) == .atTurnEnd)
        #expect(machine.awaitsTurnEnd)
        #expect(machine.roundQueued(pendingBytes: 240, writeBlocked: false, timing: .atTurnEnd, turnBytes: 0) == .waiting)
        machine.turnEnded()
        #expect(!machine.awaitsTurnEnd)
        // The turn's end writes them in a round of its own.
        #expect(machine.roundQueued(pendingBytes: 240, writeBlocked: false, timing: .turnEnding, turnBytes: 0) == .now)
        #expect(!machine.awaitsTurnEnd)
        #expect(machine.roundQueued(pendingBytes: 60, writeBlocked: false, timing: .atTurnEnd, turnBytes: 0) == .atTurnEnd)
    }

    @Test("written now: a loop that writes at once, a turn that is ending, nothing queued, a blocked socket")
    func writtenNow() {
        var machine = machine()
        #expect(machine.roundQueued(pendingBytes: 120, writeBlocked: false, timing: .atOnce, turnBytes: 0) == .now)
        #expect(machine.roundQueued(pendingBytes: 120, writeBlocked: false, timing: .turnEnding, turnBytes: 0) == .now)
        #expect(machine.roundQueued(pendingBytes: 0, writeBlocked: false, timing: .atTurnEnd, turnBytes: 0) == .now)
        #expect(machine.roundQueued(pendingBytes: 120, writeBlocked: true, timing: .atTurnEnd, turnBytes: 0) == .now)
        #expect(!machine.awaitsTurnEnd, "none of them waits for the turn's end")
    }

    @Test("a streamed answer is written as its writer flushes, not at the turn's end")
    func streamedAnswer() {
        var machine = machine()
        _ = machine.requestStarted(.init(rawValue: 1))
        #expect(machine.streamStarted(.init(rawValue: 1), now: .now, onEvent: { _ in }) != nil)
        #expect(machine.roundQueued(pendingBytes: 300, writeBlocked: false, timing: .atTurnEnd, turnBytes: 0) == .now)
        #expect(!machine.awaitsTurnEnd)
        machine.streamEnded()
        #expect(machine.roundQueued(pendingBytes: 300, writeBlocked: false, timing: .atTurnEnd, turnBytes: 0) == .atTurnEnd)
    }

    @Test("up to turnWriteBytes a turn: an answer that would take the turn past them is written now, as is one larger on its own")
    func turnBudget() {
        let bound = ConnectionMachine.turnWriteBytes
        #expect(bound == 65_536)
        var machine = machine()
        #expect(machine.roundQueued(pendingBytes: 1000, writeBlocked: false, timing: .atTurnEnd, turnBytes: bound - 1000) == .atTurnEnd)
        machine.turnEnded()
        #expect(machine.roundQueued(pendingBytes: 1001, writeBlocked: false, timing: .atTurnEnd, turnBytes: bound - 1000) == .now)
        #expect(!machine.awaitsTurnEnd)
        #expect(machine.roundQueued(pendingBytes: bound + 1, writeBlocked: false, timing: .atTurnEnd, turnBytes: 0) == .now)
        #expect(machine.roundQueued(pendingBytes: bound, writeBlocked: false, timing: .atTurnEnd, turnBytes: 0) == .atTurnEnd)
    }
}
