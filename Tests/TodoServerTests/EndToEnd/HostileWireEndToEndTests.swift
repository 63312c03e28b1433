import Foundation
import Glibc
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// Issue 9, items 1, 2 and the first half of 7: strict framing, bounded buffers and a graceful
/// stop that answers requests whose head has arrived, over real sockets.
@Suite("End to end: hostile clients on the wire", .tags(.endToEnd))
struct HostileWireEndToEndTests {
    /// A refusal on the wire: problem+json with the status, CORS and a request id, then a close.
    private func expectRefusal(
        _ client: TestHTTPClient, _ status: Int, detail fragment: String, _ comment: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let answer = try client.readResponse()
        #expect(answer.status == status, "\(comment): \(answer.status)", sourceLocation: sourceLocation)
        #expect(answer.header("Content-Type") == "application/problem+json", "\(comment)", sourceLocation: sourceLocation)
        #expect(answer.object["status"] as? Int == status, "\(comment)", sourceLocation: sourceLocation)
        let detail = answer.object["detail"] as? String ?? ""
        #expect(detail.contains(fragment), "\(comment): \(detail)", sourceLocation: sourceLocation)
        #expect(answer.header("Connection") == "close", "\(comment)", sourceLocation: sourceLocation)
        #expect(answer.header("Access-Control-Allow-Origin") == "*", "\(comment)", sourceLocation: sourceLocation)
        #expect(answer.header("X-Request-ID")?.isEmpty == false, "\(comment)", sourceLocation: sourceLocation)
        #expect(client.serverClosed(), "\(comment)", sourceLocation: sourceLocation)
    }

    @Test("white space before a colon is refused with 400: the body is not run as a second request (no smuggling)")
    func smuggling() throws {
        let server = try LiveServer(configure: { $0.timeoutSeconds = 30 })
        #expect(try server.request("POST", "/todos", body: #"{"title":"keep me"}"#).status == 201)
        let smuggled = "DELETE /todos HTTP/1.1\r\nHost: h\r\n\r\n"
        let heads = [
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length : \(smuggled.utf8.count)\r\n\r\n",
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding\t: chunked\r\n\r\n",
        ]
        for head in heads {
            let client = try server.client()
            try client.send(head + smuggled)
            try expectRefusal(client, 400, detail: "White space between a header field name and its colon", head)
        }
        #expect(server.store.count == 1)
        #expect(try server.request("GET", "/todos").array.count == 1)
    }

    @Test("malformed framing gets a problem+json refusal and a close at once, never a hang or a second request")
    func malformedFraming() throws {
        let server = try LiveServer(configure: { $0.timeoutSeconds = 30 })
        let post = "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n"
        let chunked = post + "Transfer-Encoding: chunked\r\n\r\n"
        let cases: [([UInt8], Int, String)] = [
            (Array("GET /todos HTTP/1.1\r\nHost: h\r\nX Y: z\r\n\r\n".utf8), 400, "White space between a header field name"),
            (Array("GET /todos HTTP/1.1\r\nHost: h\r\nX(Y): z\r\n\r\n".utf8), 400, "not a token"),
            (Array("GET /todos HTTP/1.1\r\nHost: h\r\nX-A: a".utf8) + [0] + Array("b\r\n\r\n".utf8), 400, "control character"),
            (Array("GET /todos HTTP/1.1\r\nHost: h\r\nX-A: a\r\n folded\r\n\r\n".utf8), 400, "obsolete line folding"),
            (Array((post + "Content-Length: 99999999999999999999\r\n\r\n").utf8), 400, "too large a number"),
            (Array((post + "Content-Length: +5\r\n\r\n{}   ").utf8), 400, "1*DIGIT"),
            (Array((post + "Content-Length: 5, 5\r\n\r\n{}   ").utf8), 400, "1*DIGIT"),
            (
                Array("POST /todos HTTP/1.0\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET / HTTP/1.0\r\n\r\n".utf8), 400,
                "HTTP/1.0"
            ),
            (Array((post + "Transfer-Encoding: gzip\r\n\r\n").utf8), 400, "final transfer coding must be chunked"),
            (Array((post + "Transfer-Encoding: gzip, chunked\r\n\r\n").utf8), 501, "not supported"),
            (Array((chunked + "0x11\r\n").utf8), 400, "chunk size"),
            (Array((chunked + "+11\r\n").utf8), 400, "chunk size"),
            (Array((chunked + "11 junk\r\n").utf8), 400, "chunk extension"),
            (Array((chunked + "1;" + String(repeating: "a", count: 40_000)).utf8), 400, "chunk-size line is longer"),
            (Array("GET /todos HTTP/1.1\r\n\r\n".utf8), 400, "Host"),
            (Array("GET /todos HTTP/-1.1\r\nHost: h\r\n\r\n".utf8), 400, "HTTP version"),
            (Array("GET /todos HTTP/2.0\r\nHost: h\r\n\r\n".utf8), 505, "HTTP/2.0 is not supported"),
            ([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03], 400, "cannot start an HTTP/1.1 request line"),
            (Array(repeating: 0xAB, count: 300), 400, "cannot start an HTTP/1.1 request line"),
        ]
        for (input, status, fragment) in cases {
            let client = try TestHTTPClient(port: server.port, receiveTimeoutSeconds: 5)
            try client.send(input)
            try expectRefusal(client, status, detail: fragment, String(decoding: input.prefix(60), as: UTF8.self))
        }
        #expect(server.store.count == 0)
        #expect(try server.request("GET", "/healthz").status == 200)
    }

