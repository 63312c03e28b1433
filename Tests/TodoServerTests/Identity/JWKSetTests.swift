import Foundation
import Testing

@testable import TodoServer

/// JWK Set documents: the keys kept, the keys skipped (and why), the documents refused (and why).
/// Real keys come from `IdentityFixture` (Python's `cryptography`); the variants are its set with
/// entries added.
@Suite("JWKSet: parsing JWK Set documents")
struct JWKSetTests {
    /// Set A's entries with `extra` entries (JSON texts) after them.
    private static func setA(adding extra: [String]) throws -> [UInt8] {
        let fixture = try IdentityFixture.get()
        let root = try #require(try JSONSerialization.jsonObject(with: Data(fixture.setA)) as? [String: Any])
        let keys = try #require(root["keys"] as? [Any])
        let added = try extra.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
        return [UInt8](try JSONSerialization.data(withJSONObject: ["keys": keys + added]))
    }

    /// Set A's entry of `kid`, as a dictionary to change.
    private static func entry(_ kid: String) throws -> [String: Any] {
        let fixture = try IdentityFixture.get()
        let root = try #require(try JSONSerialization.jsonObject(with: Data(fixture.setA)) as? [String: Any])
        let keys = try #require(root["keys"] as? [[String: Any]])
        return try #require(keys.first { $0["kid"] as? String == kid })
    }

