import EventHTTP

/// Writes the exposition bytes as the body; it decides nothing.
public struct MetricsView: MetricsDisplay {
    private let serializer: JSONSerializer

    public init(serializer: JSONSerializer) {
        self.serializer = serializer
    }

    public func displayMetrics(_ model: ResponseViewModel<RawBody>, respond: Respond) {
        respond(serializer.response(for: model))
    }
}
