import CLibevent
import Glibc

extension HTTPRequest {
    /// Copies method, target, header fields and body out of an evhttp request.
    init(evhttpRequest request: OpaquePointer) {
        var headers = HTTPHeaders()
        if let list = evhttp_request_get_input_headers(request) {
            // Counted first: appending to an empty list regrows it (two or three allocations).
            var count = 0
            var counted = clibevent_first_header(list)
            while let current = counted {
                count += 1
                counted = clibevent_next_header(current)
            }
            headers = HTTPHeaders(capacity: count)
            var field = clibevent_first_header(list)
            while let current = field {
                headers.add(String(cString: current.pointee.key), String(cString: current.pointee.value))
                field = clibevent_next_header(current)
            }
        }
        var body: [UInt8] = []
        if let input = evhttp_request_get_input_buffer(request) {
            let length = evbuffer_get_length(input)
            if length > 0 {
                // Made contiguous where it lies (a small body already is), then appended to a
                // reserved array: `Array(unsafeUninitializedCapacity:)` looks the array type's
                // metadata up at run time on every call (~500 instructions), this path is specialized.
                body.reserveCapacity(length)
                if let bytes = evbuffer_pullup(input, -1) {
                    body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
                } else {
                    // Pulling up a body spread over chains allocates, which can fail: copy it out
                    // chain by chain instead (it did so before pulling up was used).
                    body.append(contentsOf: [UInt8](repeating: 0, count: length))
                    let copied = body.withUnsafeMutableBytes { evbuffer_copyout(input, $0.baseAddress, length) }
                    if copied != length { body.removeAll() }
                }
            }
        }
        var uri = evhttp_request_get_uri(request).map { String(cString: $0) } ?? "/"
        // Absolute form (`GET http://host/todos HTTP/1.1`, RFC 9112 §3.2.2): route its path and query.
        if uri.utf8.first != UInt8(ascii: "/"), let parsed = evhttp_request_get_evhttp_uri(request),
            evhttp_uri_get_scheme(parsed) != nil
        {
            let path = evhttp_uri_get_path(parsed).map { String(cString: $0) } ?? ""
            uri = (path.isEmpty ? "/" : path) + (evhttp_uri_get_query(parsed).map { "?" + String(cString: $0) } ?? "")
        }
        self.init(method: HTTPMethod(evhttpCommand: evhttp_request_get_command(request)), uri: uri, headers: headers, body: body)
        clientAddress = Self.peer(of: request)
    }

    /// `address:port` of the connection `request` came on.
    private static func peer(of request: OpaquePointer) -> String {
        guard let connection = evhttp_request_get_connection(request) else { return "" }
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(connection, &address, &port)
        guard let address else { return "" }
        // Written straight into the string's storage (interpolation cost ~2.8k instructions).
        let hostLength = strlen(address)
        let bracketed = memchr(address, Int32(UInt8(ascii: ":")), hostLength) != nil
        // The exact length: up to 15 bytes (`127.0.0.1:50312`) the string is stored inline, without
        // an allocation.
        let portDigits = port >= 10_000 ? 5 : port >= 1_000 ? 4 : port >= 100 ? 3 : port >= 10 ? 2 : 1
        return String(unsafeUninitializedCapacity: hostLength + (bracketed ? 2 : 0) + 1 + portDigits) { buffer in
            var count = 0
            func put(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            if bracketed { put(UInt8(ascii: "[")) }
            UnsafeRawPointer(address).withMemoryRebound(to: UInt8.self, capacity: hostLength) { host in
                for offset in 0..<hostLength { put(host[offset]) }
            }
            if bracketed { put(UInt8(ascii: "]")) }
            put(UInt8(ascii: ":"))
            var divisor: UInt16 = 10_000
            while divisor > 1, port / divisor == 0 { divisor /= 10 }
            while divisor > 0 {
                put(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: port / divisor % 10))
                divisor /= 10
            }
            return count
        }
    }
}

extension HTTPRequest {
    /// evhttp 2.1 reads a body only for the methods it expects one with (POST, PUT, PATCH,
    /// OPTIONS): a GET, HEAD, DELETE or unknown method that declares one leaves it on the wire.
    var hasUnreadBody: Bool {
        guard body.isEmpty else { return false }
        if headers["Transfer-Encoding"] != nil { return true }
        return headers["Content-Length"].map { value in value.utf8.contains { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") } } ?? false
    }
}

extension HTTPMethod {
    init(evhttpCommand command: evhttp_cmd_type) {
        switch command {
        case EVHTTP_REQ_GET: self = .get
        case EVHTTP_REQ_HEAD: self = .head
        case EVHTTP_REQ_POST: self = .post
        case EVHTTP_REQ_PUT: self = .put
        case EVHTTP_REQ_PATCH: self = .patch
        case EVHTTP_REQ_DELETE: self = .delete
        case EVHTTP_REQ_OPTIONS: self = .options
        case EVHTTP_REQ_TRACE: self = .trace
        case EVHTTP_REQ_CONNECT: self = .connect
        default: self = .unrecognized
        }
    }
}
