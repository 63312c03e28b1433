import CoreMetrics
import PostgresLoop
import Synchronization

/// Where the PostgreSQL store's requests spent their time (`PostgresRequestPhases`), as histograms
/// in `/metrics`: `db_request_phase_seconds{phase}` (`queued` for a connection, in the connection's
/// `pipeline` behind other requests, the `statement` itself, the `answer` on the loop) and
/// `db_requests_ahead`, how many requests were in flight before each one on its connection; one
/// histogram of each per loop (label `loop`, numbered in the order the loops first used the store).
/// `Benchmarks/postgres-peer.sh` prints their percentiles per workload.
package struct PostgresPhaseMetrics: Sendable {
    package static let phaseLabel = "db_request_phase_seconds"
    package static let aheadLabel = "db_requests_ahead"
    /// `db_requests_ahead`'s buckets.
    package static let aheadBuckets: [Double] = [0, 1, 2, 4, 8, 16, 32, 64, 128, 256]
    /// `db_request_phase_seconds`' buckets: doubling from 25 µs, fine enough to tell a tail's phase.
    package static let phaseBuckets: [Duration] = (0..<16).map { .microseconds(25 << $0) } + [.seconds(5)]

    private let queued: CoreMetrics.Timer
    private let pipeline: CoreMetrics.Timer
    private let statement: CoreMetrics.Timer
    private let answer: CoreMetrics.Timer
    private let ahead: CoreMetrics.Recorder

    /// The histograms of one loop's pool (label `loop`, as `http_request_duration_seconds`): a
    /// loop records into its own, so loops share no lock.
    init(factory: any MetricsFactory, loop: Int) {
        func timer(_ phase: String) -> CoreMetrics.Timer {
            CoreMetrics.Timer(label: Self.phaseLabel, dimensions: [("loop", String(loop)), ("phase", phase)], factory: factory)
        }
        queued = timer("queued")
        pipeline = timer("pipeline")
        statement = timer("statement")
        answer = timer("answer")
        ahead = CoreMetrics.Recorder(label: Self.aheadLabel, dimensions: [("loop", String(loop))], aggregate: true, factory: factory)
    }

    func record(_ phases: PostgresRequestPhases) {
        queued.recordNanoseconds(phases.queued.wholeNanoseconds)
        pipeline.recordNanoseconds(phases.inPipeline.wholeNanoseconds)
        statement.recordNanoseconds(phases.statement.wholeNanoseconds)
        answer.recordNanoseconds(phases.answer.wholeNanoseconds)
        ahead.record(phases.ahead)
    }
}

extension PostgresTodoStore {
    /// Records where each request's time goes into `factory`'s histograms (`PostgresPhaseMetrics`):
    /// the requests of the server's loops, not the change feed's on the store's own loop.
    public func recordPhases(into factory: any MetricsFactory) {
        let pools = Atomic<Int>(0)
        client.observePhases(skipping: ownLoop) {
            let metrics = PostgresPhaseMetrics(factory: factory, loop: pools.wrappingAdd(1, ordering: .relaxed).oldValue)
            return { metrics.record($0) }
        }
    }
}
