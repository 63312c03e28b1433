import Testing

@testable import EventHTTP

/// The prologue the machines' suites share: time is a fake clock (instants from `t0`),
/// connections and requests are plain numbers, and a machine is a loop's machine with its
/// connections' (`LoopMachines`, composed as the shells compose them), of a server of at most
/// `maxConnections`, 2 pipelined requests and 1000 unsent bytes per connection.
protocol ConnectionStateMachineFixture {
    typealias Machine = LoopMachines
    var t0: ContinuousClock.Instant { get }
}

extension ConnectionStateMachineFixture {
    func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }
    func connection(_ value: UInt) -> Machine.ConnectionID { Machine.ConnectionID(rawValue: value) }
    func request(_ value: UInt) -> Machine.RequestID { Machine.RequestID(rawValue: value) }

    /// A machine for a server of at most `maxConnections`, 2 pipelined requests and 1000 unsent
    /// bytes per connection, lingering at most `lingerTimeout`, with `bodyRate` (nil: no minimum).
    func machine(maxConnections: Int = 10, lingerTimeout: Duration = .seconds(60), bodyRate: Machine.BodyRate? = nil) -> Machine {
        Machine(
            loop: ConnectionStateMachine(
                maxConnections: maxConnections, budget: ConnectionBudget(maxPipelinedRequests: 2, maxOutputBytes: 1000),
                acceptRetryInterval: .milliseconds(100), acceptLogInterval: .seconds(1), drainInterval: .milliseconds(10),
                lingerTimeout: lingerTimeout, bodyRate: bodyRate))
    }

    /// `machine(maxConnections:lingerTimeout:bodyRate:)`'s machine with connections `ids` opened.
    func machine(
        opening ids: UInt..., maxConnections: Int = 10, lingerTimeout: Duration = .seconds(60), bodyRate: Machine.BodyRate? = nil
    ) -> Machine {
        var machine = machine(maxConnections: maxConnections, lingerTimeout: lingerTimeout, bodyRate: bodyRate)
        for id in ids { open(id, in: &machine) }
        return machine
    }

    /// Connection `id` accepted at `t0` with no other connection open on the server: admitted below the limit.
    func open(_ id: UInt, in machine: inout Machine) {
        #expect(machine.accepted(connection(id), openOnServer: 0, now: t0) == .admitted(overLimit: false, resumedAfterFailures: nil))
    }
}
