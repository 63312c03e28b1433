import Testing

@testable import EventHTTP

/// How much of a loop's turn one connection takes, decided by the machine: 16 rounds of service
/// and 8 of a stream's refills, then the rest in a later turn.
@Suite("ConnectionStateMachine: a connection's share of a loop's turn")
struct ConnectionStateMachineFairnessTests: ConnectionStateMachineFixture {
    let t0 = ContinuousClock.now

    @Test("service goes on while input is left and requests may be framed, for 15 more rounds; the 16th yields the turn")
    func serviceRounds() {
        let machine = machine(opening: 1)
        for round in 1..<16 {
            #expect(machine.afterServiceRound(connection(1), round: round, moreInput: true) == .again, "round \(round)")
            #expect(machine.afterServiceRound(connection(1), round: round, moreInput: false) == .done, "round \(round)")
        }
        #expect(machine.afterServiceRound(connection(1), round: 16, moreInput: true) == .yieldTurn)
        #expect(machine.afterServiceRound(connection(1), round: 16, moreInput: false) == .done)
        #expect(Machine.serviceRoundsPerTurn == 16)
    }

    @Test("a connection that may not frame now (a request with the handler, or one it does not know) waits for its answer, not for a turn")
    func serviceWaitsForAnswer() {
        var machine = machine(opening: 1)
        _ = machine.requestStarted(Machine.RequestID(rawValue: 1), connection: connection(1), keepAlive: true, http10: false)
        #expect(machine.afterServiceRound(connection(1), round: 1, moreInput: true) == .done)
        #expect(machine.afterServiceRound(connection(9), round: 1, moreInput: true) == .done)
        // At the last round what is left waits for a later turn whatever the connection's state.
        #expect(machine.afterServiceRound(connection(1), round: 16, moreInput: true) == .yieldTurn)
    }

    @Test(
        "a flush goes on while the stream refills, for 7 more rounds; after the 8th, bytes left for a socket that took all so far go out in a later turn"
    )
    func flushRounds() {
        let machine = machine(opening: 1)
        for round in 1..<8 {
            #expect(machine.afterFlushRound(round: round, refilled: true, writeBlocked: false, pendingBytes: 10) == .again)
            #expect(machine.afterFlushRound(round: round, refilled: false, writeBlocked: false, pendingBytes: 10) == .done)
        }
        #expect(machine.afterFlushRound(round: 8, refilled: true, writeBlocked: false, pendingBytes: 10) == .yieldTurn)
        #expect(
            machine.afterFlushRound(round: 8, refilled: true, writeBlocked: true, pendingBytes: 10) == .done, "the socket's edge resumes it"
        )
        #expect(machine.afterFlushRound(round: 8, refilled: true, writeBlocked: false, pendingBytes: 0) == .done)
        #expect(machine.afterFlushRound(round: 8, refilled: false, writeBlocked: false, pendingBytes: 10) == .done)
        #expect(Machine.flushRoundsPerTurn == 8)
    }
}
