import Foundation
import Glibc
import TestSupport
import Testing

@testable import TodoDataTestSupport
@testable import TodoServer

/// Issue 35 over real sockets: chunk sizes that used to wrap, leading zeros, request targets that
/// are not this server's, the target's authority over `Host`, and empty lines that never end; and
/// the base of absolute urls from what the wire read (a `Host` with a port, none on HTTP/1.0).
@Suite("End to end: numbers and targets on the wire (hostile inputs round 3)", .tags(.endToEnd))
struct WireNumbersAndTargetsEndToEndTests {
    @Test("a chunk size of 2^63 or more is 413 and a close: the DELETE in its data is never run (no smuggling), nothing is buffered")
    func chunkSizesThatWrapped() throws {
        let server = try LiveServer(configure: { $0.timeoutSeconds = 30 })
        #expect(try server.request("POST", "/todos", body: #"{"title":"keep me"}"#).status == 201)
        let head = "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        let smuggled = "DELETE /todos HTTP/1.1\r\nHost: h\r\n\r\n"
        for size in ["ffffffffffffffff", "8000000000000000", "fffffffffffffff0"] {
            let client = try server.client()
            try client.send(head + size + "\r\n" + #"{"title":"x"}"# + "\r\n0\r\n\r\n" + smuggled)
            let answer = try client.readResponse()
            #expect(answer.status == 413, "\(size)")
            #expect(answer.header("Content-Type") == "application/problem+json", "\(size)")
            #expect(answer.header("Connection") == "close", "\(size)")
            #expect(client.serverClosed(), "\(size): the DELETE after it got no answer")
        }
        // 2^63 then 2^63 - 1: refused at the first, whatever follows.
        let both = try server.client()
        try both.send(head + "8000000000000000\r\n\r\n7fffffffffffffff\r\n" + String(repeating: "a", count: 64 * 1024))
        #expect(try both.readResponse().status == 413)
        #expect(server.store.count == 1)
        #expect(try server.request("GET", "/todos").array.count == 1)
    }

    @Test("leading zeros are digits, not value: an 18-digit chunk size of 17 and a 25-digit Content-Length make 201s")
    func leadingZeros() throws {
        let server = try LiveServer()
        let title = #"{"title":"seventeen"}"#
        #expect(title.utf8.count == 21)
        let client = try server.client()
        try client.send(
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "000000000000000011\r\n" + title.prefix(17) + "\r\n0000000000000000000000004\r\n" + title.dropFirst(17) + "\r\n0\r\n\r\n")
        let chunked = try client.readResponse()
        #expect(chunked.status == 201)
        #expect(chunked.object["title"] as? String == "seventeen")
        try client.send(
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 0000000000000000000000021\r\n\r\n" + title
        )
        #expect(try client.readResponse().status == 201)
        #expect(server.store.count == 2)
    }

    @Test("a byte past ASCII in the target, another scheme or no host is 400; a CONNECT's authority is routed (405)")
    func targets() throws {
        let server = try LiveServer(configure: { $0.timeoutSeconds = 30 })
        let cases: [[UInt8]] = [
            Array("GET /healthz".utf8) + [0xFF], Array("GET /todos?q=".utf8) + [0xC3, 0xA9], Array("GET ftp://x/healthz".utf8),
            Array("GET file:///etc/passwd".utf8), Array("GET http:///healthz".utf8), Array("GET healthz".utf8),
        ]
        for target in cases {
            let client = try TestHTTPClient(port: server.port, receiveTimeoutSeconds: 5, recordsResponses: false)
            try client.send(target + Array(" HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
            let answer = try client.readResponse()
            let comment = String(decoding: target, as: UTF8.self)
            #expect(answer.status == 400, "\(comment)")
            #expect(answer.header("Content-Type") == "application/problem+json", "\(comment)")
            #expect(answer.header("Connection") == "close", "\(comment)")
            #expect(client.serverClosed(), "\(comment)")
        }
        let connect = try TestHTTPClient(port: server.port, recordsResponses: false)
        try connect.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        #expect(try connect.readResponse().status != 400)
    }

    @Test("an absolute-form target's authority names the host (RFC 9112 §3.2.2): Location, url and links use it, not Host")
    func authorityWinsOverHost() throws {
        let server = try LiveServer()
        let client = try TestHTTPClient(port: server.port, recordsResponses: false)
        try client.send(
            "POST http://other.example:8443/todos HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n"
                + #"{"title":"abc"}"#)
        let created = try client.readResponse()
        #expect(created.status == 201)
        let location = created.header("Location") ?? ""
        #expect(location.hasPrefix("http://other.example:8443/todos/"), "\(location)")
        #expect(created.object["url"] as? String == location)
        try client.send("GET /todos HTTP/1.1\r\nHost: x\r\n\r\n")
        let list = try client.readResponse()
        #expect((list.array.first?["url"] as? String)?.hasPrefix("http://x/todos/") == true)
        // A bad authority is refused like a bad Host.
        let bad = try TestHTTPClient(port: server.port, recordsResponses: false)
        try bad.send("GET http://user@evil/healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = try bad.readResponse()
        #expect(refused.status == 400)
        #expect((refused.object["detail"] as? String)?.contains("authority") == true)
    }

    @Test("absolute urls follow the Host header, or the configured public URL")
    func baseURLs() throws {
        let server = try LiveServer()
        let client = try server.client()
        try client.send("POST /todos HTTP/1.1\r\nHost: todo.example.com:9000\r\nContent-Length: 13\r\n\r\n{\"title\":\"x\"}")
        let created = try client.readResponse(method: "POST")
        #expect((created.object["url"] as? String)?.hasPrefix("http://todo.example.com:9000/todos/") == true)
        try client.send("GET /todos HTTP/1.0\r\n\r\n")
        let fallback = try client.readResponse()
        #expect(fallback.array.first?["url"] as? String == "http://localhost:\(server.port)/todos/\(created.object["id"] as? String ?? "")")
        let badHost = try server.client()
        try badHost.send("GET /todos HTTP/1.1\r\nHost: evil\"host\r\n\r\n")
        #expect(try badHost.readResponse().status == 400)
        let twoHosts = try server.request("GET", "/todos", headers: [("Host", "other")])
        #expect(twoHosts.status == 400)
        #expect(twoHosts.object["detail"] as? String == "The request has 2 Host headers; send exactly one.")

        let configured = try LiveServer(configure: { $0.publicURL = "https://todo.example.com" })
        let response = try configured.request("POST", "/todos", body: #"{"title":"x"}"#)
        #expect((response.header("Location") ?? "").hasPrefix("https://todo.example.com/todos/"))
    }

    @Test("empty lines sent now and then before a request line do not keep a connection past the time-out")
    func emptyLinesDoNotHoldTheConnection() throws {
        let server = try LiveServer(configure: { $0.timeoutSeconds = 1 })
        let client = try TestHTTPClient(port: server.port, receiveTimeoutSeconds: 5, recordsResponses: false)
        // The client's pace (a line every 200 ms, well inside the 1 s time-out) is the attack; the
        // test waits for the close with a deadline, not for a time.
        let closed = eventually(timeout: .seconds(30), interval: .milliseconds(200)) {
            if client.hasInput() { return true }
            try? client.send("\r\n")
            return false
        }
        #expect(closed)
        #expect(client.readToEnd().isEmpty, "closed without an answer, as an idle connection is")
        #expect(try server.request("GET", "/healthz").status == 200)
    }
}
