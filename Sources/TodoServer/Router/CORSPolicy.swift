import HTTPValues
import TodoData

/// Cross-origin rules: the headers every response carries and the answer to a preflight.
public struct CORSPolicy: Sendable {
    /// What a page may read besides the CORS-safelisted headers: the API's own, and the ones
    /// that say what to do after an error (when to retry, which token, which methods).
    static let exposedHeaders = "Location, ETag, Link, X-Total-Count, X-Last-Event-ID, X-Request-ID, Retry-After, WWW-Authenticate, Allow"
    /// Every method some route answers (`Route.table`).
    static let allowedMethods = Route.methodsOfAnyRoute.map(\.rawValue).joined(separator: ", ")
    static let baseAllowedHeaders = ["Content-Type", "If-Match", "If-None-Match"]

    /// Which origins may read answers: any (`*`), or the listed ones (`null` allows `file://` pages).
    public enum AllowedOrigins: Sendable, Equatable {
        case any
        /// Origins as configured, lower-cased (scheme and host are case-insensitive).
        case list([String])

        /// `*`, or a comma-separated list of `scheme://host[:port]` origins or `null`; nil if any
        /// entry is not an origin (a path, a trailing slash, white space inside, an empty entry).
        public init?(parsing text: String) {
            if text.trimmingWhitespace() == "*" {
                self = .any
                return
            }
            let entries = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingWhitespace() }
            guard entries.allSatisfy(Self.isOrigin) else { return nil }
            self = .list(entries.map { $0.lowercased() })
        }

        /// RFC 6454 serialized origin: `scheme "://" host [ ":" port ]`, or `null`.
        static func isOrigin(_ text: String) -> Bool {
            if text == "null" { return true }
            guard let separator = text.firstRange(of: "://") else { return false }
            let scheme = text[..<separator.lowerBound], authority = text[separator.upperBound...]
            guard let first = scheme.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first | 0x20),
                scheme.utf8.allSatisfy({ CORSPolicy.isAlphanumeric($0) || "+-.".utf8.contains($0) })
            else { return false }
            var host = authority[...]
            if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
                let port = authority[authority.index(after: colon)...]
                guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), Int(port).map({ $0 <= 65_535 }) == true else {
                    return false
                }
                host = authority[..<colon]
            }
            guard !host.isEmpty else { return false }
            if host.hasPrefix("[") {
                return host.hasSuffix("]")
                    && host.dropFirst().dropLast().utf8.allSatisfy {
                        Hex.value(of: $0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".")
                    }
            }
            return host.utf8.allSatisfy { CORSPolicy.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
        }
    }

    public var allowedOrigins: AllowedOrigins
    /// `Access-Control-Allow-Credentials: true` for listed origins (never with `*`).
    public var allowCredentials: Bool
    /// Whether preflights allow `Authorization` (bearer tokens are on).
    public var allowAuthorization: Bool
    /// How long a browser may cache a preflight, in seconds.
    public var maxAgeSeconds: Int

    /// `allowedOrigin` as configured (`corsOrigin`): validated at start-up, so an invalid one
    /// here allows no origin.
    public init(allowedOrigin: String = "*", maxAgeSeconds: Int = 86_400, allowCredentials: Bool = false, allowAuthorization: Bool = false)
    {
        allowedOrigins = AllowedOrigins(parsing: allowedOrigin) ?? .list([])
        self.maxAgeSeconds = maxAgeSeconds
        self.allowCredentials = allowCredentials && allowedOrigins != .any
        self.allowAuthorization = allowAuthorization
    }

    /// The `Access-Control-Allow-Origin` value for a request from `origin`, or nil when that
    /// origin is not allowed (then no CORS header is sent).
    func allowedOriginValue(for origin: String?) -> String? {
        switch allowedOrigins {
        case .any: return "*"
        case .list(let origins):
            guard let origin = origin?.trimmingWhitespace(), origins.contains(origin.lowercased()) else { return nil }
            return origin
        }
    }

    /// Adds the headers that every response carries (no module sets them): for a listed origin
    /// it is echoed, with `Vary: Origin` whenever the answer depends on the origin.
    public func apply(to headers: inout HTTPHeaders, requestOrigin: String? = nil) {
        if allowedOrigins != .any { headers.add("Vary", "Origin") }
        guard let value = allowedOriginValue(for: requestOrigin) else { return }
        headers.add("Access-Control-Allow-Origin", value)
        headers.add("Access-Control-Expose-Headers", Self.exposedHeaders)
        if allowCredentials { headers.add("Access-Control-Allow-Credentials", "true") }
    }

    /// The headers of a preflight answer from `origin`; the allowed headers echo what was asked,
    /// plus the base set (and `Authorization` when tokens are on). None for an origin not listed.
    public func preflightHeaders(requestedHeaders: String?, origin: String? = nil) -> HTTPHeaders {
        guard allowedOriginValue(for: origin) != nil else { return [:] }
        var allowed = Self.baseAllowedHeaders
        if allowAuthorization { allowed.append("Authorization") }
        for name in (requestedHeaders ?? "").split(separator: ",") {
            let name = String(name).trimmingWhitespace()
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenCharacter),
                !allowed.contains(where: { $0.lowercased() == name.lowercased() })
            else { continue }
            allowed.append(name)
        }
        return [
            "Access-Control-Allow-Methods": Self.allowedMethods,
            "Access-Control-Allow-Headers": allowed.joined(separator: ", "),
            "Access-Control-Max-Age": String(maxAgeSeconds),
        ]
    }

    /// RFC 9110 token characters, which header names are made of.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }
}
