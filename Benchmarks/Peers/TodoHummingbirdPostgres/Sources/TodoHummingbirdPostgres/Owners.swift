import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth

/// Who is calling: the owner a bearer token names. Every to-do belongs to one.
struct Owner: Sendable {
    let name: String
}

/// The request context: Hummingbird's, with the authenticated owner (HummingbirdAuth).
typealias TodoContext = BasicAuthRequestContext<Owner>

/// `TODO_OWNER_TOKENS` as TodoServer reads it: comma-separated `owner:token` pairs, the owner
/// everything before the first `:` (1–128 of `A-Z a-z 0-9 . _ @ -`), the token the rest.
enum OwnerTokens {
    static let nameCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._@-")

    /// Token → owner; throws a message naming the setting (never a token) for a bad value.
    static func parse(_ text: String) throws -> [String: Owner] {
        var owners: [String: Owner] = [:]
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = pair.trimmingCharacters(in: .whitespaces)
            guard let colon = pair.firstIndex(of: ":") else {
                throw ConfigurationError("TODO_OWNER_TOKENS: every entry must be owner:token")
            }
            let name = String(pair[..<colon])
            let token = String(pair[pair.index(after: colon)...])
            guard (1...128).contains(name.count), name.allSatisfy(nameCharacters.contains) else {
                throw ConfigurationError("TODO_OWNER_TOKENS: an owner must be 1 to 128 of A-Z a-z 0-9 . _ @ -")
            }
            guard !token.isEmpty else { throw ConfigurationError("TODO_OWNER_TOKENS: owner \(name) has an empty token") }
            if let other = owners[token], other.name != name {
                throw ConfigurationError("TODO_OWNER_TOKENS: one token is given to two owners (\(other.name), \(name))")
            }
            owners[token] = Owner(name: name)
        }
        return owners
    }

    struct ConfigurationError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// Maps `Authorization: Bearer <token>` to its owner; a request without a known token goes no
/// further (401).
struct OwnerTokenAuthenticator: AuthenticatorMiddleware {
    typealias Context = TodoContext
    let owners: [String: Owner]

    func authenticate(request: Request, context: Context) async throws -> Owner? {
        guard let bearer = request.headers.bearer else { throw Unauthorized(invalidToken: false) }
        guard let owner = owners[bearer.token] else { throw Unauthorized(invalidToken: true) }
        return owner
    }
}

/// 401 as an RFC 9457 problem, with the RFC 6750 challenge.
struct Unauthorized: HTTPResponseError {
    let invalidToken: Bool
    var status: HTTPResponse.Status { .unauthorized }

    struct Problem: Encodable {
        let type = "about:blank"
        let title = "Unauthorized"
        let status = 401
        let detail: String
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let detail =
            invalidToken
            ? "The Authorization header does not carry a bearer token this server accepts."
            : "This server requires a bearer token: send Authorization: Bearer <token>."
        var response = try context.responseEncoder.encode(Problem(detail: detail), from: request, context: context)
        response.status = .unauthorized
        response.headers[.contentType] = "application/problem+json"
        response.headers[.wwwAuthenticate] = invalidToken ? #"Bearer error="invalid_token""# : "Bearer"
        return response
    }
}
