import Foundation
import Glibc

/// A blocking HTTP/1.1 client over a plain socket, so that tests control every byte on the wire.
package final class TestHTTPClient {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) { self.description = description }
    }

    private var socket: Int32
    private var buffer: [UInt8] = []
    /// Requests sent and not answered yet, oldest first: (method, target), for the recorder.
    private var pending: [(String, String)] = []
    /// Whether answers go to the OpenAPI check's recording: not for servers other than TodoServer
    /// (the EventHTTP tests' own handlers).
    private let recordsResponses: Bool

    /// Connects to 127.0.0.1:`port`; a small `receiveBufferBytes` makes a slow reader.
    package init(port: Int, receiveTimeoutSeconds: Int = 10, receiveBufferBytes: Int32? = nil, recordsResponses: Bool = true) throws {
        self.recordsResponses = recordsResponses
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket() failed") }
        if var size = receiveBufferBytes {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            Glibc.close(socket)
            throw Failure(description: "connect() to port \(port) failed: errno \(errno)")
        }
    }

    deinit { if socket >= 0 { Glibc.close(socket) } }

    package func send(_ bytes: [UInt8]) throws {
        noteRequests(in: bytes)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure(description: "send() failed: errno \(errno)") }
            offset += sent
        }
    }

    package func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends one request; adds `Host` and, with a body, `Content-Length`.
    package func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: String? = nil
    ) throws -> HTTPResponseSnapshot {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.utf8.count)\r\n" }
        try send(head + "\r\n" + (body ?? ""))
        return try readResponse(method: method)
    }

    /// Reads one response; a HEAD, 204 or 304 has no body whatever its headers say.
    package func readResponse(method: String = "GET") throws -> HTTPResponseSnapshot {
        let response = try readUnrecorded(method: method)
        let (sentMethod, target) = pending.isEmpty ? (method, "?") : pending.removeFirst()
        if recordsResponses { ResponseRecorder.shared.record(method: sentMethod, target: target, response: response) }
        return response
    }

    /// Remembers the method and target of each request in `bytes`, skipping bodies by their
    /// Content-Length (so a body that looks like a request is not taken for one).
    private func noteRequests(in bytes: [UInt8]) {
        let marker: [UInt8] = [13, 10, 13, 10]
        var start = 0
        while start < bytes.count, let end = bytes[start...].firstRange(of: marker) {
            let lines = String(decoding: bytes[start..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
            start = end.upperBound
            guard let first = lines.first(where: { !$0.isEmpty }) else { continue }
            let parts = first.split(separator: " ")
            // Any well-formed version: a refused one (505) is an answer of the target's operation too.
            if parts.count == 3, parts[2].wholeMatch(of: /HTTP\/[0-9]\.[0-9]/) != nil, parts[0].allSatisfy(\.isUppercase) {
                pending.append((String(parts[0]), String(parts[1])))
            }
            let length =
                lines.lazy.compactMap { line -> Int? in
                    guard line.lowercased().hasPrefix("content-length:") else { return nil }
                    return Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces))
                }.first ?? 0
            start += length
        }
    }

    private func readUnrecorded(method: String) throws -> HTTPResponseSnapshot {
        let headEnd = try readUntilHeaderEnd()
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure(description: "bad status line: \(head)") }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let response = HTTPResponseSnapshot(status: status, headers: headers, body: [])
        if method == "HEAD" || status == 204 || status == 304 { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            return HTTPResponseSnapshot(status: status, headers: headers, body: try readChunkedBody())
        }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            while buffer.count < length { try fill() }
            let body = Array(buffer[..<length])
            buffer.removeFirst(length)
            return HTTPResponseSnapshot(status: status, headers: headers, body: body)
        }
        return HTTPResponseSnapshot(status: status, headers: headers, body: readToEnd())
    }

    /// The status line and header fields of the next answer, as text; its body stays unread.
    package func readHead() throws -> String {
        let headEnd = try readUntilHeaderEnd()
        defer { buffer.removeFirst(headEnd + 4) }
        return String(decoding: buffer[..<headEnd], as: UTF8.self)
    }

    /// The head of a streamed answer (its body stays unread), recorded for the OpenAPI check
    /// with no body: status and header fields.
    package func readStreamHead() throws -> String {
        let head = try readHead()
        let (sentMethod, target) = pending.isEmpty ? ("GET", "?") : pending.removeFirst()
        if recordsResponses {
            var lines = head.components(separatedBy: "\r\n")
            let status = Int(lines.removeFirst().split(separator: " ").dropFirst().first ?? "") ?? 0
            let headers = lines.compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            let response = HTTPResponseSnapshot(status: status, headers: headers, body: [])
            ResponseRecorder.shared.record(method: sentMethod, target: target, response: response)
        }
        return head
    }

    /// Ends the client's side of the stream; it can still read.
    package func endSending() {
        shutdown(socket, Int32(SHUT_WR))
    }

    /// Closes the connection as a client that leaves does (`close(2)`: a FIN, or a reset when
    /// bytes it did not read wait in its socket); the client is unusable afterwards.
    package func close() {
        guard socket >= 0 else { return }
        Glibc.close(socket)
        socket = -1
    }

    /// Resets the connection (an abortive close: SO_LINGER 0 sends RST), as a client that crashed
    /// does; the client is unusable afterwards.
    package func reset() {
        var abortive = linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &abortive, socklen_t(MemoryLayout<linger>.size))
        Glibc.close(socket)
        socket = -1
    }

    /// Everything until the server closes (or the receive time-out).
    package func readToEnd() -> [UInt8] {
        while (try? fill()) != nil {}
        defer { buffer = [] }
        return buffer
    }

    /// Whether the server sent something (or closed) that was not read yet; does not wait.
    package func hasInput() -> Bool {
        guard buffer.isEmpty else { return true }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    /// The socket, for a test that looks at its kernel queues from another thread
    /// (`TestHTTPClient.queuedBytes`).
    package var descriptor: Int32 { socket }

    /// Bytes in the kernel's queue of `descriptor` (`FIONREAD`: received and not read; `TIOCOUTQ`:
    /// sent and not acknowledged by the peer's kernel yet), from any thread.
    package static func queuedBytes(_ descriptor: Int32, _ request: Int32) -> Int {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(request), &count) == 0 ? Int(count) : -1
    }

    /// True when the server closed the connection (a read returns end of file).
    package func serverClosed() -> Bool {
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, 0) == 0
    }

    /// The next chunk of a chunked body as it arrives (a streamed answer); nil at its last chunk
    /// (trailer fields skipped).
    package func readChunk() throws -> [UInt8]? {
        let lineEnd = try readUntil([13, 10])
        let line = String(decoding: buffer[..<lineEnd], as: UTF8.self)
        buffer.removeFirst(lineEnd + 2)
        guard let size = Int(line.split(separator: ";").first.map(String.init) ?? "", radix: 16) else {
            throw Failure(description: "bad chunk-size line: \(line)")
        }
        if size == 0 {
            while true {
                let end = try readUntil([13, 10])
                buffer.removeFirst(end + 2)
                if end == 0 { return nil }
            }
        }
        while buffer.count < size + 2 { try fill() }
        defer { buffer.removeFirst(size + 2) }
        return Array(buffer[..<size])
    }

    /// A chunked body (RFC 9112 §7.1), its chunks joined; trailer fields are skipped.
    private func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while let chunk = try readChunk() { body += chunk }
        return body
    }

    /// The offset of `marker` in the buffer, reading until it arrives.
    private func readUntil(_ marker: [UInt8]) throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= marker.count {
                for index in searchFrom...(buffer.count - marker.count) where buffer[index..<index + marker.count].elementsEqual(marker) {
                    return index
                }
                searchFrom = buffer.count - marker.count + 1
            }
            try fill()
        }
    }

    private func readUntilHeaderEnd() throws -> Int {
        let marker: [UInt8] = [13, 10, 13, 10]
        var searchFrom = 0
        while true {
            if buffer.count >= 4 {
                for index in searchFrom...(buffer.count - 4) where buffer[index..<index + 4].elementsEqual(marker) {
                    return index
                }
                searchFrom = buffer.count - 3
            }
            try fill()
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let received = recv(socket, &chunk, chunk.count, 0)
        guard received > 0 else { throw Failure(description: received == 0 ? "connection closed" : "recv() failed: errno \(errno)") }
        buffer.append(contentsOf: chunk[..<received])
    }
}
