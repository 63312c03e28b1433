import CLibcrypto
import TodoData

/// A public key held by OpenSSL's libcrypto, made once when a JWK Set is loaded and used for every
/// signature checked with it; freed with the last reference. The one file that imports
/// `CLibcrypto`: every signature check goes through `verify(_:over:)`, and none is written here.
///
/// Sendable: after it is made the key is only read, and OpenSSL allows concurrent reads of one
/// `EVP_PKEY` from several threads (openssl-threads(7)); each check has its own context.
final class SignatureKey: @unchecked Sendable {
    /// The kind of key, which fixes the one algorithm it verifies (`JWTAlgorithm.keyKind`).
    enum Kind: String, Sendable {
        case rsa = "RSA"
        case p256 = "EC P-256"
        case ed25519 = "Ed25519"
    }

    /// Why OpenSSL made no key of these parameters.
    struct Refusal: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    let kind: Kind
    /// The modulus's bits for an RSA key, 256 for the others.
    let bits: Int
    private let key: OpaquePointer

    private init(kind: Kind, key: OpaquePointer) {
        self.kind = kind
        self.key = key
        bits = kind == .rsa ? Int(todo_crypto_key_bits(key)) : 256
    }

    deinit {
        todo_crypto_key_free(key)
    }

    /// The key OpenSSL made, or why there is none: libcrypto could not be opened (it is opened on
    /// the first key), or it refused the parameters (`refused`).
    private static func made(_ kind: Kind, _ key: OpaquePointer?, refused: @autoclosure () -> String) -> Result<SignatureKey, Refusal> {
        if let key { return .success(SignatureKey(kind: kind, key: key)) }
        if let reason = clibcrypto_load_error() { return .failure(Refusal(description: String(cString: reason))) }
        return .failure(Refusal(description: refused()))
    }

    /// An RSA public key from its modulus and exponent (big-endian, unsigned), checked by OpenSSL
    /// (`EVP_PKEY_public_check`: an odd modulus, an odd exponent above 1; an even modulus and
    /// `e = 1` are refused, `e = 3` is not). The bounds on their sizes are the caller's.
    static func rsa(modulus: [UInt8], exponent: [UInt8]) -> Result<SignatureKey, Refusal> {
        let key = modulus.withUnsafeBufferPointer { n in
            exponent.withUnsafeBufferPointer { e in
                todo_crypto_rsa_public_key(n.baseAddress, n.count, e.baseAddress, e.count)
            }
        }
        return made(.rsa, key, refused: "OpenSSL refused the RSA public key (its checks of n and e)")
    }

    /// A P-256 public key from its affine coordinates (32 bytes each), which must be a point on the
    /// curve other than the point at infinity.
    static func p256(x: [UInt8], y: [UInt8]) -> Result<SignatureKey, Refusal> {
        precondition(x.count == 32 && y.count == 32, "P-256 coordinates are 32 bytes")
        let point = [0x04] + x + y
        let key = point.withUnsafeBufferPointer { todo_crypto_p256_public_key($0.baseAddress, $0.count) }
        return made(.p256, key, refused: "x and y are not a point on P-256")
    }

    /// An Ed25519 public key from its 32 bytes.
    static func ed25519(x: [UInt8]) -> Result<SignatureKey, Refusal> {
        precondition(x.count == 32, "Ed25519 public keys are 32 bytes")
        let key = x.withUnsafeBufferPointer { todo_crypto_ed25519_public_key($0.baseAddress, $0.count) }
        return made(.ed25519, key, refused: "OpenSSL refused the Ed25519 public key")
    }

    /// Whether `signature` is this key's signature over `message`, with the one algorithm of its
    /// kind: RS256 (the signature as long as the modulus), ES256 (JOSE's 64-byte `r || s`, turned
    /// into DER for OpenSSL) or EdDSA (64 bytes).
    func verify(_ signature: [UInt8], over message: ArraySlice<UInt8>) -> Bool {
        switch kind {
        case .rsa:
            guard signature.count == (bits + 7) / 8 else { return false }
            return check(signature, over: message, sha256: true, pkcs1: true)
        case .p256:
            guard signature.count == 64 else { return false }
            var der = [UInt8](repeating: 0, count: 80)
            let length = signature.withUnsafeBufferPointer { raw in
                der.withUnsafeMutableBufferPointer { todo_crypto_ecdsa_p256_der(raw.baseAddress, $0.baseAddress, $0.count) }
            }
            guard length > 0 else { return false }
            return check(Array(der[..<Int(length)]), over: message, sha256: true, pkcs1: false)
        case .ed25519:
            guard signature.count == 64 else { return false }
            return check(signature, over: message, sha256: false, pkcs1: false)
        }
    }

    private func check(_ signature: [UInt8], over message: ArraySlice<UInt8>, sha256: Bool, pkcs1: Bool) -> Bool {
        message.withUnsafeBufferPointer { message in
            signature.withUnsafeBufferPointer { signature in
                todo_crypto_verify(
                    key, sha256 ? 1 : 0, pkcs1 ? 1 : 0, message.baseAddress, message.count, signature.baseAddress, signature.count) == 1
            }
        }
    }
}
