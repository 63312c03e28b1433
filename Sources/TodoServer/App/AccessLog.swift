import HTTPValues
import Logging
import TodoData

/// Writes one line per request: method, target with its query, status, body bytes, duration and,
/// for 4xx and 5xx, the problem's detail; the request id, client address and, for an owner's
/// request, the owner (never the token) as metadata. At trace
/// level the request's header fields come first (never `Authorization`, `Proxy-Authorization` or `Cookie`).
///
/// Secrets never reach a line: the query is written with the value of every secret parameter
/// masked (`QueryParameters.maskingSecrets`, which reads names as the router does), here where the
/// line is made rather than by each caller: this is the server's one line that writes a request's query.
public struct AccessLog: Sendable {
    let logger: Logger
    /// The logger's handler when it is the server's own without metadata of its own: lines go to it
    /// directly. Found once here, not by a dynamic cast of the handler on every line; kept in a box
    /// (`DirectHandler`), which a line borrows it from.
    private let direct: DirectHandler?
    /// The logger's level when its handler is `direct` (a value: it cannot change), else nil.
    private let directLevel: Logger.Level?

    public init(logger: Logger) {
        self.logger = logger
        direct = (logger.handler as? StdoutLogHandler).flatMap { $0.metadata.isEmpty ? DirectHandler($0) : nil }
        directLevel = direct?.handler.logLevel
    }

    /// The header fields of `request`, at trace level, with credentials redacted.
    public func trace(_ request: HTTPRequest, requestID: String) {
        guard (directLevel ?? logger.logLevel) <= .trace else { return }
        let fields = request.headers.fields.map { field in
            let secret = ["Authorization", "Proxy-Authorization", "Cookie"].contains { HTTPHeaders.namesMatch(field.name, $0) }
            return "\(field.name): \(secret ? "(redacted)" : field.value)"
        }
        logger.trace(
            "request headers: \(fields.joined(separator: " | "))",
            metadata: ["request_id": "\(requestID)", "client": "\(request.clientAddress)"])
    }

    public func record(request: HTTPRequest, response: HTTPResponse, duration: Duration, requestID: String, owner: String? = nil) {
        guard (directLevel ?? logger.logLevel) <= .info else { return }
        let microseconds = duration.wholeMicroseconds
        let query = request.query.map(QueryParameters.maskingSecrets)
        // The server's own handler gets the line's parts and writes the bytes at once, skipping
        // swift-log's message interpolation, metadata dictionary, merge and key sort.
        if let direct, microseconds >= 0 {
            let detail = response.status >= 400 ? Self.problemDetail(of: response) : nil
            direct.handler.logAccess(
                StdoutLogHandler.AccessEntry(
                    method: request.method.rawValue, path: request.path, query: query, status: response.status,
                    bodyBytes: response.body.count, microseconds: microseconds, detail: detail, requestID: requestID,
                    client: request.clientAddress, owner: owner))
            return
        }
        let milliseconds = DecimalText.milliseconds(duration)
        let target = query.map { "\(request.path)?\($0)" } ?? request.path
        var message = "\(request.method.rawValue) \(target) \(response.status) \(response.body.count) \(milliseconds)ms"
        if response.status >= 400, let detail = Self.problemDetail(of: response) {
            message += " — \(detail)"
        }
        var metadata: Logger.Metadata = ["request_id": "\(requestID)", "client": "\(request.clientAddress)"]
        if let owner { metadata["owner"] = "\(owner)" }
        logger.info("\(message)", metadata: metadata)
    }

    /// The `detail` of a problem+json body.
    static func problemDetail(of response: HTTPResponse) -> String? {
        guard response.headers["Content-Type"]?.hasPrefix("application/problem+json") == true,
            case .success(.object(let members)) = StrictJSONParser.parse(response.body),
            case .string(let detail) = members["detail"]
        else { return nil }
        return detail
    }
}

/// The server's own handler in a box: the access log's struct, copied with each request's answer,
/// holds one reference, and a line borrows the handler, where a copy of it retained and released its
/// label, metadata and writer (three copies a request: ~580 instructions of a GET).
private final class DirectHandler: Sendable {
    let handler: StdoutLogHandler

    init(_ handler: StdoutLogHandler) {
        self.handler = handler
    }
}
