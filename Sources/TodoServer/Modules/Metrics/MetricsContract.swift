import HTTPValues

// The metrics module: the Prometheus text exposition (`GET /metrics`). `MetricsView` is the
// router's entry (nothing to decode) and hands the scrape to `MetricsPresenter`.

/// Gathers the current figures (the interactor).
public protocol MetricsUseCases: Sendable {
    /// Refreshes the gauges read at scrape time (the to-do count from the store's statistics)
    /// and renders every metric.
    func exposition(completion: @escaping (MetricsExposition) -> Void)
}

/// Every metric in the Prometheus text format (version 0.0.4), as the registry renders it.
public struct MetricsExposition: Sendable, Equatable {
    public var text: [UInt8]

    public init(text: [UInt8]) {
        self.text = text
    }
}
