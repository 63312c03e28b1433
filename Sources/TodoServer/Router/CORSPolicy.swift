import EventHTTP

/// Cross-origin rules: the headers every response carries and the answer to a preflight.
public struct CORSPolicy: Sendable {
    static let exposedHeaders = "Location, ETag, Link, X-Total-Count, X-Request-ID"
    static let allowedMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    static let baseAllowedHeaders = ["Content-Type", "If-Match", "If-None-Match"]

    /// `Access-Control-Allow-Origin`: `*` or one origin (`null` allows `file://` pages).
    public var allowedOrigin: String
    /// How long a browser may cache a preflight, in seconds.
    public var maxAgeSeconds: Int

    public init(allowedOrigin: String = "*", maxAgeSeconds: Int = 86_400) {
        self.allowedOrigin = allowedOrigin
        self.maxAgeSeconds = maxAgeSeconds
    }

    /// Adds the headers that every response carries (no module sets them).
    public func apply(to headers: inout HTTPHeaders) {
        headers.add("Access-Control-Allow-Origin", allowedOrigin)
        headers.add("Access-Control-Expose-Headers", Self.exposedHeaders)
        if allowedOrigin != "*" { headers.add("Vary", "Origin") }
    }

    /// The headers of a preflight answer; the allowed headers echo what was asked, plus the base set.
    public func preflightHeaders(requestedHeaders: String?) -> HTTPHeaders {
        var allowed = Self.baseAllowedHeaders
        for name in (requestedHeaders ?? "").split(separator: ",") {
            let name = String(name).trimmingWhitespace()
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenCharacter),
                  !allowed.contains(where: { $0.lowercased() == name.lowercased() }) else { continue }
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
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
