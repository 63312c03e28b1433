import TodoData

/// Verifies the JSON Web Tokens (RFC 7519) that an OpenID Connect provider issues, as access
/// tokens for this server: a JWS compact serialization (RFC 7515) signed with RS256, ES256 or
/// EdDSA by a key of a `JWKSet`, whose claims name this server's issuer and audience, are within
/// their time (with a leeway) and name a valid owner.
///
/// The rules, in the order they are checked (the first that fails is the refusal):
/// - At most `maxTokenBytes`; three base64url parts (`Base64URL`: strict, no padding).
/// - The header is one JSON object (`StrictJSONParser`: a duplicate member is refused). `alg` is
///   RS256, ES256 or EdDSA, nothing else (`none` and HMAC above all). A `crit` member is refused
///   whatever it names: no extension is understood. `typ`, if present, is `JWT` or `at+jwt`
///   (RFC 9068), with or without `application/`, in any case: another type (`dpop+jwt`,
///   `logout+jwt`, …) is a token for another purpose. `jku`, `x5u`, `jwk` and `x5c` are ignored:
///   keys come from the configured set only.
/// - The key: with a `kid`, the set's keys of that `kid` (none: `unknownKey`) that verify `alg`
///   (`JWK.verifies`: the key's type is the algorithm's, and its own `alg`, if any, is the same;
///   none: `unsupportedAlgorithm`). Without a `kid`, the set's one key, and only when it holds
///   exactly one: with several, which was meant is a guess, and a token from a provider with
///   several keys always names its key.
/// - The signature over the first two parts (through libcrypto, `SignatureKey`). Only then is the
///   payload read: no claim of an unsigned or forged token is looked at.
/// - The payload is one JSON object (no duplicate claims). `iss` is the issuer, byte for byte;
///   `aud` is the audience or an array that holds it; `exp` is required, `nbf` and `iat` are
///   optional, each a NumericDate (an integer or a decimal number of seconds): refused once
///   `now >= exp + leeway` (`expired`) or while `now < nbf - leeway` or `now < iat - leeway`
///   (`notYetValid`).
/// - The owner claim (`sub` by default; a top-level claim) is a string that is a valid owner name,
///   1–128 of `A-Z a-z 0-9 . _ @ -`, as the owner tokens' names are. A provider whose subjects
///   hold other characters (Entra ID's `oid` and Keycloak's `sub` are UUIDs and fit; an email with
///   `+` does not) is refused with a description that says so: choose another claim with
///   `ownerClaim`, never a silently rewritten name that two subjects could share.
/// - Scopes (`VerifiedToken.Grants`): `scope` and `scp`, each a space-separated string or an array
///   of strings (providers use both shapes), taken together.
public struct JWTVerifier: Sendable {
    /// The settings of `jwtIssuer`, `jwtAudience`, `jwtOwnerClaim`, `jwtLeewaySeconds`.
    public struct Configuration: Sendable, Equatable {
        /// `iss` must be exactly this.
        public var issuer: String
        /// `aud` must be or hold exactly this.
        public var audience: String
        /// The claim that names the owner.
        public var ownerClaim: String
        /// The clock skew allowed on `exp`, `nbf` and `iat`, in seconds (not negative).
        public var leewaySeconds: Int
        /// The longest token read, in bytes: longer ones are refused before any work.
        public var maxTokenBytes: Int

        public init(issuer: String, audience: String, ownerClaim: String = "sub", leewaySeconds: Int = 60, maxTokenBytes: Int = 8192) {
            precondition(leewaySeconds >= 0, "the leeway is not negative")
            self.issuer = issuer
            self.audience = audience
            self.ownerClaim = ownerClaim
            self.leewaySeconds = leewaySeconds
            self.maxTokenBytes = maxTokenBytes
        }
    }

    public let configuration: Configuration

    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// The verified token, or why it is refused, checked against `keys` at `now`.
    public func verify(_ token: String, keys: JWKSet, now: Timestamp) -> Result<VerifiedToken, TokenRefusal> {
        verify(Array(token.utf8), keys: keys, now: now)
    }

