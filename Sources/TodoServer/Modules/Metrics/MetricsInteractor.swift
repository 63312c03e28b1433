import CoreMetrics
import LockTracing
import Prometheus
import Synchronization
import TodoData

// The metrics module: the Prometheus text exposition (`GET /metrics`). `MetricsView` is the
// router's entry (nothing to decode); it writes what `MetricsInteractor` renders, as it is.

/// Sets the scrape-time gauges (to-dos stored, open connections) and renders the registry.
public struct MetricsInteractor: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let store: any TodoStore
    private let openConnections: @Sendable () -> Int
    private let todosGauge: CoreMetrics.Gauge
    private let connectionsGauge: CoreMetrics.Gauge
    private let droppedLogLines: @Sendable () -> Int
    private let droppedCounter: CoreMetrics.Counter
    /// The dropped-line count already added to the counter.
    private let droppedReported = ReportedCount()

    private final class ReportedCount: Sendable {
        let value = Mutex<Int>(0)
    }

    public init(
        registry: PrometheusCollectorRegistry, factory: any MetricsFactory, store: any TodoStore,
        openConnections: @escaping @Sendable () -> Int, droppedLogLines: @escaping @Sendable () -> Int = { 0 }
    ) {
        self.registry = registry
        self.store = store
        self.openConnections = openConnections
        todosGauge = CoreMetrics.Gauge(label: "todos", factory: factory)
        connectionsGauge = CoreMetrics.Gauge(label: "http_open_connections", factory: factory)
        self.droppedLogLines = droppedLogLines
        droppedCounter = CoreMetrics.Counter(label: "log_lines_dropped_total", factory: factory)
    }

    /// Every metric in the Prometheus text format (version 0.0.4), as the registry renders it,
    /// after the gauges read at scrape time are set. A store that cannot say how many to-dos it
    /// holds leaves its gauge at its last value.
    public func exposition() -> Pending<[UInt8]> {
        store.statistics().map { result in
            if case .success(let statistics) = result { todosGauge.record(statistics.count) }
            return render()
        }
    }

    private func render() -> [UInt8] {
        connectionsGauge.record(openConnections())
        let dropped = droppedLogLines()
        let added = droppedReported.value.withTracedLock { reported in
            defer { reported = max(reported, dropped) }
            return dropped - reported
        }
        if added > 0 { droppedCounter.increment(by: added) }
        return registry.emitToBuffer()
    }
}