    private static func text(_ entry: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys]), as: UTF8.self)
    }

    private static func failure(_ document: String, limits: JWKSet.Limits = JWKSet.Limits()) -> String? {
        if case .failure(let failure) = JWKSet.parse(Array(document.utf8), limits: limits) { return failure.description }
        return nil
    }

    @Test("a provider's set: every key kept, with its kid, alg, use and type")
    func keepsKeys() throws {
        let keys = try JWKSet.parse(try IdentityFixture.get().setA).get()
        #expect(keys.keys.map(\.keyID) == ["a-rsa", "a-ec", "a-ed25519"])
        #expect(keys.keys.map(\.algorithm) == [.rs256, .es256, .edDSA])
        #expect(keys.keys.map(\.use) == ["sig", "sig", "sig"])
        #expect(keys.keys.map(\.kind) == ["RSA 2048", "EC P-256", "Ed25519"])
        #expect(keys.skipped == [])
        #expect(keys.summary == "a-rsa (RSA 2048, RS256), a-ec (EC P-256, ES256), a-ed25519 (Ed25519, EdDSA)")
    }

    @Test("keys this server cannot use are skipped, each with why")
    func skipsKeys() throws {
        let rsa = try Self.entry("a-rsa")
        let ec = try Self.entry("a-ec")
        let modulus = try #require(rsa["n"] as? String)
        // Set A's RSA and EC keys, each with the fields given here changed.
        let variants: [(key: [String: Any], changes: [String: Any])] = [
            (rsa, ["kid": "short", "n": String(modulus.prefix(170)) + "w"]),  // 128 bytes: 1024 bits
            (rsa, ["kid": "enc", "use": "enc"]),
            (rsa, ["kid": "rs384", "alg": "RS384"]),
            (rsa, ["kid": "private", "d": "AQAB"]),
            (ec, ["kid": "ec-rs256", "alg": "RS256"]),
            (ec, ["kid": "off-curve", "x": String(repeating: "A", count: 42) + "E"]),  // x = 1
            (ec, ["kid": "short-x", "x": "AQAB"]),
            (ec, ["kid": "ops", "key_ops": ["encrypt"]]),
            (rsa, ["kid": "padded", "n": modulus + "="]),
            (ec, ["kid": 7]),
        ]
        let document = try Self.setA(
            adding: [
                #"{"kty":"oct","kid":"hmac","k":"c2VjcmV0"}"#,
                #"{"kty":"EC","kid":"p384","crv":"P-384","x":"AA","y":"AA"}"#,
                #"{"kty":"OKP","kid":"x25519","crv":"X25519","x":"AA"}"#,
            ] + variants.map { try Self.text($0.key.merging($0.changes) { $1 }) })
        let keys = try JWKSet.parse(document).get()
        #expect(keys.keys.map(\.keyID) == ["a-rsa", "a-ec", "a-ed25519"])
        #expect(
            keys.skipped == [
                #"keys[3] (kid "hmac"): kty "oct" is not supported (RSA, EC, OKP)"#,
                #"keys[4] (kid "p384"): crv "P-384" is not supported (P-256)"#,
                #"keys[5] (kid "x25519"): crv "X25519" is not supported (Ed25519)"#,
                #"keys[6] (kid "short"): RSA modulus of 1024 bits, under 2048"#,
                #"keys[7] (kid "enc"): use is "enc", not "sig""#,
                #"keys[8] (kid "rs384"): alg "RS384" is not supported (RS256, ES256, EdDSA)"#,
                #"keys[9] (kid "private"): holds private key material ("d"): publish public keys only"#,
                #"keys[10] (kid "ec-rs256"): alg RS256 does not fit a key of type EC"#,
                #"keys[11] (kid "off-curve"): x and y are not a point on P-256"#,
                #"keys[12] (kid "short-x"): P-256 x and y must be base64url strings of 32 bytes each"#,
                #"keys[13] (kid "ops"): key_ops does not name "verify""#,
                #"keys[14] (kid "padded"): n and e must be base64url strings"#,
                #"keys[15]: kid is a number, not a string"#,
            ])
    }

    @Test("documents that are not a usable JWK Set, each with a precise message")
    func refusesDocuments() throws {
        #expect(Self.failure("") == "not JSON: unexpected end of input, expected a value at byte 0")
        #expect(Self.failure(#"{"keys":[}"#) == "not JSON: unexpected character, expected a value at byte 9")
        #expect(Self.failure("[]") == "not a JWK Set: an array, not an object")
        #expect(Self.failure(#"{"kty":"RSA","n":"AQAB","e":"AQAB"}"#) == #"not a JWK Set: no "keys" member"#)
        #expect(Self.failure(#"{"keys":{}}"#) == #"not a JWK Set: "keys" is an object, not an array"#)
        #expect(Self.failure(#"{"keys":[1]}"#) == "not a JWK Set: keys[0] is a number, not an object")
        #expect(Self.failure(#"{"keys":[{"kid":"x"}]}"#) == #"not a JWK Set: keys[0] has no "kty" string"#)
        #expect(Self.failure(#"{"keys":[],"keys":[]}"#) == #"not JSON: duplicate key "keys" at byte 11"#)
        #expect(Self.failure(#"{"keys":[]}"#) == #"no usable key: "keys" is empty"#)
        #expect(
            Self.failure(#"{"keys":[{"kty":"oct","k":"AA"},{"kty":"RSA","use":"enc"}]}"#)
                == #"no usable key: keys[0]: kty "oct" is not supported (RSA, EC, OKP); keys[1]: use is "enc", not "sig""#)
        #expect(Self.failure(#"{"keys":[]}  "#, limits: .init(maxBytes: 12)) == "larger than 12 bytes")
        #expect(Self.failure(#"{"keys":[{"kty":"a"},{"kty":"b"},{"kty":"c"}]}"#, limits: .init(maxKeys: 2)) == "more than 2 keys (3)")
        let fixture = try IdentityFixture.get()
        #expect(throws: Never.self) { try JWKSet.parse(fixture.setA, limits: .init(maxBytes: fixture.setA.count, maxKeys: 3)).get() }
    }

    @Test("a kid is compared byte for byte")
    func keyIDBytes() throws {
        let keys = try JWKSet.parse(try IdentityFixture.get().setA).get()
        #expect(keys.keys(withID: "a-rsa").count == 1)
        #expect(keys.keys(withID: "A-RSA").isEmpty)
        #expect(keys.keys(withID: "a-rsa ").isEmpty)
    }
}