    /// The verified token, or why it is refused, checked against `keys` at `now`; `token` is the
    /// bearer credential's bytes.
    public func verify(_ token: some Collection<UInt8>, keys: JWKSet, now: Timestamp) -> Result<VerifiedToken, TokenRefusal> {
        guard token.count <= configuration.maxTokenBytes else {
            return .failure(.malformed("longer than \(configuration.maxTokenBytes) bytes"))
        }
        let bytes = Array(token)
        do throws(TokenRefusal) {
            let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
            guard dots.count == 2 else { throw .malformed("not three base64url parts separated by dots") }
            let header = try Self.header(bytes[..<dots[0]])
            guard let signature = Base64URL.decode(bytes[(dots[1] + 1)...]) else {
                throw .malformed("signature is not base64url")
            }
            guard let payload = Base64URL.decode(bytes[(dots[0] + 1)..<dots[1]]) else {
                throw .malformed("payload is not base64url")
            }
            let candidates = try Self.candidates(for: header, in: keys)
            let signed = bytes[..<dots[1]]
            guard candidates.contains(where: { $0.key.verify(signature, over: signed) }) else { throw .badSignature }
            let claims = try Self.object(payload, part: "payload")
            return .success(try self.claims(claims, now: now))
        } catch {
            return .failure(error)
        }
    }

    /// What the header says that matters: the algorithm and the key's id.
    struct Header {
        var algorithm: JWTAlgorithm
        var keyID: String?
    }

    static func header(_ encoded: ArraySlice<UInt8>) throws(TokenRefusal) -> Header {
        guard let decoded = Base64URL.decode(encoded) else { throw .malformed("header is not base64url") }
        let members = try object(decoded, part: "header")
        let algorithm: JWTAlgorithm
        switch members["alg"] {
        case nil: throw .malformed("header has no alg")
        case .string(let name):
            if let known = JWTAlgorithm(rawValue: name) {
                algorithm = known
            } else if name.hasSameBytes(as: "none") {
                throw .unsupportedAlgorithm("unsigned tokens (none) are refused")
            } else if name.utf8.starts(with: "HS".utf8) {
                throw .unsupportedAlgorithm("HMAC (HS256, HS384, HS512) is refused")
            } else {
                throw .unsupportedAlgorithm("only RS256, ES256 and EdDSA are accepted")
            }
        case .some: throw .malformed("alg is not a string")
        }
        guard members["crit"] == nil else { throw .malformed("crit header: no extension is understood") }
        switch members["typ"] {
        case nil: break
        case .string(let type) where acceptedTypes.contains(type.lowercased()): break
        case .some: throw .malformed("typ is neither JWT nor at+jwt")
        }
        switch members["kid"] {
        case nil: return Header(algorithm: algorithm, keyID: nil)
        case .string(let keyID): return Header(algorithm: algorithm, keyID: keyID)
        case .some: throw .malformed("kid is not a string")
        }
    }

    /// The `typ` values accepted, lowercased (media types compare without case, RFC 7515 §4.1.9).
    private static let acceptedTypes: Set<String> = ["jwt", "at+jwt", "application/jwt", "application/at+jwt"]

    /// The keys that may have made the signature (see the type's rules).
    static func candidates(for header: Header, in keys: JWKSet) throws(TokenRefusal) -> [JWK] {
        let algorithm = header.algorithm
        guard let keyID = header.keyID else {
            guard keys.keys.count == 1 else { throw .malformed("no kid, and the key set holds more than one key") }
            guard keys.keys[0].verifies(algorithm) else {
                throw .unsupportedAlgorithm("the key set's one key is not for \(algorithm.rawValue)")
            }
            return keys.keys
        }
        let named = keys.keys(withID: keyID)
        guard !named.isEmpty else { throw .unknownKey }
        let fitting = named.filter { $0.verifies(algorithm) }
        guard !fitting.isEmpty else { throw .unsupportedAlgorithm("the key that kid names is not for \(algorithm.rawValue)") }
        return fitting
    }

    /// The members of the JSON object `bytes`, or `malformed` naming the part.
    static func object(_ bytes: [UInt8], part: String) throws(TokenRefusal) -> [String: JSONValue] {
        switch StrictJSONParser.parse(bytes, maxDepth: 16) {
        case .success(.object(let members)): return members
        case .success: throw .malformed("\(part) is not a JSON object")
        case .failure(let failure):
            // The parser's message may quote a member's name, which is the token's: only its kind.
            guard failure.message.hasPrefix("duplicate key") else { throw .malformed("\(part) is not JSON") }
            throw .malformed("\(part) has a duplicate member")
        }
    }
}
