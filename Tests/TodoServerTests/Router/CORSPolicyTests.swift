import HTTPValues
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("CORSPolicy: origins, response headers and preflights")
struct CORSPolicyRulesTests {
    @Test(
        "origin settings: `*`, lists of origins or null (lower-cased); anything else is not an origin",
        arguments: [
            ("*", CORSPolicy.AllowedOrigins.any),
            (" * ", .any),
            ("https://App.Example.com", .list(["https://app.example.com"])),
            ("http://a:8080, null ,http://[::1]:3000", .list(["http://a:8080", "null", "http://[::1]:3000"])),
        ])
    func parsing(text: String, expected: CORSPolicy.AllowedOrigins) {
        #expect(CORSPolicy.AllowedOrigins(parsing: text) == expected)
    }

    @Test(
        "not origins: a path, a trailing slash, no scheme, a bad port, an empty entry, white space inside",
        arguments: [
            "https://a.example/app", "https://a.example/", "a.example", "https://a:99999", "https://a:", "http://a,",
            "https://a b", "1http://a", "https://", "http://[::g]", "",
        ])
    func notOrigins(text: String) {
        #expect(CORSPolicy.AllowedOrigins(parsing: text) == nil)
    }

    @Test("any origin: every response says *, exposes the API's headers, no Vary and never credentials")
    func anyOrigin() {
        let policy = CORSPolicy(allowedOrigin: "*", allowCredentials: true)
        #expect(!policy.allowCredentials)
        var headers = HTTPHeaders()
        policy.apply(to: &headers, requestOrigin: "https://x.example")
        #expect(
            headers == [
                "Access-Control-Allow-Origin": "*",
                "Access-Control-Expose-Headers":
                    "Location, ETag, Link, X-Total-Count, X-Last-Event-ID, X-Request-ID, Retry-After, WWW-Authenticate, Allow",
            ])
    }

    @Test("a listed origin is echoed as sent, with Vary and credentials; an unlisted one gets Vary only")
    func listedOrigin() {
        let policy = CORSPolicy(allowedOrigin: "https://app.example", allowCredentials: true)
        var listed = HTTPHeaders()
        policy.apply(to: &listed, requestOrigin: "HTTPS://App.Example")
        #expect(
            listed == [
                "Vary": "Origin",
                "Access-Control-Allow-Origin": "HTTPS://App.Example",
                "Access-Control-Expose-Headers":
                    "Location, ETag, Link, X-Total-Count, X-Last-Event-ID, X-Request-ID, Retry-After, WWW-Authenticate, Allow",
                "Access-Control-Allow-Credentials": "true",
            ])
        var unlisted = HTTPHeaders()
        policy.apply(to: &unlisted, requestOrigin: "https://evil.example")
        #expect(unlisted == ["Vary": "Origin"])
        var none = HTTPHeaders()
        policy.apply(to: &none, requestOrigin: nil)
        #expect(none == ["Vary": "Origin"])
    }

    @Test("an invalid configured origin allows no origin at all")
    func invalidConfiguration() {
        let policy = CORSPolicy(allowedOrigin: "https://a.example/path")
        #expect(policy.allowedOrigins == .list([]))
        #expect(policy.preflightHeaders(requestedHeaders: nil, origin: "https://a.example/path") == [:])
    }

    @Test("a preflight: the routes' methods, the base headers plus valid requested ones (once each), max age")
    func preflight() {
        let policy = CORSPolicy(allowedOrigin: "*", maxAgeSeconds: 600)
        let headers = policy.preflightHeaders(requestedHeaders: "X-Trace, content-type, bad header, , X-Trace,Accept", origin: nil)
        #expect(
            headers == [
                "Access-Control-Allow-Methods": "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
                "Access-Control-Allow-Headers": "Content-Type, If-Match, If-None-Match, X-Trace, Accept",
                "Access-Control-Max-Age": "600",
            ])
    }

    @Test("with tokens on, Authorization is among the allowed headers; an unlisted origin gets no preflight headers")
    func preflightWithTokens() {
        let policy = CORSPolicy(allowedOrigin: "https://app.example", allowAuthorization: true)
        #expect(
            policy.preflightHeaders(requestedHeaders: "authorization", origin: "https://app.example")["Access-Control-Allow-Headers"]
                == "Content-Type, If-Match, If-None-Match, Authorization")
        #expect(policy.preflightHeaders(requestedHeaders: "authorization", origin: "https://other.example") == [:])
    }

    @Test("the policy follows the configuration: origin, max age, credentials, Authorization with tokens")
    func fromConfiguration() {
        var configuration = ServerConfiguration()
        configuration.corsOrigin = "https://a.example"
        configuration.corsMaxAgeSeconds = 5
        configuration.corsCredentials = true
        configuration.readTokens = ["r"]
        let policy = CORSPolicy(configuration: configuration)
        #expect(policy.allowedOrigins == .list(["https://a.example"]))
        #expect(policy.maxAgeSeconds == 5)
        #expect(policy.allowCredentials)
        #expect(policy.allowAuthorization)
    }
}
