import TodoData

/// The verification keys of a JWK Set document (RFC 7517 §5, with RFC 7518's RSA and EC keys and
/// RFC 8037's OKP keys), each made into an OpenSSL key once, when the document is loaded; the
/// verifier only looks them up (`JWTVerifier.verify`).
///
/// A key this server cannot use is skipped, with the reason kept in `skipped` (for a log line):
/// another `kty` (`oct`, …), another curve (P-384, X25519, Ed448), `use` other than `sig`, `key_ops`
/// without `verify`, an `alg` other than RS256/ES256/EdDSA or not of the key's type, private key
/// material (`d`), an RSA modulus under 2048 bits, parameters that are not canonical base64url or
/// not of their length, and what OpenSSL's public key checks refuse. A document that is not a JWK
/// Set (not JSON, not an object, no `keys` array, an entry that is not an object or has no `kty`),
/// that is larger or has more entries than `Limits` allow, or that leaves no usable key, is a
/// `Failure` saying which.
public struct JWKSet: Sendable {
    /// Bounds on one document: a provider's set is a few kilobytes with a handful of keys.
    public struct Limits: Sendable, Equatable {
        /// The largest document read, in bytes.
        public var maxBytes: Int
        /// The most entries of `keys` (usable or not).
        public var maxKeys: Int

        public init(maxBytes: Int = 256 << 10, maxKeys: Int = 100) {
            self.maxBytes = maxBytes
            self.maxKeys = maxKeys
        }
    }

    /// Why a document is not a usable JWK Set, precisely (`not a JWK Set: "keys" is not an array`).
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// The usable keys, in the document's order.
    public let keys: [JWK]
    /// The entries left out, each with its position, its `kid` if any, and why.
    public let skipped: [String]

    init(keys: [JWK], skipped: [String] = []) {
        self.keys = keys
        self.skipped = skipped
    }

    /// The keys, one per entry, for a log line: `a-rsa (RSA 2048, RS256), a-ec (EC P-256)`.
    public var summary: String {
        keys.map { key in
            let attributes = [key.kind] + (key.algorithm.map { [$0.rawValue] } ?? [])
            return "\(key.keyID ?? "(no kid)") (\(attributes.joined(separator: ", ")))"
        }.joined(separator: ", ")
    }

    /// The keys whose `kid` is `keyID`, byte for byte.
    func keys(withID keyID: String) -> [JWK] {
        keys.filter { $0.keyID?.hasSameBytes(as: keyID) == true }
    }
}
