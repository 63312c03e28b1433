import HTTPValues
import TodoData

/// Bearer-token access (RFC 6750): with tokens configured, every request needs
/// `Authorization: Bearer <token>` except CORS preflights, `GET`/`HEAD /healthz` and, when
/// `metricsPublic`, `/metrics`. Read tokens may only GET and HEAD; an owner token reads and writes
/// its owner's to-dos. Plain tokens are compared in constant time; owner tokens (any number of
/// them) are found by a table lookup keyed by the whole token, whose hash is seeded at random per
/// process. Tokens are never logged.
public struct BearerAuthentication: Sendable {
    /// What a request may do.
    public enum Decision: Sendable, Equatable {
        /// No token needed: tokens are off, or the route is open.
        case open
        /// A read-write token.
        case readWrite
        /// A read token on a read.
        case readOnly
        /// An owner token, or a verified JSON Web Token: that owner's to-dos; `expiresAt` (seconds
        /// since the epoch) when the credential ends (a JWT's `exp`), nil when it does not.
        case owner(Owner, expiresAt: Int64?)
        /// A JSON Web Token that is refused, and why (401, `error="invalid_token"` with the reason
        /// as `error_description`).
        case invalidJWT(TokenRefusal)
        /// A JSON Web Token whose `todos:` scopes do not allow this method (403,
        /// `error="insufficient_scope"`); the scope it needs.
        case insufficientScope(String)
        /// No `Authorization` header (401).
        case missingToken
        /// An `Authorization` header without a bearer token: another scheme (`Basic …`), or
        /// `Bearer` with nothing after it (401, with no error code: RFC 6750 §3.1).
        case otherScheme
        /// A bearer token that is not configured (401, `error="invalid_token"`).
        case unknownToken
        /// A read token on a write (403).
        case writeWithReadToken
        /// An owner's token on `/metrics`, which shows the whole server: operators' tokens only (403).
        case ownerOnOperations

        /// The owner the request acts for, when a credential names one (for the access log).
        public var actingOwner: Owner? {
            if case .owner(let owner, _) = self { owner } else { nil }
        }
    }

    private let authTokens: [[UInt8]]
    private let readTokens: [[UInt8]]
    private let ownerTokens: [[UInt8]: Owner]
    private let jwt: JWTAuthentication?
    private let metricsPublic: Bool

    /// `ownerTokens`: each token with the owner it stands for (a token names one owner:
    /// configuration refuses one given to two).
    public init(
        authTokens: [String] = [], readTokens: [String] = [], ownerTokens: [OwnerToken] = [], jwt: JWTAuthentication? = nil,
        metricsPublic: Bool = false
    ) {
        self.jwt = jwt
        self.authTokens = authTokens.map { Array($0.utf8) }
        self.readTokens = readTokens.map { Array($0.utf8) }
        self.ownerTokens = Dictionary(ownerTokens.map { (Array($0.token.utf8), $0.owner) }, uniquingKeysWith: { first, _ in first })
        self.metricsPublic = metricsPublic
    }

    /// Whether any token is configured.
    public var isEnabled: Bool { !authTokens.isEmpty || !readTokens.isEmpty || !ownerTokens.isEmpty || jwt != nil }

    /// Whether a JSON Web Token with an unknown `kid` would now wait for a fetch of the key set.
    public var wouldAwaitNewerKeys: Bool { jwt?.wouldAwaitNewerKeys ?? false }

    /// Whether requests act on owners' lists (owner tokens or JSON Web Tokens are configured).
    public var hasOwners: Bool { !ownerTokens.isEmpty || jwt != nil }

    /// The decision for `method` on `route` (nil: no route matches) with this `Authorization` value.
    public func decide(method: HTTPMethod, route: Route?, authorization: String?) -> Decision {
        guard isEnabled, !isOpen(method: method, route: route) else { return .open }
        guard let authorization else { return .missingToken }
        guard let token = Self.bearerToken(in: authorization) else { return .otherScheme }
        let reading = method == .get || method == .head
        if let owner = ownerTokens[token] { return route == .metrics ? .ownerOnOperations : .owner(owner, expiresAt: nil) }
        let (writes, reads) = matches(token)
        if writes { return .readWrite }
        if reads { return reading ? .readOnly : .writeWithReadToken }
        guard let jwt else { return .unknownToken }
        switch jwt.verify(token) {
        case .failure(let refusal): return .invalidJWT(refusal)
        case .success(let verified):
            if route == .metrics { return .ownerOnOperations }
            if reading ? !verified.grants.read : !verified.grants.write {
                return .insufficientScope(reading ? "todos:read" : "todos:write")
            }
            return .owner(Owner(unchecked: verified.owner), expiresAt: verified.expiresAt)
        }
    }

    /// Whether a request with this `Authorization` value may see operational details (the to-do
    /// count and the store's reason on `/healthz`): whoever may read `/metrics`, that is anyone
    /// while tokens are off or `metricsPublic` is set, else a request with a valid operator's token
    /// (not an owner's: an owner sees nothing of other owners, not even how many to-dos there are).
    public func showsDetails(authorization: String?) -> Bool {
        guard isEnabled else { return true }
        // With owners, nobody anonymous sees a count (the contract), whatever metricsPublic says.
        if metricsPublic, !hasOwners { return true }
        guard let token = authorization.flatMap(Self.bearerToken) else { return false }
        if ownerTokens[token] != nil { return false }
        let (writes, reads) = matches(token)
        return writes || reads
    }

    /// Whether `token` is a read-write and whether it is a read token. Every configured token is
    /// compared, whatever matched before: the time taken does not depend on which token (if any)
    /// matches, nor on how much of one does.
    private func matches(_ token: [UInt8]) -> (writes: Bool, reads: Bool) {
        var writes = false, reads = false
        for candidate in authTokens where Self.constantTimeEquals(token, candidate) { writes = true }
        for candidate in readTokens where Self.constantTimeEquals(token, candidate) { reads = true }
        return (writes, reads)
    }

    private func isOpen(method: HTTPMethod, route: Route?) -> Bool {
        if method == .options { return true }
        switch route {
        case .health: return method == .get || method == .head
        case .metrics: return metricsPublic
        default: return false
        }
    }

    /// The token of a `Bearer` credential (scheme case-insensitive), as bytes.
    static func bearerToken(in authorization: String) -> [UInt8]? {
        let bytes = Array(authorization.utf8)
        let scheme = Array("bearer".utf8)
        guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 }),
            bytes[scheme.count] == UInt8(ascii: " ")
        else { return nil }
        let token = bytes[(scheme.count + 1)...].drop(while: { $0 == UInt8(ascii: " ") })
        let trimmed = token.reversed().drop(while: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }).reversed()
        return trimmed.isEmpty ? nil : Array(trimmed)
    }

    /// Compares all of `given` against `expected` without stopping at the first difference.
    static func constantTimeEquals(_ given: [UInt8], _ expected: [UInt8]) -> Bool {
        guard !expected.isEmpty else { return false }
        var difference = given.count ^ expected.count
        for index in given.indices {
            difference |= Int(given[index] ^ expected[index % expected.count])
        }
        return difference == 0
    }
}

/// An owner token as configured: the token, and the owner whose to-dos it reads and writes.
public struct OwnerToken: Sendable, Equatable {
    public let owner: Owner
    public let token: String
}
