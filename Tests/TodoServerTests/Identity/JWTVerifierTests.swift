import Testing

@testable import TodoServer

/// The verifier against tokens signed by Python's `cryptography` (`IdentityFixture`): acceptance of
/// RS256, ES256 and EdDSA, and the refusal matrix, each case with the exact `error_description`.
@Suite("JWTVerifier: tokens made by an independent implementation")
struct JWTVerifierTests {
    typealias Spec = IdentityFixture.Spec
    typealias F = IdentityFixture

    /// What a case must come to with key set A at `IdentityFixture.now`, leeway 60 s.
    enum Outcome: Sendable, Equatable {
        case accepted(owner: String, expiresAt: Int64, grants: String)
        case refused(String)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var spec: Spec
        var outcome: Outcome
        var testDescription: String { spec.name }
    }

    static let now = IdentityFixture.now
    static let valid = Outcome.accepted(owner: "alice", expiresAt: now + 3600, grants: "read, write")
    static let rsa = header("RS256", "a-rsa", "")

    static func header(_ algorithm: String, _ kid: String?, _ extra: String = "") -> String {
        IdentityFixture.header(algorithm, kid: kid, extra: extra)
    }

    static func signed(
        _ name: String, _ outcome: Outcome, header: String = rsa, payload: String = F.claims(), set: String = "a", key: String = "rsa",
        ecdsa: String = "raw"
    ) -> Case {
        Case(spec: Spec(name: name, header: header, payload: payload, set: set, key: key, ecdsa: ecdsa), outcome: outcome)
    }

