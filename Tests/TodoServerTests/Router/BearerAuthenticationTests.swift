import HTTPValues
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("BearerAuthentication")
struct BearerAuthenticationTests {
    let tokens = BearerAuthentication(authTokens: ["writer-token", "second-writer"], readTokens: ["reader-token"])

    @Test("without tokens everything is open")
    func disabled() {
        let open = BearerAuthentication()
        #expect(!open.isEnabled)
        #expect(open.decide(method: .delete, route: .todos, authorization: nil) == .open)
    }

    @Test(
        "decisions by method, route and token",
        arguments: [
            (HTTPMethod.get, Route.todos, nil, BearerAuthentication.Decision.missingToken),
            (.get, .todos, "Bearer writer-token", .readWrite),
            (.delete, .todos, "Bearer second-writer", .readWrite),
            (.get, .todos, "bearer   reader-token ", .readOnly),
            (.head, .todo(id: "x"), "Bearer reader-token", .readOnly),
            (.post, .todos, "Bearer reader-token", .writeWithReadToken),
            (.delete, .todo(id: "x"), "Bearer reader-token", .writeWithReadToken),
            (.get, .todos, "Bearer writer-toke", .unknownToken),
            (.get, .todos, "Bearer writer-tokenx", .unknownToken),
            (.get, .todos, "Basic d3JpdGVyLXRva2Vu", .otherScheme),
            (.get, .todos, "Bearer", .otherScheme),
            (.get, .todos, "Bearer ", .otherScheme),
            (.get, .todos, "Bearerwriter-token", .otherScheme),
            (.options, .todos, nil, .open),
            (.get, .health, nil, .open),
            (.head, .health, nil, .open),
            (.post, .health, nil, .missingToken),
            (.get, .metrics, nil, .missingToken),
            (.get, .openAPI, nil, .missingToken),
            (.get, nil, nil, .missingToken),
        ] as [(HTTPMethod, Route?, String?, BearerAuthentication.Decision)])
    func decisions(method: HTTPMethod, route: Route?, authorization: String?, expected: BearerAuthentication.Decision) {
        #expect(tokens.decide(method: method, route: route, authorization: authorization) == expected)
    }

    @Test("metricsPublic opens /metrics only")
    func metricsPublic() {
        let open = BearerAuthentication(readTokens: ["r"], metricsPublic: true)
        #expect(open.decide(method: .get, route: .metrics, authorization: nil) == .open)
        #expect(open.decide(method: .get, route: .todos, authorization: nil) == .missingToken)
    }

    @Test("health details: for a valid token (read or write), for anyone while tokens are off or metricsPublic is set")
    func details() {
        #expect(tokens.showsDetails(authorization: "Bearer reader-token"))
        #expect(tokens.showsDetails(authorization: "Bearer writer-token"))
        #expect(!tokens.showsDetails(authorization: nil))
        #expect(!tokens.showsDetails(authorization: "Bearer writer-toke"))
        #expect(!tokens.showsDetails(authorization: "Basic d3JpdGVyLXRva2Vu"))
        #expect(BearerAuthentication().showsDetails(authorization: nil))
        #expect(BearerAuthentication(readTokens: ["r"], metricsPublic: true).showsDetails(authorization: nil))
    }

    @Test("the comparison reads every byte of the given token")
    func comparison() {
        #expect(BearerAuthentication.constantTimeEquals(Array("abc".utf8), Array("abc".utf8)))
        #expect(!BearerAuthentication.constantTimeEquals(Array("abd".utf8), Array("abc".utf8)))
        #expect(!BearerAuthentication.constantTimeEquals(Array("ab".utf8), Array("abc".utf8)))
        #expect(!BearerAuthentication.constantTimeEquals(Array("abcabc".utf8), Array("abc".utf8)))
        #expect(!BearerAuthentication.constantTimeEquals([], []))
    }
}

@Suite("CORSPolicy")
struct CORSPolicyTests {
    @Test("origins: * or a list; anything else refused")
    func parsing() {
        #expect(CORSPolicy.AllowedOrigins(parsing: "*") == .any)
        #expect(
            CORSPolicy.AllowedOrigins(parsing: "https://A.example, http://b.example:8080,null,http://[::1]:3000")
                == .list(["https://a.example", "http://b.example:8080", "null", "http://[::1]:3000"]))
        for bad in [
            "", " ", "https://a.example/", "https://a.example/x", "a.example", "https://", "https://a.example:", "*, https://a.example",
            "https://a.example,,http://b.example", "https://a_b.example",
        ] {
            #expect(CORSPolicy.AllowedOrigins(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("a listed origin is echoed with Vary and credentials; others get no CORS headers")
    func list() {
        let policy = CORSPolicy(allowedOrigin: "https://a.example, https://b.example", allowCredentials: true)
        var headers = HTTPHeaders()
        policy.apply(to: &headers, requestOrigin: "https://b.example")
        #expect(headers["Access-Control-Allow-Origin"] == "https://b.example")
        #expect(headers["Vary"] == "Origin")
        #expect(headers["Access-Control-Allow-Credentials"] == "true")
        #expect(headers["Access-Control-Expose-Headers"] == CORSPolicy.exposedHeaders)
        var other = HTTPHeaders()
        policy.apply(to: &other, requestOrigin: "https://evil.example")
        #expect(other["Access-Control-Allow-Origin"] == nil)
        #expect(other["Access-Control-Allow-Credentials"] == nil)
        #expect(other["Vary"] == "Origin")
        #expect(policy.preflightHeaders(requestedHeaders: "X-Custom", origin: "https://evil.example").fields.isEmpty)
    }

    @Test("Authorization is allowed in preflights when tokens are on")
    func authorization() {
        let on = CORSPolicy(allowAuthorization: true)
        #expect(
            on.preflightHeaders(requestedHeaders: nil)["Access-Control-Allow-Headers"]
                == "Content-Type, If-Match, If-None-Match, Authorization")
        #expect(
            CORSPolicy().preflightHeaders(requestedHeaders: nil)["Access-Control-Allow-Headers"] == "Content-Type, If-Match, If-None-Match")
        #expect(CORSPolicy(allowCredentials: true).allowCredentials == false, "never credentials with *")
    }
}
