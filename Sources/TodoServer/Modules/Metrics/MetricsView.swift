import HTTPValues
import TodoData

/// The metrics module's HTTP adapter: asks the interactor for the exposition and writes its bytes
/// as the body, with the Prometheus text format's media type; it decides nothing.
public struct MetricsView: Sendable {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let interactor: MetricsInteractor
    private let serializer: JSONSerializer

    public init(interactor: MetricsInteractor, serializer: JSONSerializer) {
        self.interactor = interactor
        self.serializer = serializer
    }

    public func handleMetrics(context: RequestContext) -> Pending<HTTPResponse> {
        interactor.exposition().map { [serializer] text in
            serializer.display(ResponseViewModel(status: 200, contentType: Self.contentType, body: RawBody(text)))
        }
    }
}
