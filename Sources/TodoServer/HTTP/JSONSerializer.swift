import EventHTTP

/// Turns a view model into response bytes with `JSONWriter`: the views' one tool.
public struct JSONSerializer: Sendable {
    public init() {}

    /// The response for `model`: its status and headers, `Content-Type`, and the body if any.
    public func response<Body>(for model: ResponseViewModel<Body>) -> HTTPResponse {
        var headers = model.headers
        if headers.fields.isEmpty { headers = HTTPHeaders(capacity: 6) }
        guard let body = model.body else { return HTTPResponse(status: model.status, headers: headers) }
        headers.add("Content-Type", model.contentType)
        var writer = JSONWriter(capacity: body.jsonSizeHint)
        body.write(to: &writer)
        return HTTPResponse(status: model.status, headers: headers, body: writer.finish())
    }
}