    static let cases: [Case] = [
        // Accepted: each algorithm with its own key, and the shapes the rules allow.
        signed("RS256", valid),
        signed("ES256", valid, header: header("ES256", "a-ec"), key: "ec"),
        signed("EdDSA", valid, header: header("EdDSA", "a-ed25519"), key: "ed25519"),
        signed("typ JWT", valid, header: header("RS256", "a-rsa", #","typ":"JWT""#)),
        signed("typ at+JWT (RFC 9068, any case)", valid, header: header("ES256", "a-ec", #","typ":"at+JWT""#), key: "ec"),
        signed("typ application/at+jwt", valid, header: header("RS256", "a-rsa", #","typ":"application/at+jwt""#)),
        signed("aud array holding the audience", valid, payload: F.claims(aud: #"["account","todo-api"]"#)),
        signed(
            "header members ignored (jku, x5u)", valid, header: header("RS256", "a-rsa", #","jku":"https://evil.example/jwks","x5u":"x""#)),
        // Times, at the leeway's edges (60 s).
        signed(
            "exp 59 s ago: inside the leeway", .accepted(owner: "alice", expiresAt: now - 59, grants: "read, write"),
            payload: F.claims(exp: "\(now - 59)")),
        signed("exp 60 s ago: expired", .refused("expired"), payload: F.claims(exp: "\(now - 60)")),
        signed(
            "exp as a decimal, 59.5 s ago", .accepted(owner: "alice", expiresAt: now - 60, grants: "read, write"),
            payload: F.claims(exp: "\(now - 60).5")),
        signed("exp far in the past", .refused("expired"), payload: F.claims(exp: "1")),
        signed("nbf 60 s ahead: inside the leeway", valid, payload: F.claims(extra: #","nbf":\#(now + 60)"#)),
        signed("nbf 61 s ahead: not yet valid", .refused("not yet valid"), payload: F.claims(extra: #","nbf":\#(now + 61)"#)),
        signed("iat 61 s ahead: not yet valid", .refused("not yet valid"), payload: F.claims(extra: #","iat":\#(now + 61)"#)),
        signed("iat 60 s ahead, nbf now", valid, payload: F.claims(extra: #","iat":\#(now + 60),"nbf":\#(now)"#)),
        signed("no exp", .refused("malformed: no exp claim"), payload: F.claims(exp: nil)),
        signed("exp a string", .refused("malformed: exp is not a number"), payload: F.claims(exp: #""\#(now + 3600)""#)),
        signed("exp past 9999", .refused("malformed: exp is not a date between 1970 and 9999"), payload: F.claims(exp: "1e300")),
        signed("nbf null", .refused("malformed: nbf is not a number"), payload: F.claims(extra: #","nbf":null"#)),
        // Issuer and audience.
        signed("wrong issuer", .refused("wrong issuer"), payload: F.claims(iss: #""https://id.example.test/realms/other""#)),
        signed(
            "issuer with a trailing slash", .refused("wrong issuer"), payload: F.claims(iss: #""https://id.example.test/realms/todo/""#)),
        signed("no issuer", .refused("wrong issuer"), payload: F.claims(iss: nil)),
        signed("issuer not a string", .refused("wrong issuer"), payload: F.claims(iss: "[]")),
        signed("wrong audience (string)", .refused("wrong audience"), payload: F.claims(aud: #""todo-api-staging""#)),
        signed("wrong audience (array)", .refused("wrong audience"), payload: F.claims(aud: #"["account","todo"]"#)),
        signed("no audience", .refused("wrong audience"), payload: F.claims(aud: nil)),
        signed(
            "aud array with a number", .refused("malformed: aud is not a string or an array of strings"),
            payload: F.claims(aud: #"["todo-api",1]"#)),
        // Algorithms and keys.
        signed(
            "alg none", .refused("unsupported algorithm: unsigned tokens (none) are refused"), header: header("none", "a-rsa"), key: "none"),
        signed(
            "alg none, no kid", .refused("unsupported algorithm: unsigned tokens (none) are refused"), header: header("none", nil),
            key: "none"),
        signed(
            "HS256 signed with the RSA public key's PEM (alg confusion)",
            .refused("unsupported algorithm: HMAC (HS256, HS384, HS512) is refused"),
            header: header("HS256", "a-rsa"), key: "hmac-rsa-public-pem"),
        signed("RS384", .refused("unsupported algorithm: only RS256, ES256 and EdDSA are accepted"), header: header("RS384", "a-rsa")),
        signed("alg not a string", .refused("malformed: alg is not a string"), header: #"{"alg":["RS256"],"kid":"a-rsa"}"#),
        signed("no alg", .refused("malformed: header has no alg"), header: #"{"kid":"a-rsa"}"#),
        signed(
            "ES256 header on the RSA key's kid", .refused("unsupported algorithm: the key that kid names is not for ES256"),
            header: header("ES256", "a-rsa"), key: "ec"),
        signed(
            "RS256 header on the EC key's kid", .refused("unsupported algorithm: the key that kid names is not for RS256"),
            header: header("RS256", "a-ec")),
        signed(
            "EdDSA header on the RSA key's kid", .refused("unsupported algorithm: the key that kid names is not for EdDSA"),
            header: header("EdDSA", "a-rsa"), key: "ed25519"),
        signed("unknown kid", .refused("unknown key"), header: header("RS256", "nobody")),
        signed("a rotated key, not yet in the set", .refused("unknown key"), header: header("RS256", "b-rsa"), set: "b"),
        signed("another RSA key's signature", .refused("bad signature"), set: "b"),
        signed("another EC key's signature", .refused("bad signature"), header: header("ES256", "a-ec"), set: "b", key: "ec"),
        signed(
            "another Ed25519 key's signature", .refused("bad signature"), header: header("EdDSA", "a-ed25519"), set: "b", key: "ed25519"),
        signed("ES256 with a DER signature, not r||s", .refused("bad signature"), header: header("ES256", "a-ec"), key: "ec", ecdsa: "der"),
        signed(
            "no kid, several keys in the set", .refused("malformed: no kid, and the key set holds more than one key"),
            header: header("RS256", nil)),
        signed("kid not a string", .refused("malformed: kid is not a string"), header: #"{"alg":"RS256","kid":7}"#),
        signed(
            "crit header", .refused("malformed: crit header: no extension is understood"),
            header: header("RS256", "a-rsa", #","crit":["exp"],"exp":1"#)),
        signed(
            "typ dpop+jwt", .refused("malformed: typ is neither JWT nor at+jwt"), header: header("RS256", "a-rsa", #","typ":"dpop+jwt""#)),
        // Malformed parts, signed (so only the shape is wrong).
        signed("header not JSON", .refused("malformed: header is not JSON"), header: "RS256 a-rsa"),
        signed("header a JSON array", .refused("malformed: header is not a JSON object"), header: #"["RS256"]"#),
        signed(
            "duplicate header member", .refused("malformed: header has a duplicate member"),
            header: #"{"alg":"RS256","kid":"a-rsa","alg":"none"}"#),
        signed("payload not JSON", .refused("malformed: payload is not JSON"), payload: "alice"),
        signed("payload a JSON array", .refused("malformed: payload is not a JSON object"), payload: #"["alice"]"#),
        signed("duplicate claims", .refused("malformed: payload has a duplicate member"), payload: F.claims(extra: #","sub":"bob""#)),
        signed(
            "duplicate claims, escaped", .refused("malformed: payload has a duplicate member"),
            payload: F.claims(extra: #","\u0073ub":"bob""#)),
        signed(
            "oversized (over 8192 bytes)", .refused("malformed: longer than 8192 bytes"),
            payload: F.claims(extra: #","pad":"\#(String(repeating: "x", count: 6000))""#)),
        // The owner claim.
        signed("no owner claim", .refused("malformed: no sub claim (the owner)"), payload: F.claims(sub: nil)),
        signed("owner claim a number", .refused("malformed: sub is not a string"), payload: F.claims(sub: "42")),
        signed(
            "owner with a space", .refused("malformed: sub is not an owner name (1 to 128 of A-Z a-z 0-9 . _ @ -)"),
            payload: F.claims(sub: #""alice smith""#)),
        signed(
            "owner with a plus", .refused("malformed: sub is not an owner name (1 to 128 of A-Z a-z 0-9 . _ @ -)"),
            payload: F.claims(sub: #""alice+todo@example.com""#)),
        signed(
            "owner empty", .refused("malformed: sub is not an owner name (1 to 128 of A-Z a-z 0-9 . _ @ -)"), payload: F.claims(sub: #""""#)
        ),
        signed(
            "owner of 129 characters", .refused("malformed: sub is not an owner name (1 to 128 of A-Z a-z 0-9 . _ @ -)"),
            payload: F.claims(sub: #""\#(String(repeating: "a", count: 129))""#)),
        signed(
            "owner of 128 characters", .accepted(owner: String(repeating: "a", count: 128), expiresAt: now + 3600, grants: "read, write"),
            payload: F.claims(sub: #""\#(String(repeating: "a", count: 128))""#)),
        signed(
            "owner a UUID with @ . _ -", .accepted(owner: "a.B_c-9@x", expiresAt: now + 3600, grants: "read, write"),
            payload: F.claims(sub: #""a.B_c-9@x""#)),
        // Scopes.
        signed(
            "scope todos:read", .accepted(owner: "alice", expiresAt: now + 3600, grants: "read"),
            payload: F.claims(extra: #","scope":"openid todos:read""#)),
        signed(
            "scope todos:write", .accepted(owner: "alice", expiresAt: now + 3600, grants: "read, write"),
            payload: F.claims(extra: #","scope":"todos:write profile""#)),
        signed("scope without todos:", valid, payload: F.claims(extra: #","scope":"openid profile email""#)),
        signed(
            "scp array todos:read", .accepted(owner: "alice", expiresAt: now + 3600, grants: "read"),
            payload: F.claims(extra: #","scp":["todos:read"]"#)),
        signed(
            "scp string (Entra ID)", .accepted(owner: "alice", expiresAt: now + 3600, grants: "read"),
            payload: F.claims(extra: #","scp":"todos:read email""#)),
        signed(
            "scope and scp together", .accepted(owner: "alice", expiresAt: now + 3600, grants: "read, write"),
            payload: F.claims(extra: #","scope":"todos:read","scp":["todos:write"]"#)),
        signed(
            "only another todos: scope", .accepted(owner: "alice", expiresAt: now + 3600, grants: "none"),
            payload: F.claims(extra: #","scope":"todos:admin""#)),
        signed(
            "scope todos:readwrite is not todos:read", .accepted(owner: "alice", expiresAt: now + 3600, grants: "none"),
            payload: F.claims(extra: #","scope":"todos:readwrite""#)),
        signed(
            "scope a number", .refused("malformed: scope is not a string or an array of strings"), payload: F.claims(extra: #","scope":5"#)),
    ]

    /// Every token the fixture signs: the cases, and those the other tests of this suite use.
    static let specs: [Spec] =
        cases.map(\.spec) + [
            Spec(name: "rotated", header: header("RS256", "b-rsa"), payload: F.claims(), set: "b", key: "rsa"),
            Spec(name: "email owner", header: rsa, payload: F.claims(extra: #","email":"alice@example.com""#), key: "rsa"),
            Spec(name: "no kid RS256", header: header("RS256", nil), payload: F.claims(), key: "rsa"),
            Spec(name: "no kid ES256", header: header("ES256", nil), payload: F.claims(), key: "ec"),
        ]

    static let verifier = JWTVerifier(.init(issuer: IdentityFixture.issuer, audience: IdentityFixture.audience))

    static func outcome(_ result: Result<VerifiedToken, TokenRefusal>) -> Outcome {
        switch result {
        case .success(let token): .accepted(owner: token.owner, expiresAt: token.expiresAt, grants: token.grants.description)
        case .failure(let refusal): .refused(refusal.description)
        }
    }

    @Test("the matrix: each token comes to its outcome, with key set A at the fixed instant", arguments: cases)
    func matrix(_ testCase: Case) throws {
        let fixture = try IdentityFixture.get()
        let keys = try JWKSet.parse(fixture.setA).get()
        let token = try #require(fixture.tokens[testCase.spec.name])
        #expect(Self.outcome(Self.verifier.verify(token, keys: keys, now: IdentityFixture.instant())) == testCase.outcome)
    }

    @Test("a refusal's description never holds the token or a part of it")
    func descriptionsHoldNoToken() throws {
        let fixture = try IdentityFixture.get()
        let keys = try JWKSet.parse(fixture.setA).get()
        for testCase in Self.cases {
            let token = try #require(fixture.tokens[testCase.spec.name])
            guard case .failure(let refusal) = Self.verifier.verify(token, keys: keys, now: IdentityFixture.instant()) else { continue }
            for part in token.split(separator: ".") where part.count >= 4 {
                #expect(!refusal.description.contains(part), "\(testCase.spec.name)")
            }
        }
    }

    @Test("the same token, one millisecond apart at the expiry's edge")
    func expiryToTheMillisecond() throws {
        let fixture = try IdentityFixture.get()
        let keys = try JWKSet.parse(fixture.setA).get()
        let token = try #require(fixture.tokens["RS256"])
        // exp is now + 3600; with the leeway, the last accepted millisecond is now + 3659.999 s.
        let last = IdentityFixture.instant(plusMilliseconds: 3_659_999)
        #expect(Self.outcome(Self.verifier.verify(token, keys: keys, now: last)) == Self.valid)
        #expect(
            Self.outcome(Self.verifier.verify(token, keys: keys, now: IdentityFixture.instant(plusMilliseconds: 3_660_000)))
                == .refused("expired"))
        let strict = JWTVerifier(.init(issuer: IdentityFixture.issuer, audience: IdentityFixture.audience, leewaySeconds: 0))
        #expect(Self.outcome(strict.verify(token, keys: keys, now: IdentityFixture.instant(plusMilliseconds: 3_599_999))) == Self.valid)
        #expect(
            Self.outcome(strict.verify(token, keys: keys, now: IdentityFixture.instant(plusMilliseconds: 3_600_000))) == .refused("expired")
        )
    }

    @Test("a rotated key: unknown in set A, accepted with set B")
    func rotatedKey() throws {
        let fixture = try IdentityFixture.get()
        let token = try #require(fixture.tokens["rotated"])
        let now = IdentityFixture.instant()
        #expect(Self.outcome(Self.verifier.verify(token, keys: try JWKSet.parse(fixture.setA).get(), now: now)) == .refused("unknown key"))
        #expect(Self.outcome(Self.verifier.verify(token, keys: try JWKSet.parse(fixture.setB).get(), now: now)) == Self.valid)
    }

    @Test("another owner claim: the configured one names the owner")
    func ownerClaim() throws {
        let fixture = try IdentityFixture.get()
        let keys = try JWKSet.parse(fixture.setA).get()
        let token = try #require(fixture.tokens["email owner"])
        let byEmail = JWTVerifier(.init(issuer: IdentityFixture.issuer, audience: IdentityFixture.audience, ownerClaim: "email"))
        #expect(
            Self.outcome(byEmail.verify(token, keys: keys, now: IdentityFixture.instant()))
                == .accepted(owner: "alice@example.com", expiresAt: Self.now + 3600, grants: "read, write"))
        let byName = JWTVerifier(
            .init(issuer: IdentityFixture.issuer, audience: IdentityFixture.audience, ownerClaim: "preferred_username"))
        #expect(
            Self.outcome(byName.verify(token, keys: keys, now: IdentityFixture.instant()))
                == .refused("malformed: no preferred_username claim (the owner)"))
    }

    @Test("no kid: the set's one key, if it is of the token's algorithm")
    func noKeyID() throws {
        let fixture = try IdentityFixture.get()
        let all = try JWKSet.parse(fixture.setA).get()
        let onlyRSA = JWKSet(keys: all.keys.filter { $0.keyID == "a-rsa" })
        let now = IdentityFixture.instant()
        #expect(Self.outcome(Self.verifier.verify(try #require(fixture.tokens["no kid RS256"]), keys: onlyRSA, now: now)) == Self.valid)
        #expect(
            Self.outcome(Self.verifier.verify(try #require(fixture.tokens["no kid ES256"]), keys: onlyRSA, now: now))
                == .refused("unsupported algorithm: the key set's one key is not for ES256"))
        #expect(
            Self.outcome(Self.verifier.verify(try #require(fixture.tokens["no kid RS256"]), keys: all, now: now))
                == .refused("malformed: no kid, and the key set holds more than one key"))
    }

    @Test("malformed on the wire: parts, base64url, tampering")
    func malformedOnTheWire() throws {
        let fixture = try IdentityFixture.get()
        let keys = try JWKSet.parse(fixture.setA).get()
        let now = IdentityFixture.instant()
        let token = try #require(fixture.tokens["RS256"])
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let other = try #require(fixture.tokens["scope todos:read"]).split(separator: ".").map(String.init)
        let cases: [(String, String)] = [
            ("", "malformed: not three base64url parts separated by dots"),
            (parts[0] + "." + parts[1], "malformed: not three base64url parts separated by dots"),
            (token + ".", "malformed: not three base64url parts separated by dots"),
            (token + "." + parts[2], "malformed: not three base64url parts separated by dots"),
            (parts[0] + "=." + parts[1] + "." + parts[2], "malformed: header is not base64url"),
            ("e30+." + parts[1] + "." + parts[2], "malformed: header is not base64url"),
            (" " + token, "malformed: header is not base64url"),
            (parts[0] + ".." + parts[2], "bad signature"),
            (parts[0] + "." + parts[1] + "!." + parts[2], "malformed: payload is not base64url"),
            (parts[0] + "." + parts[1] + "." + parts[2] + "=", "malformed: signature is not base64url"),
            (parts[0] + "." + parts[1] + ".A/" + parts[2].dropFirst(2), "malformed: signature is not base64url"),
            (parts[0] + "." + parts[1] + ".", "bad signature"),
            (parts[0] + "." + other[1] + "." + parts[2], "bad signature"),
            (other[0] + "." + parts[1] + "." + other[2], "bad signature"),
            (parts[0] + "." + parts[1] + "." + String(parts[2].prefix(340)), "bad signature"),
            (token + "\n", "malformed: signature is not base64url"),
        ]
        for (text, description) in cases {
            #expect(Self.outcome(Self.verifier.verify(text, keys: keys, now: now)) == .refused(description), "\(text.prefix(40))")
        }
        // The byte form the bearer header gives, and a limit of the configuration's.
        #expect(Self.outcome(Self.verifier.verify(Array(token.utf8)[...], keys: keys, now: now)) == Self.valid)
        let small = JWTVerifier(
            .init(issuer: IdentityFixture.issuer, audience: IdentityFixture.audience, maxTokenBytes: token.utf8.count - 1))
        #expect(Self.outcome(small.verify(token, keys: keys, now: now)) == .refused("malformed: longer than \(token.utf8.count - 1) bytes"))
    }
}
