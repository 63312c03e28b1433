import Foundation
import LockTracing
import TestSupport
import Testing

@testable import TodoData
@testable import TodoDataTestSupport
@testable import TodoServer

@Suite("End to end: bearer tokens and the CORS allow-list")
struct AccessControlEndToEndTests {
    private func tokenServer(metricsPublic: Bool = false, logHandler: CapturingLogHandler? = nil) throws -> TestServer {
        try TestServer(
            configure: {
                $0.authTokens = ["writer-secret-1"]
                $0.readTokens = ["reader-secret-1"]
                $0.metricsPublic = metricsPublic
            }, logHandler: logHandler, logLevel: .trace)
    }

    @Test("no token or an unknown one: 401 problem+json with WWW-Authenticate and CORS headers")
    func unauthorized() async throws {
        let server = try tokenServer()
        for headers in [[("Origin", "https://app.example")], [("Authorization", "Bearer nope"), ("Origin", "https://app.example")]] {
            let response = try await server.request("GET", "/todos", headers: headers)
            #expect(response.status == 401)
            #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(response.header("Content-Type") == "application/problem+json")
            #expect(response.object["status"] as? Int == 401)
            #expect(response.header("Access-Control-Allow-Origin") == "*")
            #expect(response.header("Access-Control-Expose-Headers")?.contains("X-Request-ID") == true)
        }
        #expect(try await server.request("GET", "/nowhere").status == 401, "unknown paths are not revealed without a token")
        #expect(try await server.request("DELETE", "/todos").status == 401)
        #expect(server.store.count == 0)
    }

