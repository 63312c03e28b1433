import Foundation
import TestSupport
import Testing

@testable import TodoDataTestSupport
@testable import TodoServer

/// JSON Web Tokens through the whole pipeline (API.md, "Owners"): tokens signed by Python's
/// `cryptography` (`IdentityFixture`) against a JWK Set file; each acts on its owner's to-dos,
/// refusals are RFC 6750 challenges with the reason, scopes limit writes, and a rotated key file is
/// taken without a restart. The live feed and the log, on a socket: `JWTFeedEndToEndTests`.
@Suite("End to end: JSON Web Tokens from an OpenID Connect provider")
struct JWTEndToEndTests {
    typealias F = IdentityFixture
    static let now = IdentityFixture.now

    static func spec(_ name: String, kid: String, alg: String, key: String, set: String = "a", payload: String) -> F.Spec {
        F.Spec(name: name, header: F.header(alg, kid: kid), payload: payload, set: set, key: key)
    }

    /// The tokens this suite signs (with the verifier's suite's, in one run of the fixture).
    static let specs: [F.Spec] = [
        spec("e2e alice", kid: "a-rsa", alg: "RS256", key: "rsa", payload: F.claims()),
        spec("e2e bob", kid: "a-ec", alg: "ES256", key: "ec", payload: F.claims(sub: #""bob""#)),
        spec(
            "e2e alice reader", kid: "a-ed25519", alg: "EdDSA", key: "ed25519", payload: F.claims(extra: #","scope":"openid todos:read""#)),
        spec("e2e alice short", kid: "a-rsa", alg: "RS256", key: "rsa", payload: F.claims(exp: "\(now + 2)")),
        spec("e2e alice expired", kid: "a-rsa", alg: "RS256", key: "rsa", payload: F.claims(exp: "\(now - 600)")),
        spec("e2e alice lapsed", kid: "a-rsa", alg: "RS256", key: "rsa", payload: F.claims(exp: "\(now - 30)")),
        spec("e2e alice rotated", kid: "b-rsa", alg: "RS256", key: "rsa", set: "b", payload: F.claims()),
        spec("e2e wrong audience", kid: "a-rsa", alg: "RS256", key: "rsa", payload: F.claims(aud: #""another-api""#)),
    ]

    /// A server on key set A's file, its clock at the fixture's instant.
    static func server(_ mode: TestServer.Mode, keyFile: String, logHandler: CapturingLogHandler? = nil) throws -> TestServer {
        try TestServer(
            mode,
            configure: {
                $0.jwtJwksFile = keyFile
                $0.jwtIssuer = F.issuer
                $0.jwtAudience = F.audience
                $0.authTokens = ["ops-token"]
            }, clock: FakeClock(millisecondsSinceEpoch: F.now * 1000), logHandler: logHandler, logLevel: logHandler?.logLevel ?? .info)
    }

    /// The fixture, key set A in a file of its own (the caller removes it), and a server on that file.
    static func served(
        _ mode: TestServer.Mode = .standard, logHandler: CapturingLogHandler? = nil
    ) throws -> (fixture: IdentityFixture, file: String, server: TestServer) {
        let fixture = try F.get()
        let file = try keyFile(fixture.setA)
        do {
            return (fixture, file, try server(mode, keyFile: file, logHandler: logHandler))
        } catch {
            unlink(file)
            throw error
        }
    }

    static func keyFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("todo-jwks-\(UUID().uuidString).json").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func bearer(_ fixture: IdentityFixture, _ name: String) throws -> [(String, String)] {
        [("Authorization", "Bearer " + (try #require(fixture.tokens[name])))]
    }

    @Test("each token acts on its owner's to-dos; bob's token never reaches alice's")
    func owners() async throws {
        let (fixture, file, server) = try Self.served()
        defer { unlink(file) }
        let alice = try Self.bearer(fixture, "e2e alice"), bob = try Self.bearer(fixture, "e2e bob")
        let created = try await server.request("POST", "/todos", headers: alice, body: #"{"title":"alice's"}"#)
        #expect(created.status == 201)
        let id = try #require(created.object["id"] as? String)
        #expect(try await server.request("GET", "/todos/\(id)", headers: alice).status == 200)
        #expect(try await server.request("GET", "/todos/\(id)", headers: bob).status == 404)
        #expect(try await server.request("DELETE", "/todos/\(id)", headers: bob).status == 404)
        #expect(try await server.request("GET", "/todos", headers: bob).array.isEmpty)
        #expect(try await server.request("GET", "/todos", headers: alice).array.count == 1)
        // The same owner through another key and algorithm is the same owner.
        #expect(try await server.request("GET", "/todos/\(id)", headers: try Self.bearer(fixture, "e2e alice reader")).status == 200)
        // Operators' tokens see the shared list, not alice's.
        #expect(try await server.request("GET", "/todos", headers: [("Authorization", "Bearer ops-token")]).array.isEmpty)
    }

    @Test(
        "a refused token gets 401 with error_description saying why, never echoing the token",
        arguments: [
            ("e2e alice expired", "expired"), ("e2e wrong audience", "wrong audience"), ("e2e alice rotated", "unknown key"),
            ("not.a.jwt", "malformed"),
        ])
    func refusals(name: String, reason: String) async throws {
        let (fixture, file, server) = try Self.served()
        defer { unlink(file) }
        let token = fixture.tokens[name] ?? name
        let response = try await server.request("GET", "/todos", headers: [("Authorization", "Bearer " + token)])
        #expect(response.status == 401)
        #expect(response.header("Content-Type") == "application/problem+json")
        if name == "not.a.jwt" {
            #expect(response.header("WWW-Authenticate")?.hasPrefix(#"Bearer error="invalid_token", error_description=""#) == true)
        } else {
            #expect(response.header("WWW-Authenticate") == #"Bearer error="invalid_token", error_description="\#(reason)""#)
            #expect(response.object["detail"] as? String == "The bearer token is not accepted: \(reason).")
        }
        for part in token.split(separator: ".") where part.count > 3 {
            #expect(!response.text.contains(part))
            #expect(response.header("WWW-Authenticate")?.contains(part) != true)
        }
    }

    @Test("a token with only todos:read reads its owner's to-dos and gets 403 insufficient_scope on a write; /metrics is not an owner's")
    func scopes() async throws {
        let (fixture, file, server) = try Self.served()
        defer { unlink(file) }
        let reader = try Self.bearer(fixture, "e2e alice reader")
        #expect(
            try await server.request("POST", "/todos", headers: try Self.bearer(fixture, "e2e alice"), body: #"{"title":"a"}"#).status
                == 201)
        #expect(try await server.request("GET", "/todos", headers: reader).array.count == 1)
        let write = try await server.request("POST", "/todos", headers: reader, body: #"{"title":"b"}"#)
        #expect(write.status == 403)
        #expect(write.header("WWW-Authenticate") == #"Bearer error="insufficient_scope", scope="todos:write""#)
        #expect(try await server.request("GET", "/metrics", headers: reader).status == 403)
        #expect(try await server.request("GET", "/todos", headers: reader).array.count == 1)
    }

    @Test("a new key file is taken without a restart: the rotated key works, the removed one stops at once")
    func rotation() async throws {
        let (fixture, file, server) = try Self.served()
        defer { unlink(file) }
        let old = try Self.bearer(fixture, "e2e alice"), rotated = try Self.bearer(fixture, "e2e alice rotated")
        #expect(try await server.request("GET", "/todos", headers: old).status == 200)
        #expect(try await server.request("GET", "/todos", headers: rotated).status == 401)
        // Renamed over the old file, as a secret mount or a deploy does.
        let next = try Self.keyFile(fixture.setB)
        try #require(rename(next, file) == 0)
        #expect(
            try await eventuallyAsync { try await server.request("GET", "/todos", headers: rotated).status == 200 },
            "the rotated key is taken")
        #expect(try await server.request("GET", "/todos", headers: old).status == 401)
        // A broken file keeps the keys in effect.
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: file))
        let jwt = try #require(server.application.jwt)
        jwt.refreshKeys()
        #expect(try await server.request("GET", "/todos", headers: rotated).status == 200)
    }
}
