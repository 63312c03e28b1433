import EventHTTP

// The metrics module: the Prometheus text exposition (`GET /metrics`).

/// The module's entry for the router (the presenter).
public protocol MetricsModuleInput: Sendable {
    func presentMetrics(context: RequestContext, respond: @escaping Respond)
}

/// Gathers the current figures (the interactor).
public protocol MetricsUseCases: Sendable {
    /// Refreshes the gauges read at scrape time (the to-do count from the store's statistics)
    /// and renders every metric.
    func exposition(completion: @escaping (RawBody) -> Void)
}

/// The view: writes the exposition as it is.
public protocol MetricsDisplay: Sendable {
    func displayMetrics(_ model: ResponseViewModel<RawBody>, respond: Respond)
}
