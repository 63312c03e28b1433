import TodoData

extension JWTVerifier {
    /// The latest NumericDate accepted, 9999-12-31T23:59:59Z: later ones are not dates but garbage.
    static let latestDate: Double = 253_402_300_799

    /// The verified token of a signed payload's claims, or the first rule they break (the type's
    /// list: issuer, audience, times, owner, scopes).
    func claims(_ claims: [String: JSONValue], now: Timestamp) throws(TokenRefusal) -> VerifiedToken {
        guard case .string(let issuer) = claims["iss"], issuer.hasSameBytes(as: configuration.issuer) else { throw .wrongIssuer }
        switch claims["aud"] {
        case .string(let audience):
            guard audience.hasSameBytes(as: configuration.audience) else { throw .wrongAudience }
        case .array(let audiences):
            var named = false
            for audience in audiences {
                guard case .string(let audience) = audience else { throw .malformed("aud is not a string or an array of strings") }
                if audience.hasSameBytes(as: configuration.audience) { named = true }
            }
            guard named else { throw .wrongAudience }
        case nil: throw .wrongAudience
        case .some: throw .malformed("aud is not a string or an array of strings")
        }

        let now = Double(now.millisecondsSinceEpoch)
        let leeway = Double(configuration.leewaySeconds) * 1000
        guard let expiry = try Self.date("exp", claims) else { throw .malformed("no exp claim") }
        guard now < expiry * 1000 + leeway else { throw .expired }
        for name in ["nbf", "iat"] {
            if let start = try Self.date(name, claims), now + leeway < start * 1000 { throw .notYetValid }
        }

        let claim = configuration.ownerClaim
        guard let value = claims[claim] else { throw .malformed("no \(claim) claim (the owner)") }
        guard case .string(let owner) = value else { throw .malformed("\(claim) is not a string") }
        guard Owner.isValidName(owner) else {
            throw .malformed("\(claim) is not an owner name (1 to 128 of A-Z a-z 0-9 . _ @ -)")
        }
        return VerifiedToken(owner: owner, expiresAt: Int64(expiry.rounded(.down)), grants: try Self.grants(claims))
    }

    /// The NumericDate claim `name` in seconds (RFC 7519 §2: an integer or a decimal number), nil
    /// when absent; `malformed` when it is another value or outside 1970…9999.
    static func date(_ name: String, _ claims: [String: JSONValue]) throws(TokenRefusal) -> Double? {
        let seconds: Double
        switch claims[name] {
        case nil: return nil
        case .integer(let value): seconds = Double(value)
        case .number(let value): seconds = value
        case .some: throw .malformed("\(name) is not a number")
        }
        guard seconds.isFinite, seconds >= 0, seconds <= latestDate else {
            throw .malformed("\(name) is not a date between 1970 and 9999")
        }
        return seconds
    }

    /// What `scope` and `scp` allow (`VerifiedToken.Grants`).
    static func grants(_ claims: [String: JSONValue]) throws(TokenRefusal) -> VerifiedToken.Grants {
        var named = false, read = false, write = false
        func note(_ scope: Substring) {
            guard scope.utf8.starts(with: "todos:".utf8) else { return }
            named = true
            if scope == "todos:read" { read = true }
            if scope == "todos:write" { write = true }
        }
        for name in ["scope", "scp"] {
            switch claims[name] {
            case nil: continue
            case .string(let scopes):
                for scope in scopes.split(separator: " ") { note(scope) }
            case .array(let scopes):
                for scope in scopes {
                    guard case .string(let scope) = scope else { throw .malformed("\(name) is not a string or an array of strings") }
                    note(Substring(scope))
                }
            case .some: throw .malformed("\(name) is not a string or an array of strings")
            }
        }
        guard named else { return VerifiedToken.Grants(read: true, write: true) }
        return VerifiedToken.Grants(read: read || write, write: write)
    }
}
