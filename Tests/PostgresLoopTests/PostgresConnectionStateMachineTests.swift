import PostgresLoop
import Testing

/// The connection's bookkeeping without a socket: time is a fake clock (instants from `t0`).
@Suite struct PostgresConnectionStateMachineTests {
    typealias Machine = PostgresConnectionStateMachine
    let t0 = ContinuousClock.now
    let timing = PostgresTiming(
        requestTimeout: .seconds(2), connectTimeout: .seconds(3), backoffInitial: .milliseconds(50), backoffCap: .seconds(1))
    let select = PostgresStatement(name: "one", sql: "SELECT 1")

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

    func rows(_ value: String) -> PostgresRows { PostgresRows(columns: ["v"], values: [value], affectedRows: 1) }

    /// A machine connected at t0 with no requests.
    func connectedMachine() -> Machine {
        var machine = Machine(timing: timing)
        _ = machine.start(now: at(0))
        _ = machine.connected(now: at(0))
        return machine
    }

    @Test func requestsQueuedWhileConnectingGoOutInOrderAndEachStatementIsPreparedOnce() {
        var machine = Machine(timing: timing)
        #expect(machine.start(now: at(0)) == [.connect, .armTimer(at: at(3000))])
        #expect(machine.request(1, statement: "one", now: at(10)) == [.armTimer(at: at(2010))])
        #expect(machine.request(2, statement: "one", now: at(20)) == [])
        #expect(machine.request(3, statement: nil, now: at(30)) == [])
        #expect(machine.connected(now: at(40)) == [.send(1, prepare: true), .send(2, prepare: false), .send(3, prepare: false)])
        #expect(machine.request(4, statement: "two", now: at(50)) == [.send(4, prepare: true)])
        #expect(machine.pendingCount == 4)
    }

    @Test func eachRequestCompletesAtItsSyncWithItsOwnRows() {
        var machine = connectedMachine()
        _ = machine.request(1, statement: "one", now: at(1))
        _ = machine.request(2, statement: "one", now: at(2))
        #expect(machine.received(.rows(.command(affectedRows: 0)), now: at(3), jitter: 0) == [])  // the prepare
        #expect(machine.received(.rows(rows("a")), now: at(3), jitter: 0) == [])
        #expect(machine.received(.sync, now: at(3), jitter: 0) == [.succeed(1, rows("a"))])
        #expect(machine.received(.rows(rows("b")), now: at(4), jitter: 0) == [])
        #expect(machine.received(.sync, now: at(4), jitter: 0) == [.succeed(2, rows("b"))])
        #expect(machine.pendingCount == 0)
        #expect(!machine.expectsResults)
    }

    @Test func aRequestWhoseDeadlineHasPassedFailsAsTimedOutUnsent() {
        var machine = connectedMachine()
        #expect(machine.request(1, statement: "one", now: at(100), deadline: at(100)) == [.fail(1, .timedOut)])
        #expect(machine.request(2, statement: "one", now: at(100), deadline: at(50)) == [.fail(2, .timedOut)])
        #expect(machine.pendingCount == 0)
        // One with time left is sent (and prepared) as usual.
        #expect(machine.request(3, statement: "one", now: at(100), deadline: at(101)).contains(.send(3, prepare: true)))
        var connecting = Machine(timing: timing)
        _ = connecting.start(now: at(0))
        #expect(connecting.request(4, statement: nil, now: at(10), deadline: at(5)) == [.fail(4, .timedOut)])
    }

    @Test func anErrorFailsOnlyItsOwnRequest() {
        var machine = connectedMachine()
        _ = machine.request(1, statement: nil, now: at(1))
        _ = machine.request(2, statement: nil, now: at(1))
        let error = ServerError(sqlState: "22012", message: "division by zero")
        #expect(machine.received(.error(error), now: at(2), jitter: 0) == [])
        #expect(machine.received(.sync, now: at(2), jitter: 0) == [.fail(1, .server(error))])
        #expect(machine.received(.rows(rows("ok")), now: at(2), jitter: 0) == [])
        #expect(machine.received(.sync, now: at(2), jitter: 0) == [.succeed(2, rows("ok"))])
        #expect(machine.isReady)
    }

