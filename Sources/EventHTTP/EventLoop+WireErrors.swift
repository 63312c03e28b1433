import CLibevent

/// evhttp answers some bad input itself, with an HTML page and no hook (libevent 2.1). Every
/// connection's output buffer is watched for such a page; before it is flushed it is replaced by
/// the handler's answer.
extension EventLoop {
    /// Starts watching `bufferEvent`'s output for evhttp's error pages.
    func watchForWireErrors(_ bufferEvent: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = evbuffer_add_cb(bufferevent_get_output(bufferEvent), outputCallback, context)
    }

    /// Called after each change to an output buffer: cheap unless an evhttp error page was just
    /// completed in an otherwise empty buffer (its HTML body is the last thing evhttp adds).
    fileprivate func outputChanged(_ buffer: OpaquePointer, added: Int) {
        guard (60...300).contains(added), endsWithErrorPage(buffer), let replacement = replacement(forPageIn: buffer) else {
            return
        }
        evbuffer_drain(buffer, evbuffer_get_length(buffer))
        replacement.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
    }

    /// Whether the buffer ends like evhttp's error page, read without allocating.
    private func endsWithErrorPage(_ buffer: OpaquePointer) -> Bool {
        let length = evbuffer_get_length(buffer)
        let tail = errorPageTail.count
        guard length >= tail, length <= 1024 else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: tail) { bytes in
            var position = evbuffer_ptr()
            guard evbuffer_ptr_set(buffer, &position, length - tail, EVBUFFER_PTR_SET) == 0,
                evbuffer_copyout_from(buffer, &position, bytes.baseAddress, tail) == tail
            else { return false }
            return bytes.elementsEqual(errorPageTail)
        }
    }

    private func replacement(forPageIn buffer: OpaquePointer) -> [UInt8]? {
        let length = evbuffer_get_length(buffer)
        guard length <= 1024 else { return nil }
        var bytes = [UInt8](repeating: 0, count: length)
        _ = evbuffer_copyout(buffer, &bytes, length)
        guard bytes.starts(with: Array("HTTP/1.".utf8)), bytes.count > 12,
            var status = Int(String(decoding: bytes[9..<12], as: UTF8.self))
        else { return nil }
        // A stream the framing refused: evhttp's page answers the line put in its place.
        let refusal = refusal(forOutput: buffer)
        if let refusal { status = refusal.status }
        guard let response = handler.replacementForWireError(status: status, detail: refusal?.detail) else { return nil }
        var head = String(decoding: bytes[0..<8], as: UTF8.self) + " \(status) \(HTTPStatus.reasonPhrase(status))\r\n"
        for field in response.headers where !HTTPHeaders.namesMatch(field.name, "Connection") {
            head += "\(field.name): \(field.value)\r\n"
        }
        // Keep evhttp's Date line.
        let text = String(decoding: bytes, as: UTF8.self)
        if let date = text.split(separator: "\r\n").first(where: { $0.hasPrefix("Date: ") }) { head += date + "\r\n" }
        head += "Connection: close\r\nContent-Length: \(response.body.count)\r\n\r\n"
        return Array(head.utf8) + response.body
    }
}

/// The last bytes of every error page evhttp 2.1 writes.
private let errorPageTail = Array("</BODY></HTML>\n".utf8)

private let outputCallback: @convention(c) (OpaquePointer?, UnsafePointer<evbuffer_cb_info>?, UnsafeMutableRawPointer?) -> Void = {
    buffer, info, context in
    guard let buffer, let info, info.pointee.n_added > 0 else { return }
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().outputChanged(buffer, added: info.pointee.n_added)
}