    @Test("a read token reads and gets 403 on a write; a read-write token writes")
    func readAndWrite() async throws {
        let server = try tokenServer()
        let reader = [("Authorization", "Bearer reader-secret-1")]
        let writer = [("Authorization", "Bearer writer-secret-1")]
        #expect(try await server.request("GET", "/todos", headers: reader).status == 200)
        #expect(try await server.request("HEAD", "/todos", headers: reader).status == 200)
        let refused = try await server.request("POST", "/todos", headers: reader, body: #"{"title":"x"}"#)
        #expect(refused.status == 403)
        #expect(refused.object["detail"] as? String == "The token may only read (GET, HEAD); POST needs a read-write token.")
        #expect(server.store.count == 0)
        let created = try await server.request("POST", "/todos", headers: writer, body: #"{"title":"x"}"#)
        #expect(created.status == 201)
        #expect(try await server.request("DELETE", "/todos", headers: reader).status == 403)
        #expect(server.store.count == 1)
        #expect(try await server.request("DELETE", "/todos", headers: writer).status == 204)
    }

    @Test("preflights and GET /healthz stay open; /metrics follows metricsPublic")
    func openRoutes() async throws {
        let server = try tokenServer()
        let preflight = try await server.preflight(
            "/todos", from: "https://app.example", method: "DELETE", requestHeaders: "authorization, content-type")
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Headers") == "Content-Type, If-Match, If-None-Match, Authorization")
        #expect(try await server.request("GET", "/healthz").status == 200)
        #expect(try await server.request("GET", "/metrics").status == 401)
        #expect(try await server.request("GET", "/metrics", headers: [("Authorization", "Bearer reader-secret-1")]).status == 200)
        let publicMetrics = try tokenServer(metricsPublic: true)
        #expect(try await publicMetrics.request("GET", "/metrics").status == 200)
        #expect(try await publicMetrics.request("GET", "/todos").status == 401)
    }

    @Test("tokens never appear in the logs, even at trace")
    func tokensNotLogged() async throws {
        let storage = CapturingLogHandler.Storage()
        let server = try tokenServer(logHandler: CapturingLogHandler(storage: storage, logLevel: .trace))
        _ = try await server.request("GET", "/todos", headers: [("Authorization", "Bearer reader-secret-1")])
        _ = try await server.request("GET", "/todos", headers: [("Authorization", "Bearer wrong-secret-9")])
        let lines = storage.lines.withTracedLock { $0 }
        let text = lines.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
        #expect(text.contains("Authorization: (redacted)"), "the trace line lists the header, not its value")
        #expect(!text.contains("reader-secret-1") && !text.contains("wrong-secret-9") && !text.contains("writer-secret-1"))
    }

    @Test("CORS list: a listed origin is echoed with Vary and credentials, others get no CORS headers")
    func corsList() async throws {
        let server = try TestServer(configure: {
            $0.corsOrigin = "https://a.example, https://b.example"
            $0.corsCredentials = true
        })
        let listed = try await server.request("GET", "/todos", headers: [("Origin", "https://b.example")])
        #expect(listed.header("Access-Control-Allow-Origin") == "https://b.example")
        #expect(listed.headerCount("Access-Control-Allow-Origin") == 1)
        #expect(listed.header("Vary") == "Origin")
        #expect(listed.header("Access-Control-Allow-Credentials") == "true")
        #expect(
            listed.header("Access-Control-Expose-Headers")
                == "Location, ETag, Link, X-Total-Count, X-Last-Event-ID, X-Request-ID, Retry-After, WWW-Authenticate, Allow")
        let other = try await server.request("GET", "/todos", headers: [("Origin", "https://evil.example")])
        #expect(other.status == 200)
        #expect(other.header("Access-Control-Allow-Origin") == nil)
        #expect(other.header("Access-Control-Allow-Credentials") == nil)
        #expect(other.header("Vary") == "Origin")
        let preflight = try await server.preflight("/todos/x", from: "https://a.example", method: "PUT", requestHeaders: "X-Trace")
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "https://a.example")
        #expect(preflight.header("Access-Control-Allow-Methods") == "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
        #expect(preflight.header("Access-Control-Allow-Headers") == "Content-Type, If-Match, If-None-Match, X-Trace")
        #expect(preflight.header("Access-Control-Max-Age") == "86400")
        let refusedPreflight = try await server.preflight("/todos", from: "https://evil.example", method: "DELETE")
        #expect(refusedPreflight.status == 204)
        #expect(refusedPreflight.header("Access-Control-Allow-Methods") == nil)
        #expect(refusedPreflight.header("Access-Control-Allow-Origin") == nil)
    }

    @Test("CORS headers on every response; preflights for every route, Origin null included")
    func cors() async throws {
        let server = try TestServer()
        for path in ["/", "/healthz", "/todos", "/todos/upcoming", "/todos/some-id"] {
            let preflight = try await server.preflight(path, from: "null", method: "DELETE", requestHeaders: "content-type,if-match")
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == "*")
            #expect(preflight.header("Access-Control-Allow-Methods") == "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
            #expect(preflight.header("Access-Control-Allow-Headers") == "Content-Type, If-Match, If-None-Match")
            #expect(preflight.header("Access-Control-Max-Age") == "86400")
        }
        for response in [
            try await server.request("GET", "/todos"), try await server.request("GET", "/missing"),
            try await server.request("POST", "/todos", body: "{"),
        ] {
            #expect(response.header("Access-Control-Allow-Origin") == "*")
            #expect(
                response.header("Access-Control-Expose-Headers")
                    == "Location, ETag, Link, X-Total-Count, X-Last-Event-ID, X-Request-ID, Retry-After, WWW-Authenticate, Allow")
        }
        let configured = try TestServer(configure: {
            $0.corsOrigin = "https://app.example.com"; $0.corsMaxAgeSeconds = 600
        })
        let response = try await configured.request("OPTIONS", "/todos", headers: [("Origin", "https://app.example.com")])
        #expect(response.header("Access-Control-Allow-Origin") == "https://app.example.com")
        #expect(response.header("Access-Control-Max-Age") == "600")
        #expect(response.header("Vary") == "Origin")
    }
}
