import HTTPValues
import TodoData

/// The system module's HTTP adapter: shapes what the interactor says into the index (absolute
/// links), the health status and the document, and writes them as JSON responses.
public struct SystemView: Sendable {
    private let interactor: SystemInteractor
    private let serializer: JSONSerializer

    public init(interactor: SystemInteractor, serializer: JSONSerializer) {
        self.interactor = interactor
        self.serializer = serializer
    }

    public func handleIndex(context: RequestContext) -> Pending<HTTPResponse> {
        let info = interactor.serviceInfo()
        var links: [String: String] = [:]
        for route in info.routes { links[route.rel] = context.baseURL + route.path }
        let model = IndexViewModel(name: info.name, version: info.version, build: info.build, links: links)
        return .ready(serializer.display(ResponseViewModel(status: 200, body: model)))
    }

    /// Up (200) or down (503) for anyone; the count and the reason only when `detailed` (the
    /// router's token decision: the reason may quote the store's own message, a socket path, a host).
    public func handleHealth(detailed: Bool, context: RequestContext) -> Pending<HTTPResponse> {
        interactor.health().map { [serializer] health in
            let status = health.healthy ? "ok" : "unavailable"
            let model =
                detailed
                ? HealthViewModel(status: status, todos: health.todoCount, reason: health.reason) : HealthViewModel(status: status)
            return serializer.display(ResponseViewModel(status: health.healthy ? 200 : 503, body: model))
        }
    }

    /// The document as it is, but for its `servers` URL: the base URL of this request (the public
    /// URL, else `Host`), so a client generated from it calls the server it was fetched from.
    public func handleOpenAPIDocument(context: RequestContext) -> Pending<HTTPResponse> {
        .ready(serializer.display(ResponseViewModel(status: 200, body: RawBody(interactor.openAPIDocument(serverURL: context.baseURL)))))
    }
}

/// The index body: name, version, build info and absolute links by relation.
public struct IndexViewModel: JSONWritable, Sendable, Equatable {
    public var name: String
    public var version: String
    public var build: [String: String]
    public var links: [String: String]

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("build")
        build.write(to: &writer)
        writer.key("links")
        links.write(to: &writer)
        writer.key("name")
        writer.string(name)
        writer.key("version")
        writer.string(version)
        writer.endObject()
    }
}

/// The health body: `{"status":"ok"}` or `{"status":"unavailable"}`; with details, the to-do
/// count and, while the store refuses changes, the reason.
public struct HealthViewModel: JSONWritable, Sendable, Equatable {
    public var status: String
    public var todos: Int? = nil
    public var reason: String? = nil

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let reason {
            writer.key("reason")
            writer.string(reason)
        }
        writer.key("status")
        writer.string(status)
        if let todos {
            writer.key("todos")
            writer.int(todos)
        }
        writer.endObject()
    }
}