    @Test("chunk extensions, absolute-form targets and an empty line before a request are accepted (RFC 9112)")
    func acceptedForms() throws {
        let server = try LiveServer()
        let client = try server.client()
        let body = #"{"title":"x"}"#
        try client.send(
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "6;name=value;quoted=\"a b\"\r\n" + body.prefix(6) + "\r\n7 ; x\r\n" + body.dropFirst(6)
                + "\r\n0;end\r\nX-Trailer: t\r\n\r\n")
        let created = try client.readResponse(method: "POST")
        #expect(created.status == 201)
        #expect(created.object["title"] as? String == "x")
        try client.send("GET http://127.0.0.1/todos?limit=5 HTTP/1.1\r\nHost: 127.0.0.1\r\nProxy-Connection: keep-alive\r\n\r\n")
        let list = try client.readResponse()
        #expect(list.status == 200)
        #expect(list.array.count == 1)
        try client.send("\r\nGET /healthz HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try client.readResponse().status == 200)
    }

    @Test("a body declared over maxBodyBytes is refused with 413 from its headers, without being read")
    func declaredBodyTooLarge() throws {
        let server = try LiveServer(configure: {
            $0.maxBodyBytes = 1 << 20; $0.timeoutSeconds = 30
        })
        let client = try TestHTTPClient(port: server.port, receiveTimeoutSeconds: 5)
        try client.send("POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 4000000\r\n\r\n")
        try client.send([UInt8](repeating: UInt8(ascii: " "), count: 64 << 10))
        try expectRefusal(client, 413, detail: "larger than the limit of 1048576 bytes", "declared 4 MB")
        let statistics = server.application.wireStatistics
        #expect(statistics.refusedStreams == 1)
        #expect(statistics.largestInputBytes < 96 << 10)
        #expect(server.store.count == 0)
    }

    @Test("a client that pipelines and never reads its answers is no longer read: its buffered input stays bounded")
    func pipelinedWithoutReading() throws {
        let server = try LiveServer(configure: {
            $0.maxPipelinedRequests = 8; $0.threads = 1
        })
        // Answers of about 5 KB: the kernel's socket buffers (several MB on loopback, as they
        // grow) must not be able to take most of the 4,000 answers, or the server would answer
        // them all without its own bound ever being reached.
        for index in 0..<20 {
            _ = try server.request("POST", "/todos", body: #"{"title":"to-do number \#(index) with a title long enough to weigh"}"#)
        }
        let client = try TestHTTPClient(port: server.port, receiveBufferBytes: 4096)
        let request = "GET /todos HTTP/1.1\r\nHost: h\r\n\r\n"
        let count = 4000
        try client.send(String(repeating: request, count: count))
        #expect(eventually { server.application.wireStatistics.throttledConnections == 1 })
        let statistics = server.application.wireStatistics
        #expect(statistics.largestInputBytes < 48 << 10, "\(statistics)")
        #expect(statistics.requestHeads < count / 2, "\(statistics)")
        // Once the client reads, every request is answered, in order, and reading resumes.
        for _ in 0..<count { #expect(try client.readResponse().status == 200) }
        #expect(server.application.wireStatistics.requestHeads == count + 20, "the 20 POSTs that seeded the store count too")
        #expect(server.application.wireStatistics.throttledConnections == 0)
    }

    @Test("a request whose head arrived before the stop is answered with Connection: close while its body arrives")
    func drainAnswersStartedRequests() throws {
        let server = try LiveServer(configure: { $0.shutdownGraceSeconds = 20 })
        let client = try server.client()
        let body = #"{"title":"late body"}"#
        try client.send(
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                + body.prefix(5))
        #expect(eventually { server.application.wireStatistics.requestHeads == 1 })
        server.application.requestStop()
        // Every loop has begun draining once the port refuses connections.
        #expect(eventually { (try? TestHTTPClient(port: server.port)) == nil })
        try client.send(String(body.dropFirst(5)))
        let answer = try client.readResponse(method: "POST")
        #expect(answer.status == 201)
        #expect(answer.header("Connection") == "close")
        #expect(answer.object["title"] as? String == "late body")
        #expect(server.store.count == 1)
        #expect(client.serverClosed())
    }
}
