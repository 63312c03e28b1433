import HTTPValues
import LockTracing
import Logging
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// The whole request pipeline in process, no socket: conditional requests, tokens, CORS, request
/// ids, the access log and the per-request logger.
@Suite("RequestPipeline (in process)")
struct RequestPipelineTests {
    let store = FakeTodoStore([makeTodo("abc", title: "Existing", revision: 3)])

    private func client(
        logHandler: (any LogHandler)? = nil, logLevel: Logger.Level = .info,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> InProcessClient {
        try InProcessClient(
            configure: configure, store: store, clock: FakeClock("2026-11-22T10:00:00.000Z"), ids: SequentialIDs(),
            logHandler: logHandler, logLevel: logLevel)
    }

    @Test("If-None-Match with the current tag: 304 on one to-do, with its ETag and no body")
    func notModifiedOne() async throws {
        let client = try client()
        let first = await client.request(.get, "/todos/abc")
        let tag = try #require(first.header("ETag"))
        #expect(first.status == 200)
        let again = await client.request(.get, "/todos/abc", headers: ["If-None-Match": tag])
        #expect(again.status == 304)
        #expect(again.header("ETag") == tag)
        #expect(again.body.isEmpty)
        #expect(again.header("X-Request-ID")?.utf8.count == 16)
        let other = await client.request(.get, "/todos/abc", headers: ["If-None-Match": #""other""#])
        #expect(other.status == 200)
        #expect(other.object["title"] as? String == "Existing")
    }

    @Test("If-None-Match with the list's tag: 304 with ETag and X-Total-Count; after a change, 200")
    func notModifiedList() async throws {
        let client = try client()
        let first = await client.request(.get, "/todos")
        let tag = try #require(first.header("ETag"))
        let again = await client.request(.get, "/todos", headers: ["If-None-Match": tag])
        #expect(again.status == 304)
        #expect(again.header("ETag") == tag)
        #expect(again.header("X-Total-Count") == "1")
        #expect(again.body.isEmpty)
        #expect(await client.request(.post, "/todos", body: #"{"title":"New"}"#).status == 201)
        let changed = await client.request(.get, "/todos", headers: ["If-None-Match": tag])
        #expect(changed.status == 200)
        #expect(changed.header("X-Total-Count") == "2")
        #expect(changed.header("ETag") != tag)
    }

    @Test("a stale If-Match is 412 with the current ETag and leaves the to-do as it was")
    func staleIfMatch() async throws {
        let client = try client()
        let stale = try #require(await client.request(.get, "/todos/abc").header("ETag"))
        let changed = await client.request(.patch, "/todos/abc", headers: ["If-Match": stale], body: #"{"title":"Changed"}"#)
        #expect(changed.status == 200)
        let current = try #require(changed.header("ETag"))
        #expect(current != stale)
        let refused = await client.request(.patch, "/todos/abc", headers: ["If-Match": stale], body: #"{"title":"Lost"}"#)
        #expect(refused.status == 412)
        #expect(refused.header("Content-Type") == "application/problem+json")
        #expect(refused.header("ETag") == current)
        #expect(refused.object["status"] as? Int == 412)
        #expect(store.stored["abc"]?.title == "Changed")
        #expect(await client.request(.delete, "/todos/abc", headers: ["If-Match": stale]).status == 412)
        #expect(store.count == 1)
    }

    @Test("tokens: none is 401 with a challenge, an unknown one 401, a read token 403 on a write")
    func tokens() async throws {
        let client = try client {
            $0.authTokens = ["rw-token"]
            $0.readTokens = ["ro-token"]
        }
        let missing = await client.request(.get, "/todos")
        #expect(missing.status == 401)
        #expect(missing.header("WWW-Authenticate") == "Bearer")
        let unknown = await client.request(.get, "/todos", headers: ["Authorization": "Bearer nope"])
        #expect(unknown.status == 401)
        #expect(unknown.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)
        #expect(await client.request(.get, "/todos", headers: ["Authorization": "Bearer ro-token"]).status == 200)
        let forbidden = await client.request(
            .post, "/todos", headers: ["Authorization": "Bearer ro-token"], body: #"{"title":"No"}"#)
        #expect(forbidden.status == 403)
        #expect(forbidden.object["status"] as? Int == 403)
        #expect(store.count == 1)
        let created = await client.request(
            .post, "/todos", headers: ["Authorization": "Bearer rw-token"], body: #"{"title":"Yes"}"#)
        #expect(created.status == 201)
        #expect(store.count == 2)
    }

    @Test("a CORS list echoes a listed origin with Vary, and gives an unlisted one no CORS header")
    func corsList() async throws {
        let client = try client { $0.corsOrigin = "https://a.example, https://b.example" }
        let listed = await client.request(.get, "/todos", headers: ["Origin": "https://b.example"])
        #expect(listed.header("Access-Control-Allow-Origin") == "https://b.example")
        #expect(listed.header("Vary") == "Origin")
        #expect(
            listed.header("Access-Control-Expose-Headers")
                == "Location, ETag, Link, X-Total-Count, X-Last-Event-ID, X-Request-ID, Retry-After, WWW-Authenticate, Allow")
        let unlisted = await client.request(.get, "/todos", headers: ["Origin": "https://c.example"])
        #expect(unlisted.status == 200)
        #expect(unlisted.header("Access-Control-Allow-Origin") == nil)
        #expect(unlisted.header("Vary") == "Origin")
        let preflight = await client.request(
            .options, "/todos", headers: ["Origin": "https://c.example", "Access-Control-Request-Method": "POST"])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Methods") == nil)
        #expect(preflight.header("Allow") == "GET, HEAD, POST, DELETE, OPTIONS")
    }

    @Test("base URLs follow each request's Host on one loop (the loop keeps its last one), the fallback without Host, publicURL over Host")
    func baseURLPerHost() async throws {
        let client = try client()
        for host in ["a.example", "b.example:8080", "a.example", "a.example", "[::1]:9"] {
            let answer = await client.request(.get, "/todos/abc", headers: ["Host": host])
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self).contains(#""url":"http://\#(host)/todos/abc""#), "Host \(host)")
        }
        // Without Host: the application's fallback (localhost and its bound port), not the last host.
        let without = String(decoding: await client.request(.get, "/todos/abc").body, as: UTF8.self)
        #expect(without.contains(#""url":"http://localhost"#))
        #expect(!without.contains("[::1]"))
        let configured = try self.client { $0.publicURL = "https://todo.example" }
        let answer = await configured.request(.get, "/todos/abc", headers: ["Host": "a.example"])
        #expect(String(decoding: answer.body, as: UTF8.self).contains(#""url":"https://todo.example/todos/abc""#))
    }

    @Test("X-Request-ID: a valid one is echoed, an invalid one replaced by 16 hex digits")
    func requestID() async throws {
        let client = try client()
        #expect(await client.request(.get, "/todos", headers: ["X-Request-ID": "trace-42"]).header("X-Request-ID") == "trace-42")
        let replaced = try #require(await client.request(.get, "/nope", headers: ["X-Request-ID": "has space"]).header("X-Request-ID"))
        #expect(replaced.utf8.count == 16)
        #expect(replaced.utf8.allSatisfy { Hex.value(of: $0) != nil && !(UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) })
    }

    @Test("the access log line: method, target, status, bytes, duration; request id and client as metadata")
    func accessLogLine() async throws {
        let storage = CapturingLogHandler.Storage()
        let client = try client(logHandler: CapturingLogHandler(storage: storage))
        let response = await client.request(.get, "/todos/missing?x=1", headers: ["X-Request-ID": "req-1"], client: "198.51.100.4:4242")
        #expect(response.status == 404)
        let lines = storage.lines.withTracedLock { $0 }
        let line = try #require(lines.only)
        #expect(line.level == .info)
        #expect(line.message.hasPrefix("GET /todos/missing?x=1 404 \(response.body.count) "))
        #expect(line.message.hasSuffix("ms — No to-do has the id 'missing'."))
        #expect(line.metadata["request_id"] == "req-1")
        #expect(line.metadata["client"] == "198.51.100.4:4242")
    }

    @Test(
        "an answer nobody took is logged as not delivered, with its request id and why",
        arguments: [
            (HTTPDelivery.connectionClosed, "the connection closed before the answer"),
            (HTTPDelivery.alreadyAnswered, "the request was answered already"),
        ])
    func undelivered(delivery: HTTPDelivery, why: String) async throws {
        let storage = CapturingLogHandler.Storage()
        var client = try client(logHandler: CapturingLogHandler(storage: storage))
        client.delivery = delivery
        _ = await client.request(.get, "/todos", headers: ["X-Request-ID": "gone-1"])
        let line = try #require(storage.lines.withTracedLock { $0 }.only)
        #expect(line.level == .warning)
        #expect(line.message == "GET /todos not delivered: \(why)")
        #expect(line.metadata["request_id"] == "gone-1")
        #expect(line.metadata["status"] == "200")
    }

    @Test("a module logs through the request's logger: its line carries the request id")
    func moduleLogCarriesRequestID() async throws {
        let storage = CapturingLogHandler.Storage()
        let client = try InProcessClient(
            store: FakeTodoStore(failure: StoreError(reason: "disk on fire")), clock: FakeClock("2026-11-22T10:00:00.000Z"),
            logHandler: CapturingLogHandler(storage: storage))
        let response = await client.request(.get, "/todos/upcoming", headers: ["X-Request-ID": "up-7"])
        #expect(response.status >= 500)
        let lines = storage.lines.withTracedLock { $0 }
        let moduleLine = try #require(lines.first { $0.level == .error })
        #expect(moduleLine.message == "upcoming: the store failed")
        #expect(moduleLine.metadata["request_id"] == "up-7")
        #expect(moduleLine.metadata["reason"] == "disk on fire")
    }

    @Test("the router's token decision is logged at debug with the request id")
    func routerLogCarriesRequestID() async throws {
        let storage = CapturingLogHandler.Storage()
        let client = try client(logHandler: CapturingLogHandler(storage: storage, logLevel: .debug), logLevel: .debug) {
            $0.authTokens = ["rw-token"]
        }
        _ = await client.request(.get, "/todos", headers: ["X-Request-ID": "tok-1"])
        let line = try #require(storage.lines.withTracedLock { $0 }.first { $0.message == "token check" })
        #expect(line.metadata["request_id"] == "tok-1")
        #expect(line.metadata["decision"] == "missingToken")
    }
}

extension Array {
    /// The one element, or nil when there are none or several.
    fileprivate var only: Element? { count == 1 ? first : nil }
}
