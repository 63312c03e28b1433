import Foundation
import Glibc
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// What the server's own HTTP/1.1 wire does that no parser of a library did for it: `Expect:
/// 100-continue`, absolute-form targets, and the same answers for a stream however it is cut.
@Suite("End to end: the server's own wire", .tags(.endToEnd))
struct OwnWireEndToEndTests {
    @Test("Expect: 100-continue: 100 before a body the server will read, then the answer; a body over the limit is refused at once")
    func expectContinue() throws {
        let server = try LiveServer(configure: { $0.maxBodyBytes = 1024 })
        let client = try server.client()
        let body = #"{"title":"waited for"}"#
        try client.send(
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        )
        #expect(try client.readHead() == "HTTP/1.1 100 Continue")
        try client.send(body)
        let created = try client.readResponse(method: "POST")
        #expect(created.status == 201)
        #expect(created.object["title"] as? String == "waited for")
        // Over the limit: the final status at once, no 100, and the body is never awaited.
        let refused = try server.client()
        try refused.send(
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n")
        let answer = try refused.readResponse(method: "POST")
        #expect(answer.status == 413)
        #expect(answer.header("Connection") == "close")
        // A body sent with its head gets no 100: the next bytes are the final answer.
        let eager = try server.client()
        try eager.send(
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        )
        #expect(try eager.readResponse(method: "POST").status == 201)
        #expect(server.store.count == 2)
    }

    /// Heads the server refuses from the head alone, with the status each gets (tokens are on:
    /// `rw` may write, `ro` only read; the body limit is 1024 bytes).
    static let refusedHeads: [(head: String, status: Int)] = [
        ("POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 20\r\n", 401),
        ("POST /todos HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer nope\r\nContent-Type: application/json\r\nContent-Length: 20\r\n", 401),
        ("POST /todos HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer ro\r\nContent-Type: application/json\r\nContent-Length: 20\r\n", 403),
        ("POST /todos HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer rw\r\nContent-Type: text/plain\r\nContent-Length: 20\r\n", 415),
        ("POST /nothing HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer rw\r\nContent-Type: application/json\r\nContent-Length: 20\r\n", 404),
        ("PUT /todos HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer rw\r\nContent-Type: application/json\r\nContent-Length: 20\r\n", 405),
        ("POST /todos HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer rw\r\nAuthorization: Bearer rw\r\nContent-Length: 20\r\n", 400),
        ("POST /todos HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer rw\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n", 413),
    ]

    @Test(
        "Expect: 100-continue on a request refused from its head: the final status at once, no 100, the body never awaited; the connection closes",
        arguments: refusedHeads.indices)
    func expectContinueRefusedFromHead(index: Int) throws {
        let (head, status) = Self.refusedHeads[index]
        let server = try LiveServer(configure: {
            $0.maxBodyBytes = 1024
            $0.authTokens = ["rw"]
            $0.readTokens = ["ro"]
            $0.corsOrigin = "https://app.example.com"
        })
        let client = try server.client()
        try client.send(head + "Origin: https://app.example.com\r\nExpect: 100-continue\r\n\r\n")
        // The first answer is the final one: a 100 would be read here as status 100.
        let answer = try client.readResponse(method: "POST")
        #expect(answer.status == status, "\(head)")
        #expect(answer.header("Content-Type") == "application/problem+json")
        #expect(answer.header("Connection") == "close")
        #expect(answer.header("Access-Control-Allow-Origin") == "https://app.example.com")
        #expect(answer.header("X-Request-ID") != nil)
        // Without the client sending the body, the server ends the connection (lingering for a
        // body that may still come, having shut its side).
        #expect(client.serverClosed())
        #expect(server.store.count == 0)
    }

    @Test("a client that sends its body anyway after a refusal from the head gets the refusal whole, then the close; the body is discarded")
    func expectContinueRefusedBodySentAnyway() throws {
        let server = try LiveServer(configure: { $0.authTokens = ["rw"] })
        let client = try server.client()
        try client.send(
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 200000\r\n\r\n")
        let answer = try client.readResponse(method: "POST")
        #expect(answer.status == 401)
        #expect(answer.header("WWW-Authenticate") == "Bearer")
        // The body, and a request after it that must not be answered: the stream ended with the refusal.
        let body = #"{"title":"never"}"# + String(repeating: " ", count: 200_000 - 17)
        try? client.send(body + "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n")
        client.endSending()
        #expect(client.readToEnd().isEmpty, "nothing after the refusal")
        #expect(server.store.count == 0)
        // The same request with a token still gets its 100 and is read.
        let allowed = try server.client()
        try allowed.send(
            "POST /todos HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer rw\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 17\r\n\r\n"
        )
        #expect(try allowed.readHead() == "HTTP/1.1 100 Continue")
        try allowed.send(#"{"title":"waits"}"#)
        let created = try allowed.readResponse(method: "POST")
        #expect(created.status == 201)
        #expect(created.header("Connection") == nil, "an accepted body keeps the connection")
        #expect(try allowed.request("GET", "/healthz").status == 200)
    }

    @Test(
        "a chunked body's type is judged once it is read (it may be empty): 100 first, then 415; a refusal of the head alone does not depend on it"
    )
    func expectContinueChunked() throws {
        let server = try LiveServer()
        let client = try server.client()
        try client.send(
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
        #expect(try client.readHead() == "HTTP/1.1 100 Continue")
        try client.send("3\r\nabc\r\n0\r\n\r\n")
        let answer = try client.readResponse(method: "POST")
        #expect(answer.status == 415)
        #expect(answer.header("Connection") == nil)
        let missing = try server.client()
        try missing.send("POST /nowhere HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
        #expect(try missing.readResponse(method: "POST").status == 404)
        #expect(missing.serverClosed())
    }

    @Test("an absolute-form target is routed by its path and query, a target without a path as /")
    func absoluteForm() throws {
        let server = try LiveServer()
        // Not recorded for the OpenAPI check, which reads the path from the target as sent.
        let client = try TestHTTPClient(port: server.port, recordsResponses: false)
        try client.send("GET http://example.com:8080/healthz HTTP/1.1\r\nHost: example.com:8080\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        try client.send("GET HTTPS://example.com?limit=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")
        let index = try client.readResponse()
        #expect(index.status == 200)
        #expect(index.object["name"] != nil)
    }

    @Test("a stream of pipelined requests gets the same answers whole, byte by byte and cut at random places")
    func randomSplits() throws {
        let seed = ProcessInfo.processInfo.environment["TODO_TEST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        print("OwnWireEndToEndTests.randomSplits seed \(seed) (TODO_TEST_SEED repeats it)")
        var random = SplitMix64(seed: seed)
        let server = try LiveServer()
        let requests = [
            "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n",
            "HEAD /todos HTTP/1.1\r\nHost: h\r\n\r\n",
            "\r\nGET /todos/missing HTTP/1.1\r\nHost: h\r\n\r\n",
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{\"a\":",
            "POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\n{\"t\r\n2\r\n\":\r\n0\r\nX-T: 1\r\n\r\n",
            "OPTIONS /todos HTTP/1.1\r\nHost: h\r\nOrigin: https://a.example\r\nAccess-Control-Request-Method: PUT\r\n\r\n",
            "GET /todos?limit=0 HTTP/1.1\r\nHost: h\r\n\r\n",
            "DELETE /todos/x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc",
            "GET http://h/todos?completed=maybe HTTP/1.1\r\nHost: h\r\n\r\n",
        ]
        func exchange(_ stream: [UInt8], pieces: [Range<Int>]) throws -> [String] {
            let client = try TestHTTPClient(port: server.port, recordsResponses: false)
            for piece in pieces { try client.send(Array(stream[piece])) }
            return try requests.map { request in
                let method = String(request.drop { $0 == "\r" || $0 == "\n" }.prefix { $0 != " " })
                let response = try client.readResponse(method: method)
                let fields = response.headers.filter { !["Date", "X-Request-ID"].contains($0.name) }.map { "\($0.name): \($0.value)" }
                return "\(response.status) \(fields) \(String(decoding: response.body, as: UTF8.self))"
            }
        }
        let stream = Array(requests.joined().utf8)
        let whole = try exchange(stream, pieces: [0..<stream.count])
        #expect(whole.map { $0.prefix(3) } == ["200", "200", "404", "400", "400", "204", "400", "404", "400"], "\(whole)")
        #expect(try exchange(stream, pieces: (0..<stream.count).map { $0..<$0 + 1 }) == whole, "byte by byte")
        for _ in 0..<20 {
            var cuts = (0..<Int(random.next() % 12)).map { _ in Int(random.next() % UInt64(stream.count)) }
            cuts = Array(Set(cuts + [0, stream.count])).sorted()
            let pieces = zip(cuts, cuts.dropFirst()).map { $0..<$1 }
            #expect(try exchange(stream, pieces: pieces) == whole, "seed \(seed), cuts \(cuts)")
        }
        #expect(server.store.count == 0)
    }

    @Test("a body in 100,000 one-byte chunks (600 KB of framing for 100 KB) is read and answered; the input holds no more than a read")
    func manySmallChunks() throws {
        let server = try LiveServer()
        let client = try server.client()
        let json = Array(#"{"title":"many chunks"}"#.utf8) + [UInt8](repeating: UInt8(ascii: " "), count: 100_000 - 23)
        var stream = Array("POST /todos HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for byte in json { stream += Array("1\r\n".utf8) + [byte] + Array("\r\n".utf8) }
        stream += Array("0\r\n\r\n".utf8)
        try client.send(stream)
        let created = try client.readResponse(method: "POST")
        #expect(created.status == 201)
        #expect(created.object["title"] as? String == "many chunks")
        #expect(server.application.wireStatistics.largestInputBytes <= 64 << 10, "\(server.application.wireStatistics)")
    }

    @Test("an answer before a close is delivered whole although the client keeps sending: the socket lingers")
    func answerBeforeCloseIsWhole() throws {
        let server = try LiveServer()
        let client = try server.client()
        // ~700 KB behind the request: more than the server reads before it answers, little enough
        // that the kernel's buffers take it without the client waiting for the server to read
        // (3.4 MB made the client's send wait on a loaded machine until the server stopped lingering).
        let flood = String(repeating: "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n", count: 20_000)
        try client.send("GET /openapi.json HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n" + flood)
        let answer = try client.readResponse()
        #expect(answer.status == 200)
        #expect(answer.body.count > 80_000)
        #expect(answer.body.count == answer.header("Content-Length").flatMap(Int.init))
        #expect(String(decoding: answer.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("}"))
        #expect(answer.header("Connection") == "close")
        #expect(client.serverClosed())
    }

    @Test(
        "a refusal on the wire carries the CORS headers of a listed origin, so that the page can read it",
        arguments: [
            "POST /todos HTTP/1.1\r\nHost: h\r\nOrigin: https://app.example.com\r\nContent-Length: 99999999\r\n\r\n",
            "GET /todos HTTP/1.1\r\nOrigin: https://app.example.com\r\nBad Name: x\r\n\r\n",
            "POST /todos HTTP/1.1\r\nHost: h\r\nOrigin: https://app.example.com\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ])
    func refusalsCarryCORS(stream: String) throws {
        let server = try LiveServer(configure: { $0.corsOrigin = "https://app.example.com" })
        let client = try server.client()
        try client.send(stream)
        let answer = try client.readResponse(method: "POST")
        #expect([400, 413].contains(answer.status))
        #expect(answer.header("Content-Type") == "application/problem+json")
        #expect(answer.header("Access-Control-Allow-Origin") == "https://app.example.com")
        #expect(answer.header("Connection") == "close")
        // An origin not on the list gets none.
        let other = try server.client()
        try other.send(stream.replacingOccurrences(of: "https://app.example.com", with: "https://evil.example"))
        #expect(try other.readResponse(method: "POST").header("Access-Control-Allow-Origin") == nil)
    }

    @Test("a client's end of stream that comes with its last requests closes the connection once they are answered, not at the time-out")
    func endOfStreamWithTheLastBytes() throws {
        let server = try LiveServer(configure: { $0.timeoutSeconds = 30 })
        let client = try TestHTTPClient(port: server.port, receiveTimeoutSeconds: 10)
        try client.send(String(repeating: "GET /healthz HTTP/1.1\r\nHost: h\r\n\r\n", count: 3))
        client.endSending()
        for _ in 0..<3 { #expect(try client.readResponse().status == 200) }
        // Closed by the server within the client's 10 s receive time-out: well before the 30 s one.
        #expect(client.serverClosed())
    }

    @Test("every answer carries exactly one Date field, of the time it was sent")
    func oneDateFieldOfTheTimeSent() throws {
        let server = try LiveServer()
        let before = time(nil)
        let answers = try [
            server.request("GET", "/todos"), server.request("GET", "/todos/nope"),
            server.request("OPTIONS", "/todos", headers: [("Origin", "http://a"), ("Access-Control-Request-Method", "POST")]),
            server.request("HEAD", "/todos"),
        ]
        let after = time(nil)
        for answer in answers {
            #expect(answer.headerCount("Date") == 1)
            let date = try #require(answer.header("Date"))
            #expect((before...after).map { imfFixdate($0) }.contains(date), "\(date)")
        }
    }
}
