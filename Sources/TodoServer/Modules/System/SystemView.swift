import EventHTTP

/// Writes the system module's view models as JSON responses; it decides nothing.
public struct SystemView: SystemDisplay {
    private let serializer: JSONSerializer

    public init(serializer: JSONSerializer) {
        self.serializer = serializer
    }

    public func displayIndex(_ model: ResponseViewModel<IndexViewModel>, respond: Respond) {
        respond(serializer.response(for: model))
    }

    public func displayHealth(_ model: ResponseViewModel<HealthViewModel>, respond: Respond) {
        respond(serializer.response(for: model))
    }

    public func displayDocument(_ model: ResponseViewModel<RawBody>, respond: Respond) {
        respond(serializer.response(for: model))
    }
}
