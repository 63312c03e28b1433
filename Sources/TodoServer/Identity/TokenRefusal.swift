/// Why a JSON Web Token is refused. Its `description` is the RFC 6750 `error_description` of the
/// 401 answer (`error="invalid_token"`) and the problem's `detail`: one of the contract's words
/// (`expired`, `not yet valid`, `wrong issuer`, `wrong audience`, `unknown key`, `bad signature`,
/// `malformed`, and `unsupported algorithm`), `malformed` and `unsupported algorithm` with a short
/// suffix saying which rule failed. No description holds any part of the token: every text is
/// written here or in `JWTVerifier` from fixed words and the server's own configuration.
public enum TokenRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// `exp` plus the leeway is not after now.
    case expired
    /// `nbf` (or `iat`) minus the leeway is after now.
    case notYetValid
    /// `iss` is missing or not the configured issuer.
    case wrongIssuer
    /// `aud` is missing or does not name the configured audience.
    case wrongAudience
    /// The header's `kid` names no key of the set (or the token has no `kid` and the set holds no
    /// key for its algorithm). The one refusal that a newer key set may turn into an acceptance:
    /// a JWK Set fetched from a URL is fetched again (rate-limited) on it.
    case unknownKey
    /// The signature is not the named key's over the token.
    case badSignature
    /// `alg` is `none`, an HMAC algorithm or any other this server does not accept, or the key that
    /// `kid` names is not of the algorithm's type or names another `alg`.
    case unsupportedAlgorithm(String)
    /// Not a JWS compact serialization this server reads, or a claim of the wrong shape; the text
    /// says which (`header is not JSON`).
    case malformed(String)

    public var description: String {
        switch self {
        case .expired: "expired"
        case .notYetValid: "not yet valid"
        case .wrongIssuer: "wrong issuer"
        case .wrongAudience: "wrong audience"
        case .unknownKey: "unknown key"
        case .badSignature: "bad signature"
        case .unsupportedAlgorithm(let detail): "unsupported algorithm: \(detail)"
        case .malformed(let detail): "malformed: \(detail)"
        }
    }
}
