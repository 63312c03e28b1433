/// One verification key of a JWK Set (RFC 7517 §4), as `JWKSet.parse` kept it: an RSA key of at
/// least 2048 bits, an EC key on P-256 or an OKP key on Ed25519, for signatures (`use` absent or
/// `sig`), with its OpenSSL key made once.
public struct JWK: Sendable {
    /// The key's `kid`, if it has one.
    public let keyID: String?
    /// The key's `alg`, if it names one: it then verifies that algorithm only.
    public let algorithm: JWTAlgorithm?
    /// The key's `use`, if given (then `sig`: keys for encryption are skipped).
    public let use: String?
    let key: SignatureKey

    init(keyID: String?, algorithm: JWTAlgorithm?, use: String?, key: SignatureKey) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.use = use
        self.key = key
    }

    /// The key's type as a person reads it: `RSA 2048`, `EC P-256`, `Ed25519`.
    public var kind: String {
        key.kind == .rsa ? "RSA \(key.bits)" : key.kind.rawValue
    }

    /// Whether this key may check a signature of `algorithm`: its type is the algorithm's, and its
    /// own `alg`, if any, is that algorithm.
    func verifies(_ algorithm: JWTAlgorithm) -> Bool {
        key.kind == algorithm.keyKind && (self.algorithm == nil || self.algorithm == algorithm)
    }
}
