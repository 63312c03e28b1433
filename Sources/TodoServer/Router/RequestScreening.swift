import EventHTTP

/// Wire-level checks made before routing: framing that could smuggle a request, and size limits.
public struct RequestScreening: Sendable {
    /// Largest accepted body, in bytes.
    public var maxBodyBytes: Int
    /// Longest accepted request target, in bytes.
    public var maxURIBytes: Int

    public init(maxBodyBytes: Int, maxURIBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
        self.maxURIBytes = maxURIBytes
    }

    /// The problem with `request`, if any, and whether the connection must close after the answer.
    public func problem(with request: HTTPRequest) -> (problem: ProblemDetails, closeConnection: Bool)? {
        var lengths = 0, hosts = 0
        var chunked = false
        var host: String?
        for field in request.headers {
            if HTTPHeaders.namesMatch(field.name, "Content-Length") {
                lengths += 1
            } else if HTTPHeaders.namesMatch(field.name, "Host") {
                hosts += 1
                if host == nil { host = field.value }
            } else if HTTPHeaders.namesMatch(field.name, "Transfer-Encoding") {
                chunked = true
            }
        }
        if lengths > 1 {
            return (.badRequest("The request has \(lengths) Content-Length headers; send exactly one."), true)
        }
        if lengths == 1, chunked {
            return (.badRequest("The request has both Content-Length and Transfer-Encoding; send one."), true)
        }
        if hosts > 1 {
            return (.badRequest("The request has \(hosts) Host headers; send exactly one."), true)
        }
        if let host, !Self.isValidHost(host) {
            return (.badRequest("The Host header is not a host name or address with an optional port."), true)
        }
        if request.uri.utf8.count > maxURIBytes {
            return (.uriTooLong(limit: maxURIBytes), false)
        }
        if request.body.count > maxBodyBytes {
            return (.contentTooLarge(limit: maxBodyBytes), true)
        }
        return nil
    }

    /// Whether a declared body type is one the API reads: JSON (`application/json`,
    /// `application/*+json`) or curl's default form type, which curl users send JSON under.
    public static func acceptsBody(ofType contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { String($0).trimmingWhitespace().lowercased() } ?? ""
        return mediaType == "application/json"
            || mediaType == "application/x-www-form-urlencoded"
            || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    /// A host name, IPv4 or bracketed IPv6 address, with an optional port (RFC 9110 `Host`).
    static func isValidHost(_ host: String) -> Bool {
        (1...255).contains(host.utf8.count) && host.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                ".-:[]_".utf8.contains(byte)
            }
        }
    }
}