    @Test func aFailedPrepareFailsItsRequestAndIsPreparedAgainNextTime() {
        var machine = connectedMachine()
        #expect(machine.request(1, statement: "bad", now: at(1)) == [.send(1, prepare: true), .armTimer(at: at(2001))])
        let error = ServerError(sqlState: "42P01", message: "relation does not exist")
        _ = machine.received(.error(error), now: at(2), jitter: 0)
        _ = machine.received(.aborted, now: at(2), jitter: 0)
        #expect(machine.received(.sync, now: at(2), jitter: 0) == [.fail(1, .server(error))])
        #expect(machine.request(2, statement: "bad", now: at(3)) == [.send(2, prepare: true)])
    }

    let cancelled = ServerError(sqlState: "57014", message: "canceling statement due to user request")

    @Test func anOverdueRequestIsAnsweredAndCancelledAndTheOthersOnTheConnectionCarryOn() {
        var machine = connectedMachine()
        #expect(machine.request(1, statement: nil, now: at(100)) == [.send(1, prepare: false), .armTimer(at: at(2100))])
        #expect(machine.request(2, statement: nil, now: at(200)) == [.send(2, prepare: false)])
        // The timer firing early (re-armed for the head) changes nothing.
        #expect(machine.timerFired(now: at(2000), jitter: 1) == [.armTimer(at: at(2100))])
        #expect(machine.timerFired(now: at(2100), jitter: 1) == [.fail(1, .timedOut), .cancel(1), .armTimer(at: at(2200))])
        #expect(machine.pendingCount == 1)
        #expect(machine.inFlightCount == 2)
        // The cancelled statement's error is dropped (request 1 was answered); request 2 is served.
        #expect(machine.received(.error(cancelled), now: at(2110), jitter: 0) == [])
        #expect(machine.received(.sync, now: at(2110), jitter: 0) == [])
        #expect(machine.received(.rows(rows("2")), now: at(2120), jitter: 0) == [])
        #expect(machine.received(.sync, now: at(2120), jitter: 0) == [.succeed(2, rows("2"))])
        #expect(machine.phase == .ready)
        #expect(machine.inFlightCount == 0)
        // (The timer armed for 2200 stays: it fires early and re-arms for request 3.)
        #expect(machine.request(3, statement: nil, now: at(2130)) == [.send(3, prepare: false)])
        #expect(machine.timerFired(now: at(2200), jitter: 0) == [.armTimer(at: at(4130))])
    }

    @Test func aCancelThatStopsTheNextStatementMakesItInterruptedWhichIsRetryable() {
        var machine = connectedMachine()
        _ = machine.request(1, statement: nil, now: at(100))
        _ = machine.request(2, statement: nil, now: at(200))
        _ = machine.timerFired(now: at(2100), jitter: 0)
        // Statement 1 ended on its own just before the cancel arrived, which then stopped statement 2.
        #expect(machine.received(.rows(rows("1")), now: at(2101), jitter: 0) == [])
        #expect(machine.received(.sync, now: at(2101), jitter: 0) == [])
        #expect(machine.received(.error(cancelled), now: at(2102), jitter: 0) == [])
        #expect(machine.received(.sync, now: at(2102), jitter: 0) == [.fail(2, .interrupted)])
        #expect(PostgresError.interrupted.isRetryable)
        // With no cancel sent, a 57014 is the session's statement_timeout: a time-out.
        _ = machine.request(3, statement: nil, now: at(2200))
        #expect(machine.received(.error(cancelled), now: at(2300), jitter: 0) == [])
        #expect(machine.received(.sync, now: at(2300), jitter: 0) == [.fail(3, .timedOut)])
    }

