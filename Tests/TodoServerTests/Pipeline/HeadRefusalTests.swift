import HTTPValues
import LockTracing
import Logging
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// `RequestPipeline.answer(toHead:)`, what the wire asks before sending `100 Continue`: a request
/// refused from its head alone gets, from the head, the very answer the whole request gets; a
/// request whose answer depends on its body or its module gets none (then the wire sends 100).
@Suite("RequestPipeline: refusals from the head (Expect: 100-continue)")
struct HeadRefusalTests {
    private func client(logHandler: (any LogHandler)? = nil) throws -> InProcessClient {
        try InProcessClient(
            configure: {
                $0.authTokens = ["rw"]
                $0.readTokens = ["ro"]
                $0.corsOrigin = "https://app.example.com"
                $0.maxURIBytes = 64
            },
            store: FakeTodoStore([makeTodo("abc", title: "Existing", revision: 3)]), clock: FakeClock("2026-11-22T10:00:00.000Z"),
            ids: SequentialIDs(), logHandler: logHandler)
    }

    /// Requests with a body, as (method, target, headers); `Content-Length` and `Expect` are added.
    static let refused: [(HTTPMethod, String, HTTPHeaders)] = [
        (.post, "/todos", ["Content-Type": "application/json"]),
        (.post, "/todos", ["Authorization": "Basic cnc6", "Content-Type": "application/json"]),
        (.post, "/todos", ["Authorization": "Bearer nope", "Content-Type": "application/json"]),
        (.patch, "/todos/abc", ["Authorization": "Bearer ro", "Content-Type": "application/json"]),
        (.post, "/todos", ["Authorization": "Bearer rw", "Content-Type": "text/plain"]),
        (.put, "/todos/abc", ["Authorization": "Bearer rw", "Content-Type": "application/xml; charset=utf-8"]),
        (.post, "/nothing/here", ["Authorization": "Bearer rw", "Content-Type": "application/json"]),
        (.put, "/todos", ["Authorization": "Bearer rw", "Content-Type": "application/json"]),
        (.post, "/healthz", ["Authorization": "Bearer rw"]),
        (.post, "/todos?" + String(repeating: "a", count: 80), ["Authorization": "Bearer rw", "Content-Type": "application/json"]),
        (.post, "/todos", ["Authorization": "Bearer rw", "If-Match": " "]),
    ]

    /// Requests whose answer depends on the body or the module: the head gets no answer.
    static let accepted: [(HTTPMethod, String, HTTPHeaders)] = [
        (.post, "/todos", ["Authorization": "Bearer rw", "Content-Type": "application/json"]),
        (.post, "/todos", ["Authorization": "Bearer rw"]),
        (.patch, "/todos/abc", ["Authorization": "Bearer rw", "Content-Type": "application/merge-patch+json"]),
        (.put, "/todos/missing", ["Authorization": "Bearer rw", "Content-Type": "application/json"]),
        (.delete, "/todos/abc", ["Authorization": "Bearer rw"]),
        (.options, "/todos", ["Origin": "https://app.example.com", "Access-Control-Request-Method": "POST"]),
        (.options, "*", [:]),
        (.get, "/todos", ["Authorization": "Bearer ro"]),
    ]

    private func head(_ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders, origin: Bool = true) -> HTTPRequest {
        var headers = headers
        headers.add("Host", "h")
        if origin, headers["Origin"] == nil { headers.add("Origin", "https://app.example.com") }
        headers.add("Content-Length", "17")
        headers.add("Expect", "100-continue")
        return HTTPRequest(method: method, uri: target, headers: headers)
    }

    private func comparable(_ response: HTTPResponseSnapshot) -> String {
        let fields = response.headers.filter { $0.name != "X-Request-ID" }.map { "\($0.name): \($0.value)" }
        return "\(response.status) \(fields) \(String(decoding: response.body, as: UTF8.self))"
    }

    @Test("a refused head gets the answer the whole request gets: status, headers (CORS included), problem", arguments: refused.indices)
    func sameAnswerAsWhole(index: Int) async throws {
        let (method, target, headers) = Self.refused[index]
        let client = try client()
        let head = head(method, target, headers)
        let fromHead = try #require(await client.answer(toHead: head), "\(method) \(target) \(headers)")
        #expect(fromHead.status >= 400)
        #expect(fromHead.headers["X-Request-ID"] != nil)
        var whole = head
        whole.body = Array(#"{"title":"body!"}"#.utf8)
        let answer = await client.request(method, target, headers: whole.headers, body: #"{"title":"body!"}"#)
        #expect(comparable(HTTPResponseSnapshot(fromHead)) == comparable(answer))
    }

    @Test("a head whose answer depends on its body or its module gets none: the wire sends 100 Continue", arguments: accepted.indices)
    func noAnswerFromHead(index: Int) async throws {
        let (method, target, headers) = Self.accepted[index]
        #expect(try await client().answer(toHead: head(method, target, headers)) == nil, "\(method) \(target) \(headers)")
    }

    @Test("a chunked body's type is judged once it is read: no 415 from the head (the body may be empty)")
    func chunkedType() async throws {
        var headers: HTTPHeaders = ["Host": "h", "Authorization": "Bearer rw", "Content-Type": "text/plain"]
        headers.add("Transfer-Encoding", "chunked")
        headers.add("Expect", "100-continue")
        #expect(try await client().answer(toHead: HTTPRequest(method: .post, uri: "/todos", headers: headers)) == nil)
    }

    @Test("a connection over the limit: the head gets the 503")
    func overLimit() async throws {
        let head = head(.post, "/todos", ["Authorization": "Bearer rw", "Content-Type": "application/json"])
        let answer = try #require(try await client().answer(toHead: head, connectionOverLimit: true))
        #expect(answer.status == 503)
        #expect(answer.headers["Retry-After"] == "1")
    }

    @Test("a refusal from the head is logged like any answer, with its request id; an accepted head logs nothing")
    func accessLog() async throws {
        let storage = CapturingLogHandler.Storage()
        let client = try client(logHandler: CapturingLogHandler(storage: storage))
        var head = head(.post, "/todos", ["Content-Type": "application/json"])
        head.headers.add("X-Request-ID", "head-1")
        #expect(await client.answer(toHead: head)?.status == 401)
        _ = await client.answer(toHead: self.head(.post, "/todos", ["Authorization": "Bearer rw"]))
        let lines = storage.lines.withTracedLock { $0 }
        #expect(lines.count == 1, "\(lines.map(\.message))")
        let line = try #require(lines.first)
        #expect(line.message.hasPrefix("POST /todos 401 "))
        #expect(line.metadata["request_id"] == "head-1")
    }
}
