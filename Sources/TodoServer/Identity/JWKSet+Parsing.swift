import TodoData

extension JWKSet {
    /// The JWK Set in `document`, or why it is none (see `JWKSet`).
    public static func parse(_ document: [UInt8], limits: Limits = Limits()) -> Result<JWKSet, Failure> {
        guard document.count <= limits.maxBytes else {
            return .failure(Failure(description: "larger than \(limits.maxBytes) bytes"))
        }
        let root: JSONValue
        switch StrictJSONParser.parse(document, maxDepth: 16) {
        case .success(let value): root = value
        case .failure(let failure):
            return .failure(Failure(description: "not JSON: \(failure.message) at byte \(failure.offset)"))
        }
        guard case .object(let members) = root else {
            return .failure(Failure(description: "not a JWK Set: \(root.typeName), not an object"))
        }
        guard let entries = members["keys"] else {
            return .failure(Failure(description: "not a JWK Set: no \"keys\" member"))
        }
        guard case .array(let entries) = entries else {
            return .failure(Failure(description: "not a JWK Set: \"keys\" is \(entries.typeName), not an array"))
        }
        guard entries.count <= limits.maxKeys else {
            return .failure(Failure(description: "more than \(limits.maxKeys) keys (\(entries.count))"))
        }
        var keys: [JWK] = []
        var skipped: [String] = []
        for (index, entry) in entries.enumerated() {
            guard case .object(let parameters) = entry else {
                return .failure(Failure(description: "not a JWK Set: keys[\(index)] is \(entry.typeName), not an object"))
            }
            guard case .string(let type) = parameters["kty"] else {
                return .failure(Failure(description: "not a JWK Set: keys[\(index)] has no \"kty\" string"))
            }
            var name = "keys[\(index)]"
            if case .string(let keyID) = parameters["kid"] { name += " (kid \(quoted(keyID)))" }
            switch key(type: type, parameters) {
            case .success(let key): keys.append(key)
            case .failure(let reason): skipped.append("\(name): \(reason.description)")
            }
        }
        guard !keys.isEmpty else {
            let why = skipped.isEmpty ? "\"keys\" is empty" : skipped.joined(separator: "; ")
            return .failure(Failure(description: "no usable key: \(why)"))
        }
        return .success(JWKSet(keys: keys, skipped: skipped))
    }

    /// One entry as a usable key, or why it is skipped.
    private static func key(type: String, _ parameters: [String: JSONValue]) -> Result<JWK, Failure> {
        func skip(_ reason: String) -> Result<JWK, Failure> { .failure(Failure(description: reason)) }
        var keyID: String?
        switch parameters["kid"] {
        case nil: break
        case .string(let value): keyID = value
        case let value?: return skip("kid is \(value.typeName), not a string")
        }
        var use: String?
        switch parameters["use"] {
        case nil: break
        case .string("sig"): use = "sig"
        case .string(let value): return skip("use is \(quoted(value)), not \"sig\"")
        case let value?: return skip("use is \(value.typeName), not a string")
        }
        if let operations = parameters["key_ops"] {
            guard case .array(let operations) = operations, operations.allSatisfy({ if case .string = $0 { true } else { false } })
            else { return skip("key_ops is not an array of strings") }
            guard operations.contains(.string("verify")) else { return skip("key_ops does not name \"verify\"") }
        }
        var algorithm: JWTAlgorithm?
        switch parameters["alg"] {
        case nil: break
        case .string(let name):
            guard let known = JWTAlgorithm(rawValue: name) else {
                return skip("alg \(quoted(name)) is not supported (RS256, ES256, EdDSA)")
            }
            algorithm = known
        case let value?: return skip("alg is \(value.typeName), not a string")
        }
        if parameters["d"] != nil { return skip("holds private key material (\"d\"): publish public keys only") }

        let made: Result<SignatureKey, SignatureKey.Refusal>
        switch type {
        case "RSA":
            guard let modulus = bytes("n", parameters), let exponent = bytes("e", parameters) else {
                return skip("n and e must be base64url strings")
            }
            let n = Array(modulus.drop { $0 == 0 })
            let e = Array(exponent.drop { $0 == 0 })
            let bits = n.first.map { n.count * 8 - $0.leadingZeroBitCount } ?? 0
            guard bits >= 2048 else { return skip("RSA modulus of \(bits) bits, under 2048") }
            guard bits <= 16_384 else { return skip("RSA modulus of \(bits) bits, over 16384") }
            guard !e.isEmpty, e.count <= 8 else { return skip("RSA exponent e is zero or longer than 64 bits") }
            made = SignatureKey.rsa(modulus: n, exponent: e)
        case "EC":
            guard case .string(let curve) = parameters["crv"] else { return skip("EC key without a crv string") }
            guard curve == "P-256" else { return skip("crv \(quoted(curve)) is not supported (P-256)") }
            guard let x = bytes("x", parameters), let y = bytes("y", parameters), x.count == 32, y.count == 32 else {
                return skip("P-256 x and y must be base64url strings of 32 bytes each")
            }
            made = SignatureKey.p256(x: x, y: y)
        case "OKP":
            guard case .string(let curve) = parameters["crv"] else { return skip("OKP key without a crv string") }
            guard curve == "Ed25519" else { return skip("crv \(quoted(curve)) is not supported (Ed25519)") }
            guard let x = bytes("x", parameters), x.count == 32 else { return skip("Ed25519 x must be a base64url string of 32 bytes") }
            made = SignatureKey.ed25519(x: x)
        default:
            return skip("kty \(quoted(type)) is not supported (RSA, EC, OKP)")
        }
        switch made {
        case .failure(let refusal): return skip(refusal.description)
        case .success(let key):
            if let algorithm, algorithm.keyKind != key.kind {
                return skip("alg \(algorithm.rawValue) does not fit a key of type \(type)")
            }
            return .success(JWK(keyID: keyID, algorithm: algorithm, use: use, key: key))
        }
    }

    /// The bytes of a base64url string parameter, or nil if it is missing, not a string or not
    /// canonical base64url.
    private static func bytes(_ name: String, _ parameters: [String: JSONValue]) -> [UInt8]? {
        guard case .string(let text) = parameters[name] else { return nil }
        return Base64URL.decode(text.utf8)
    }

    /// A value from the document in quotes for a message, control characters escaped, at most 64
    /// characters of it.
    static func quoted(_ value: String) -> String {
        let shown = value.count > 64 ? String(value.prefix(64)) + "…" : value
        return String(reflecting: shown)
    }
}
