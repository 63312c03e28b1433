import HTTPValues
import TodoData

/// Turns a view model into response bytes with `JSONWriter`: the one display every module's view
/// writes its presenter's answers with.
public struct JSONSerializer: Sendable {
    public init() {}

    /// The response for `model`: its status and headers, `Content-Type`, and the body if any.
    /// `model` is consumed so that its headers are this response's own: adding `Content-Type` (and,
    /// later, the pipeline's CORS and request id) appends in place instead of copying the list.
    public func display<Body>(_ model: consuming ResponseViewModel<Body>) -> HTTPResponse {
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

    /// The response for a presenter's view model or problem.
    public func display<Body>(_ answer: consuming ViewAnswer<Body>) -> HTTPResponse {
        switch consume answer {
        case .model(let model): display(model)
        case .problem(let problem): display(problem)
        }
    }

    /// The response for a presenter's answer, written when it is there. An answer there now is
    /// written at once, with no closure: only a later one waits in one.
    public func display<Body>(_ answer: consuming Pending<ViewAnswer<Body>>) -> Pending<HTTPResponse> {
        switch consume answer {
        case .ready(let answer): .ready(display(answer))
        case .later(let promise): .later(promise.map { display($0) })
        }
    }

    /// The response for a presenter's view model, written when it is there.
    public func display<Body>(_ model: consuming Pending<ResponseViewModel<Body>>) -> Pending<HTTPResponse> {
        switch consume model {
        case .ready(let model): .ready(display(model))
        case .later(let promise): .later(promise.map { display($0) })
        }
    }
}
