import CLibevent
import Glibc

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

    /// What became of an answer.
    public enum Delivery: Sendable, Equatable {
        /// Handed to the connection for writing.
        case sent
        /// The connection had closed before the answer (its time-out fired or the client hung up
        /// while the handler was working): nothing was sent.
        case connectionClosed
    }

    /// Writes `response`. A HEAD request gets the headers, including the `Content-Length` that the
    /// GET would have, and no body.
    @discardableResult
    public func send(_ response: HTTPResponse) -> Delivery {
        // evhttp detaches a request from its connection when the connection fails before the
        // answer, and leaves it to the answer to free.
        guard let connection = evhttp_request_get_connection(request) else {
            evhttp_request_free(request)
            return .connectionClosed
        }
        // The write time-out starts from the loop's cached time, which a handler that ran longer
        // than the time-out left behind: the answer would be timed out before its first write.
        event_base_update_cache_time(evhttp_connection_get_base(connection))
        let output = evhttp_request_get_output_headers(request)!
        let now = Int(time(nil))
        // One entry for `Date` and the response's own fields when possible (HTTPResponder+JoinedHead):
        // the same lines as one entry per field, printed in one call instead of one per field.
        // `time(NULL)` as evhttp would take it (the loop's cached time is derived from the monotonic
        // clock and can differ from the wall clock by a second).
        let joined = Self.appendJoined(response.headers, dateSeconds: now, to: output)
        if !joined {
            for field in response.headers {
                // Explicit withCString: the implicit String-to-pointer conversion copies small
                // strings to the heap.
                field.name.withCString { name in
                    field.value.withCString { value in _ = evhttp_add_header(output, name, value) }
                }
            }
        }
        if closeConnection || draining.active, joined || evhttp_find_header(output, "Connection") == nil {
            evhttp_add_header(output, "Connection", "close")
        }
        let hasBody = response.status >= 200 && response.status != 204 && response.status != 304
        if isHead {
            if hasBody {
                if !joined { evhttp_remove_header(output, "Content-Length") }
                Self.appendContentLength(response.body.count, to: output)
            }
        } else if hasBody {
            if !response.body.isEmpty {
                let buffer = evhttp_request_get_output_buffer(request)
                response.body.withUnsafeBytes { bytes in
                    _ = evbuffer_add(buffer, bytes.baseAddress, bytes.count)
                }
            }
            // The field evhttp would add to an HTTP/1.1 answer with a body (the body's length):
            // written here without its `snprintf` and copies. HTTP/1.0 answers are left to evhttp,
            // which adds it only when the client asked to keep the connection alive.
            if joined, clibevent_request_is_http11(request) != 0 {
                Self.appendContentLength(response.body.count, to: output)
            }
        }
        if !joined, evhttp_find_header(output, "Date") == nil {
            // evhttp would format the field itself (~3.3k instructions) from `time(NULL)`.
            Self.appendDate(secondsSinceEpoch: now, to: output)
        }
        // Through a C string of the literal: the implicit conversion of a String argument builds a
        // `ContiguousArray` of its bytes (an allocation) per answer.
        HTTPStatus.reasonPhrase(response.status).withCString { reason in
            evhttp_send_reply(request, Int32(response.status), reason, nil)
        }
        return .sent
    }
}
