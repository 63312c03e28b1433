import CoreMetrics
import Prometheus

/// Sets the scrape-time gauges (to-dos stored, open connections) and renders the registry.
public struct MetricsInteractor: MetricsUseCases {
    private let registry: PrometheusCollectorRegistry
    private let store: any TodoStore
    private let openConnections: @Sendable () -> Int
    private let todosGauge: CoreMetrics.Gauge
    private let connectionsGauge: CoreMetrics.Gauge

    public init(
        registry: PrometheusCollectorRegistry, factory: any MetricsFactory, store: any TodoStore,
        openConnections: @escaping @Sendable () -> Int
    ) {
        self.registry = registry
        self.store = store
        self.openConnections = openConnections
        todosGauge = CoreMetrics.Gauge(label: "todos", factory: factory)
        connectionsGauge = CoreMetrics.Gauge(label: "http_open_connections", factory: factory)
    }

    public func exposition() -> RawBody {
        todosGauge.record(store.count)
        connectionsGauge.record(openConnections())
        return RawBody(registry.emitToBuffer())
    }
}
