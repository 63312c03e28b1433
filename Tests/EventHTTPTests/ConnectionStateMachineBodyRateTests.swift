import Testing

@testable import EventHTTP

/// The minimum body rate, decided by the machine without a socket: a body that trickles in is
/// refused once its grace period is over, however often its bytes reset the time-out; a body at
/// the rate is not. Time is a fake clock (instants from `t0`).
@Suite("ConnectionStateMachine: the minimum request-body rate")
struct ConnectionStateMachineBodyRateTests: ConnectionStateMachineFixture {
    let t0 = ContinuousClock.now
    let timeout = Duration.seconds(3)
    /// Bodies must average 100 bytes/s after a grace period of 2 s.
    let rate = Machine.BodyRate(bytesPerSecond: 100, gracePeriod: .seconds(2))

    /// `bytes` of connection `id`'s body arrive at `milliseconds` (read, so the time-out restarts).
    func arrive(_ bytes: Int, on id: UInt, at milliseconds: Int, in machine: inout Machine) {
        machine.activity(connection(id), now: at(milliseconds))
        machine.bodyBytesArrived(connection(id), count: bytes)
    }

    @Test("a body trickling in below the rate is refused once the grace period is over, though each byte resets the time-out")
    func trickle() {
        var machine = machine(opening: 1, bodyRate: rate)
        machine.bodyBegan(connection(1), now: at(0))
        // One byte a second: the time-out (3 s) never passes.
        arrive(1, on: 1, at: 1000, in: &machine)
        #expect(machine.slowBodies(now: at(1999)).isEmpty, "1 byte in 1999 ms: within the grace period")
        for second in 2...5 {
            arrive(1, on: 1, at: second * 1000, in: &machine)
            #expect(machine.expired(now: at(second * 1000 + 999), timeout: timeout).isEmpty)
        }
        #expect(machine.slowBodies(now: at(5999)) == [connection(1)], "5 bytes in 6 s, 600 needed")
        // Refused: nothing more is read or framed, it closes once the 408 is written, lingering.
        #expect(!machine.takesRequests(connection(1)))
        #expect(machine.throttledCount == 1)
        #expect(machine.outputEmptied(connection(1)) == .close)
        #expect(machine.slowBodies(now: at(9000)).isEmpty, "refused once")
        #expect(machine.connectionClosed(connection(1)) == .init(linger: true))
    }

    @Test("a body averaging the rate is not refused, slow start included; the rate counts from the head")
    func atTheRate() {
        var machine = machine(opening: 1, 2, bodyRate: rate)
        machine.bodyBegan(connection(1), now: at(0))
        machine.bodyBegan(connection(2), now: at(0))
        // Connection 1: nothing for 1.5 s, then 1000 bytes (the rate's worth for 10 s). Connection
        // 2: 99 bytes a second, just below the rate. Checked every second.
        arrive(1000, on: 1, at: 1500, in: &machine)
        var slow: [Machine.ConnectionID] = []
        for second in 1...9 {
            arrive(99, on: 2, at: second * 1000, in: &machine)
            slow += machine.slowBodies(now: at(second * 1000))
        }
        #expect(slow == [connection(2)], "99 bytes a second is below 100")
        #expect(machine.takesRequests(connection(1)))
        // The body ends (its request goes to the handler): its rate is no longer checked.
        _ = machine.requestStarted(request(1), connection: connection(1))
        machine.requestAnswered(connection(1), now: at(9000))
        #expect(machine.slowBodies(now: at(60_000)).isEmpty)
    }

    @Test("with no body being read, or no minimum configured, nothing is checked")
    func nothingToCheck() {
        var idle = machine(opening: 1, bodyRate: rate)
        #expect(idle.slowBodies(now: at(60_000)).isEmpty, "no body")
        var unlimited = machine(opening: 1)
        unlimited.bodyBegan(connection(1), now: at(0))
        #expect(unlimited.connections[connection(1)]?.bodyStarted == nil)
        #expect(unlimited.slowBodies(now: at(60_000)).isEmpty)
    }

    @Test("a body refused by the framing is not refused again")
    func refusedByTheFraming() {
        var machine = machine(opening: 1, bodyRate: rate)
        machine.bodyBegan(connection(1), now: at(0))
        _ = machine.streamFinished(connection(1), refused: true)
        #expect(machine.slowBodies(now: at(60_000)).isEmpty)
    }

    @Test("while the server does not read the connection (its client leaves answers unread), the body's clock starts again")
    func notReadIsNotSlow() {
        var machine = machine(opening: 1, bodyRate: rate)
        machine.bodyBegan(connection(1), now: at(0))
        #expect(machine.outputPending(connection(1), bytes: 5000) == .stopReading)
        #expect(machine.slowBodies(now: at(10_000)).isEmpty, "not read: not the client's delay")
        #expect(machine.outputPending(connection(1), bytes: 0) == .resumeReading)
        #expect(machine.slowBodies(now: at(11_999)).isEmpty, "a new grace period from 10 s")
        #expect(machine.slowBodies(now: at(12_000)) == [connection(1)])
    }
}
