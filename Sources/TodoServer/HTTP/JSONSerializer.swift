import EventHTTP
import Foundation

/// Turns a view model into response bytes with Foundation's `JSONEncoder`; the views' one tool.
public struct JSONSerializer: Sendable {
    private let encoder: JSONEncoder

    public init() {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        self.encoder = encoder
    }

    /// The response for `model`: its status and headers, `Content-Type`, and the JSON body if any.
    public func response<Body>(for model: ResponseViewModel<Body>) -> HTTPResponse {
        var headers = model.headers
        guard let body = model.body else { return HTTPResponse(status: model.status, headers: headers) }
        headers.set("Content-Type", model.contentType)
        do {
            return HTTPResponse(status: model.status, headers: headers, body: Array(try encoder.encode(body)))
        } catch {
            let problem = #"{"detail":"The response could not be encoded.","status":500,"title":"Internal Server Error","type":"about:blank"}"#
            return HTTPResponse(
                status: 500, headers: ["Content-Type": "application/problem+json"], body: Array(problem.utf8))
        }
    }

    /// The response for a body that is already serialized: its bytes as they are.
    public func response(for model: ResponseViewModel<RawBody>) -> HTTPResponse {
        var headers = model.headers
        guard let body = model.body else { return HTTPResponse(status: model.status, headers: headers) }
        headers.set("Content-Type", model.contentType)
        return HTTPResponse(status: model.status, headers: headers, body: body.bytes)
    }
}
