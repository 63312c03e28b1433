import Testing

@testable import EventHTTP

/// Lingering close decided by the machine, without a socket: time is a fake clock (instants from
/// `t0`), lingering sockets are plain numbers. (Which closes linger, only refused streams', is in
/// `ConnectionStateMachineTests`.)
@Suite("ConnectionStateMachine: lingering close of refused streams")
struct ConnectionStateMachineLingeringTests: ConnectionStateMachineFixture {
    let t0 = ContinuousClock.now

    func socket(_ value: Int32) -> Machine.LingerID { Machine.LingerID(rawValue: value) }

    /// A machine lingering at most 30 s, with `sockets` lingering since `t0`.
    func lingering(_ sockets: Int32...) -> Machine {
        var machine = machine(lingerTimeout: .seconds(30))
        for value in sockets { #expect(machine.lingerStarted(socket(value), now: t0) == .linger(idleTimeout: .seconds(5))) }
        return machine
    }

    @Test("a lingering socket waits for input at most 5 s at a time, or the whole time-out when that is shorter")
    func idleTimeout() {
        var long = machine(lingerTimeout: .seconds(30))
        #expect(long.lingerStarted(socket(7), now: at(0)) == .linger(idleTimeout: .seconds(5)))
        var short = machine(lingerTimeout: .seconds(2))
        #expect(short.lingerStarted(socket(7), now: at(0)) == .linger(idleTimeout: .seconds(2)))
        #expect(long.lingeringCount == 1)
    }

    @Test("input keeps a socket lingering; a whole idle pause without input closes it")
    func idleClose() {
        var machine = lingering(7)
        #expect(machine.lingerRead(socket(7), now: at(1_000), discardedBytes: 4096, ended: false, idleTimedOut: false) == .keepReading)
        // A busy loop may see the idle time-out fire with input waiting: that input is not idleness.
        #expect(machine.lingerRead(socket(7), now: at(6_000), discardedBytes: 10, ended: false, idleTimedOut: true) == .keepReading)
        #expect(machine.lingerRead(socket(7), now: at(11_000), discardedBytes: 0, ended: false, idleTimedOut: true) == .close)
        #expect(machine.lingeringCount == 0)
        #expect(machine.lingerRead(socket(7), now: at(11_001), discardedBytes: 5, ended: false, idleTimedOut: false) == .close, "forgotten")
    }

    @Test("the end of the client's stream closes a lingering socket at once")
    func endClose() {
        var machine = lingering(7, 8)
        #expect(machine.lingerRead(socket(7), now: at(10), discardedBytes: 100, ended: true, idleTimedOut: false) == .close)
        #expect(machine.lingeringCount == 1)
        #expect(machine.lingerRead(socket(8), now: at(10), discardedBytes: 100, ended: false, idleTimedOut: false) == .keepReading)
    }

    @Test("a client that keeps sending is closed once the connection time-out has passed since the refusal")
    func deadlineClose() {
        var machine = lingering(7)
        #expect(machine.lingerRead(socket(7), now: at(29_999), discardedBytes: 100, ended: false, idleTimedOut: false) == .keepReading)
        #expect(machine.lingerRead(socket(7), now: at(30_000), discardedBytes: 100, ended: false, idleTimedOut: false) == .close)
        #expect(machine.lingeringCount == 0)
    }

    @Test("no more sockets linger than the connection limit: the next one is closed at once and not remembered")
    func limit() {
        var machine = machine(maxConnections: 2, lingerTimeout: .seconds(30))
        #expect(machine.lingerStarted(socket(7), now: at(0)) != .close)
        #expect(machine.lingerStarted(socket(8), now: at(0)) != .close)
        #expect(machine.lingerStarted(socket(9), now: at(0)) == .close)
        #expect(machine.lingeringCount == 2)
        #expect(machine.lingerRead(socket(9), now: at(1), discardedBytes: 1, ended: false, idleTimedOut: false) == .close)
        // One closed: room for another.
        #expect(machine.lingerRead(socket(7), now: at(2), discardedBytes: 0, ended: true, idleTimedOut: false) == .close)
        #expect(machine.lingerStarted(socket(9), now: at(3)) == .linger(idleTimeout: .seconds(5)))
    }

    @Test("when the loop exits every lingering socket is handed back to be closed, and forgotten")
    func exitClosesAll() {
        var machine = lingering(7, 8)
        #expect(Set(machine.endAllLingering().map(\.rawValue)) == [7, 8])
        #expect(machine.lingeringCount == 0)
        #expect(machine.endAllLingering() == [])
    }
}
