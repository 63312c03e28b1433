import TodoData

/// A JWS algorithm this server accepts (RFC 7518 §3.3 and §3.4, RFC 8037 §3.1), each only with a key
/// of its own type. `none`, the HMAC algorithms (`HS256`…) and every other name are refused: with
/// an HMAC algorithm the verifier would take a public key's bytes as the shared secret, which anyone
/// holds (the `alg` confusion attack).
public enum JWTAlgorithm: String, Sendable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256, with an RSA key of at least 2048 bits.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256; the signature is JOSE's raw `r || s` (64 bytes).
    case es256 = "ES256"
    /// Ed25519 (RFC 8032), with an OKP key whose `crv` is `Ed25519`.
    case edDSA = "EdDSA"

    /// The one kind of key this algorithm is checked with.
    var keyKind: SignatureKey.Kind {
        switch self {
        case .rs256: .rsa
        case .es256: .p256
        case .edDSA: .ed25519
        }
    }
}
