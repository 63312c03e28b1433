import HTTPValues
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

/// What the pipeline tells a caller without the right token: `/healthz` only up or down, an RFC
/// 6750-exact challenge, and the headers a page needs to act on an error exposed to it.
@Suite("RequestPipeline: anonymous health, bearer challenges, exposed headers (in process)")
struct AccessAnswersTests {
    private func client(
        store: FakeTodoStore = FakeTodoStore([makeTodo("abc")]), configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> InProcessClient {
        try InProcessClient(
            configure: {
                $0.authTokens = ["rw-token"]
                $0.readTokens = ["ro-token"]
                configure(&$0)
            }, store: store, clock: FakeClock("2026-11-22T10:00:00.000Z"), ids: SequentialIDs())
    }

    @Test(
        "with tokens on, anonymous /healthz is only up; a valid token (or metricsPublic) adds the count",
        arguments: [
            (nil, false, #"{"status":"ok"}"#),
            ("Bearer nope", false, #"{"status":"ok"}"#),
            ("Basic cnctdG9rZW4=", false, #"{"status":"ok"}"#),
            ("Bearer ro-token", false, #"{"status":"ok","todos":1}"#),
            ("Bearer rw-token", false, #"{"status":"ok","todos":1}"#),
            (nil, true, #"{"status":"ok","todos":1}"#),
        ] as [(String?, Bool, String)])
    func healthUp(authorization: String?, metricsPublic: Bool, body: String) async throws {
        let client = try client { $0.metricsPublic = metricsPublic }
        let headers: HTTPHeaders = authorization.map { ["Authorization": $0] } ?? [:]
        let health = await client.request(.get, "/healthz", headers: headers)
        #expect(health.status == 200)
        #expect(health.header("Content-Type") == "application/json")
        #expect(health.text == body)
    }

    @Test("with tokens on, anonymous /healthz of a store that is down says only unavailable; never the store's message")
    func healthDown() async throws {
        let reason = #"connection to server on socket "/run/postgresql/.s.PGSQL.5432" failed: No such file or directory"#
        let client = try client(store: FakeTodoStore([], failure: StoreError(reason: reason)))
        let anonymous = await client.request(.get, "/healthz")
        #expect(anonymous.status == 503)
        #expect(anonymous.text == #"{"status":"unavailable"}"#)
        let head = await client.request(.head, "/healthz")
        #expect(head.status == 503)
        let detailed = await client.request(.get, "/healthz", headers: ["Authorization": "Bearer ro-token"])
        #expect(detailed.status == 503)
        #expect(detailed.object["reason"] as? String == reason)
        #expect(detailed.object["todos"] as? Int == 0)
    }

    @Test("with owners, anonymous /healthz shows no count even with metricsPublic (the contract); an operator's token does")
    func healthWithOwners() async throws {
        let client = try client {
            $0.metricsPublic = true
            $0.ownerTokens = [OwnerToken(owner: Owner(name: "alice")!, token: "alice-token")]
        }
        #expect(await client.request(.get, "/healthz").text == #"{"status":"ok"}"#)
        #expect(await client.request(.get, "/healthz", headers: ["Authorization": "Bearer alice-token"]).text == #"{"status":"ok"}"#)
        #expect(await client.request(.get, "/healthz", headers: ["Authorization": "Bearer ro-token"]).text == #"{"status":"ok","todos":1}"#)
    }

    @Test("with tokens off everything is public: /healthz keeps its details")
    func healthWithoutTokens() async throws {
        let client = try InProcessClient(store: FakeTodoStore([makeTodo("a"), makeTodo("b")]))
        #expect(await client.request(.get, "/healthz").text == #"{"status":"ok","todos":2}"#)
    }

    @Test(
        "401 challenges: an error code only for a bearer token that is wrong (RFC 6750 §3.1)",
        arguments: [
            (nil, "Bearer"),
            ("Basic cnctdG9rZW4=", "Bearer"),
            ("Digest username=\"a\"", "Bearer"),
            ("Bearer", "Bearer"),
            ("Bearer    ", "Bearer"),
            ("Bearer nope", #"Bearer error="invalid_token""#),
            ("bearer rw-token-2", #"Bearer error="invalid_token""#),
        ] as [(String?, String)])
    func challenges(authorization: String?, challenge: String) async throws {
        let client = try client()
        let headers: HTTPHeaders = authorization.map { ["Authorization": $0] } ?? [:]
        let response = await client.request(.get, "/todos", headers: headers)
        #expect(response.status == 401)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(response.header("WWW-Authenticate") == challenge)
        #expect(response.object["status"] as? Int == 401)
    }

    @Test("Retry-After, WWW-Authenticate and Allow are exposed to pages of a listed origin, and with *")
    func exposedHeaders() async throws {
        let listed = try client { $0.corsOrigin = "https://app.example" }
        let unauthorized = await listed.request(.get, "/todos", headers: ["Origin": "https://app.example"])
        #expect(unauthorized.status == 401)
        #expect(unauthorized.header("Access-Control-Allow-Origin") == "https://app.example")
        #expect(
            unauthorized.header("Access-Control-Expose-Headers")
                == "Location, ETag, Link, X-Total-Count, X-Last-Event-ID, X-Request-ID, Retry-After, WWW-Authenticate, Allow")
        let open = try InProcessClient()
        let notAllowed = await open.request(.patch, "/todos", headers: ["Origin": "https://other.example"])
        #expect(notAllowed.status == 405)
        #expect(notAllowed.header("Allow") == "GET, HEAD, POST, DELETE, OPTIONS")
        #expect(notAllowed.header("Access-Control-Allow-Origin") == "*")
        #expect(
            notAllowed.header("Access-Control-Expose-Headers")?.split(separator: ",").map { $0.trimmingPrefix(" ") }
                .filter { ["Retry-After", "WWW-Authenticate", "Allow"].contains($0) }.count == 3)
    }
}
