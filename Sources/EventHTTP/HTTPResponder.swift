import CLibevent

/// The one-shot answer channel of a request; use it on the request's loop thread only.
public struct HTTPResponder {
    let request: OpaquePointer
    let isHead: Bool
    /// Which of the server's loops the request came in on (0-based): for per-loop state that needs no lock.
    public let loopIndex: Int
    /// The request declared a body that evhttp left unread: the connection must close after the
    /// answer, or those bytes would be read as the next request.
    let closeConnection: Bool
    /// The loop is stopping: the connection closes after this answer.
    let draining: DrainSignal

    /// Writes `response`. A HEAD request gets the headers, including the `Content-Length` that the
    /// GET would have, and no body.
    public func send(_ response: HTTPResponse) {
        let output = evhttp_request_get_output_headers(request)
        for field in response.headers {
            // Explicit withCString: the implicit String-to-pointer conversion copies small
            // strings to the heap.
            field.name.withCString { name in
                field.value.withCString { value in _ = evhttp_add_header(output, name, value) }
            }
        }
        if closeConnection || draining.active, evhttp_find_header(output, "Connection") == nil {
            evhttp_add_header(output, "Connection", "close")
        }
        let hasBody = response.status >= 200 && response.status != 204 && response.status != 304
        if isHead {
            if hasBody {
                evhttp_remove_header(output, "Content-Length")
                evhttp_add_header(output, "Content-Length", String(response.body.count))
            }
        } else if hasBody, !response.body.isEmpty {
            let buffer = evhttp_request_get_output_buffer(request)
            response.body.withUnsafeBytes { bytes in
                _ = evbuffer_add(buffer, bytes.baseAddress, bytes.count)
            }
        }
        evhttp_send_reply(request, Int32(response.status), HTTPStatus.reasonPhrase(response.status), nil)
    }
}