    @Test func aCancelledStatementThatDoesNotEndWithinTheGraceDropsTheConnection() {
        var machine = connectedMachine()
        _ = machine.request(1, statement: nil, now: at(100))
        _ = machine.request(2, statement: nil, now: at(200))
        #expect(machine.timerFired(now: at(2100), jitter: 1) == [.fail(1, .timedOut), .cancel(1), .armTimer(at: at(2200))])
        // Request 2 passes its deadline behind it: answered, no second cancel (1 still runs).
        #expect(machine.timerFired(now: at(2200), jitter: 1) == [.fail(2, .timedOut), .armTimer(at: at(3100))])
        _ = machine.request(3, statement: nil, now: at(2300))
        #expect(
            machine.timerFired(now: at(3100), jitter: 1) == [
                .closeConnection,
                .fail(3, .connectionLost(reason: "connection dropped: a cancelled statement did not end")),
                .scheduleReconnect(after: .milliseconds(50)),
            ])
        #expect(machine.pendingCount == 0)
        #expect(
            machine.request(4, statement: nil, now: at(3101)) == [
                .fail(4, .unavailable(reason: "a cancelled statement did not end within 1.0 seconds"))
            ])
    }

    @Test func aLostConnectionFailsEveryPendingRequestAndReconnectsWithBackoffThenPreparesAgain() {
        var machine = connectedMachine()
        _ = machine.request(1, statement: "one", now: at(1))
        _ = machine.request(2, statement: "one", now: at(1))
        #expect(
            machine.connectionLost(reason: "server closed the connection", now: at(5), jitter: 0) == [
                .closeConnection,
                .fail(1, .connectionLost(reason: "server closed the connection")),
                .fail(2, .connectionLost(reason: "server closed the connection")),
                .scheduleReconnect(after: .milliseconds(25)),
            ])
        // The timer armed for request 1 is still set: it fires, finds nothing due, and re-arms.
        #expect(machine.reconnectDue(now: at(30)) == [.connect])
        // Refused while the database is down: the back-off grows (jitter 1 takes the whole step).
        var delays: [Duration] = []
        for attempt in 0..<7 {
            let actions = machine.connectFailed(reason: "refused", now: at(100 * attempt), jitter: 1)
            for case .scheduleReconnect(let delay) in actions { delays.append(delay) }
            _ = machine.reconnectDue(now: at(100 * attempt + 50))
        }
        #expect(delays == [100, 200, 400, 800, 1000, 1000, 1000].map { Duration.milliseconds($0) })
        _ = machine.connected(now: at(1000))
        #expect(machine.request(3, statement: "one", now: at(1001)) == [.send(3, prepare: true)])
        #expect(machine.timerFired(now: at(2001), jitter: 0) == [.armTimer(at: at(3001))])
    }

    @Test func requestsWaitingForAConnectionFailAsUnavailableWhenItCannotBeMade() {
        var machine = Machine(timing: timing)
        _ = machine.start(now: at(0))
        _ = machine.request(1, statement: nil, now: at(10))
        #expect(
            machine.timerFired(now: at(2010), jitter: 0) == [
                .fail(1, .unavailable(reason: "no connection within the request deadline")), .armTimer(at: at(3000)),
            ])
        _ = machine.request(2, statement: nil, now: at(2500))
        #expect(
            machine.timerFired(now: at(3000), jitter: 0) == [
                .closeConnection, .fail(2, .unavailable(reason: "no connection within 3.0 seconds")),
                .scheduleReconnect(after: .milliseconds(25)),
            ])
    }

    @Test func closeFailsEverythingAndRefusesLaterRequests() {
        var machine = connectedMachine()
        _ = machine.request(1, statement: nil, now: at(1))
        #expect(machine.close() == [.closeConnection, .fail(1, .closed)])
        #expect(machine.request(2, statement: nil, now: at(2)) == [.fail(2, .closed)])
        #expect(machine.reconnectDue(now: at(3)) == [])
    }

    @Test func aResultNobodyWaitsForIsTreatedAsABrokenConnection() {
        var machine = connectedMachine()
        _ = machine.request(1, statement: nil, now: at(1))
        let actions = machine.received(.sync, now: at(2), jitter: 0)
        #expect(actions.first == .closeConnection)
        #expect(actions.contains(.fail(1, .connectionLost(reason: "unexpected result sync while awaiting awaitingResult"))))
        #expect(machine.phase == .backingOff(reason: "unexpected result sync while awaiting awaitingResult"))
    }

    @Test func onlySerializationFailuresAndDeadlocksAreRetryable() {
        #expect(PostgresError.server(ServerError(sqlState: "40001", message: "")).isRetryable)
        #expect(PostgresError.server(ServerError(sqlState: "40P01", message: "")).isRetryable)
        #expect(!PostgresError.server(ServerError(sqlState: "23505", message: "")).isRetryable)
        #expect(!PostgresError.timedOut.isRetryable)
        #expect(PostgresError.interrupted.isRetryable)
        #expect(!PostgresError.connectionLost(reason: "x").isRetryable)
    }
}
