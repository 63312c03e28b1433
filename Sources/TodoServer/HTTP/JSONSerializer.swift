import HTTPValues

/// Where a presenter hands its view models: one generic display that every module shares
/// (`JSONSerializer`), or a test's double that keeps what it is given.
public protocol ResponseDisplay: Sendable {
    /// Writes `model` as the response, through `respond`.
    func display<Body>(_ model: consuming ResponseViewModel<Body>, respond: Respond)
}

/// Turns a view model into response bytes with `JSONWriter`: the modules' one display.
public struct JSONSerializer: ResponseDisplay {
    public init() {}

    /// The response for `model`: its status and headers, `Content-Type`, and the body if any.
    /// `model` is consumed so that its headers are this response's own: adding `Content-Type` (and,
    /// later, the pipeline's CORS and request id) appends in place instead of copying the list.
    public func response<Body>(for model: consuming ResponseViewModel<Body>) -> HTTPResponse {
        let status = model.status
        let contentType = model.contentType
        let body = model.body
        var headers = (consume model).headers
        // Content-Type, then the pipeline's CORS fields (up to four) and request id.
        headers.reserveCapacity(forAdding: 6)
        guard let body else { return HTTPResponse(status: status, headers: headers) }
        headers.add("Content-Type", contentType)
        var writer = JSONWriter(capacity: body.jsonSizeHint)
        body.write(to: &writer)
        return HTTPResponse(status: status, headers: headers, body: writer.finish())
    }

    public func display<Body>(_ model: consuming ResponseViewModel<Body>, respond: Respond) {
        respond(response(for: model))
    }
}
