import HTTPValues
import TodoData

/// Wire-level checks made before routing: framing that could smuggle a request, and size limits;
/// and the refusal of a request over the connection limit (which the transport decides).
public struct RequestScreening: Sendable {
    /// Largest accepted body, in bytes.
    public var maxBodyBytes: Int
    /// Longest accepted request target, in bytes.
    public var maxURIBytes: Int
    /// Largest request line plus header fields, in bytes.
    public var maxHeaderBytes: Int
    /// Most header fields in one request.
    public var maxHeaderCount: Int
    /// The server's connection limit, for the refusal's message.
    public var maxConnections: Int

    public init(
        maxBodyBytes: Int, maxURIBytes: Int, maxHeaderBytes: Int = 32 << 10, maxHeaderCount: Int = 100,
        maxConnections: Int = 10_000
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.maxURIBytes = maxURIBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxConnections = maxConnections
    }

    /// What to answer instead of routing: the problem and the headers that go with it.
    public struct Refusal: Sendable {
        public var problem: ProblemDetails
        public var headers: HTTPHeaders
    }

    /// The answer to a request whose connection the transport found over the connection limit
    /// (its decision, handed to the pipeline beside the request): retry shortly, on a new connection.
    public var connectionLimitRefusal: Refusal {
        var headers: HTTPHeaders = ["Connection": "close"]
        headers.setRetryAfter(seconds: 1)
        return Refusal(
            problem: .serviceUnavailable(
                "The server holds its limit of \(maxConnections) open connections; retry on a new connection shortly."),
            headers: headers)
    }

    /// Why `request` is refused before routing, if it is.
    public func refusal(of request: HTTPRequest) -> Refusal? {
        guard let (problem, close) = problem(with: request) else { return nil }
        return Refusal(problem: problem, headers: close ? ["Connection": "close"] : [:])
    }

    /// The problem with `request`'s framing or size, if any, and whether the connection must close
    /// after the answer.
    func problem(with request: HTTPRequest) -> (problem: ProblemDetails, closeConnection: Bool)? {
        var lengths = 0, hosts = 0, origins = 0, authorizations = 0
        // The request line (method, target, version, spaces and CRLF), then each "name: value\r\n".
        var headerBytes = request.method.rawValue.utf8.count + request.uri.utf8.count + 12
        var chunked = false
        var host: String?
        var emptyCondition: String?
        // By the name's byte length first: each name is compared with the one or two names of its
        // length only, not with all six.
        for field in request.headers {
            let nameLength = field.name.utf8.count
            headerBytes += nameLength + field.value.utf8.count + 4
            switch nameLength {
            case 14 where HTTPHeaders.namesMatch(field.name, "Content-Length"):
                lengths += 1
            case 4 where HTTPHeaders.namesMatch(field.name, "Host"):
                hosts += 1
                if host == nil { host = field.value }
            case 17 where HTTPHeaders.namesMatch(field.name, "Transfer-Encoding"):
                chunked = true
            case 6 where HTTPHeaders.namesMatch(field.name, "Origin"):
                origins += 1
            case 13 where HTTPHeaders.namesMatch(field.name, "Authorization"):
                authorizations += 1
            case 8 where HTTPHeaders.namesMatch(field.name, "If-Match"), 13 where HTTPHeaders.namesMatch(field.name, "If-None-Match"):
                if field.value.utf8.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { emptyCondition = field.name }
            default:
                break
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
        // One origin and one set of credentials: with two, which one CORS or the token check
        // reads would decide the answer (RFC 6454 §7.3, RFC 9110 §11.6.2).
        if origins > 1 {
            return (.badRequest("The request has \(origins) Origin headers; send at most one."), false)
        }
        if authorizations > 1 {
            return (.badRequest("The request has \(authorizations) Authorization headers; send at most one."), false)
        }
        if let host, !Self.isValidHost(host) {
            return (.badRequest("The Host header is not a host name or address with an optional port."), true)
        }
        if let authority = request.targetAuthority, !Self.isValidHost(authority) {
            return (.badRequest("The request target's authority is not a host name or address with an optional port."), true)
        }
        if let emptyCondition {
            return (.badRequest("The \(emptyCondition) header is empty; send * or one or more entity tags, or leave it out."), false)
        }
        if request.uri.utf8.count > maxURIBytes {
            return (.uriTooLong(limit: maxURIBytes), false)
        }
        if request.headers.fields.count > maxHeaderCount {
            return (
                .headerFieldsTooLarge("The request has \(request.headers.fields.count) header fields; the limit is \(maxHeaderCount)."),
                true
            )
        }
        if headerBytes > maxHeaderBytes {
            return (
                .headerFieldsTooLarge("The request line and header fields take \(headerBytes) bytes; the limit is \(maxHeaderBytes)."), true
            )
        }
        if request.body.count > maxBodyBytes {
            return (.contentTooLarge(limit: maxBodyBytes), true)
        }
        return nil
    }

    /// Whether a declared body type is one the API reads: JSON (`application/json`,
    /// `application/*+json`) or curl's default form type, which curl users send JSON under.
    public static func acceptsBody(ofType contentType: String) -> Bool {
        // On the bytes when they are ASCII: no strings made by splitting, trimming and lowercasing.
        if let decided = contentType.utf8.withContiguousStorageIfAvailable(acceptsASCIIBody), let decided { return decided }
        return acceptsBodyOfAnyType(contentType)
    }

    /// `acceptsBody(ofType:)` for any value: split at `;`, trimmed of Unicode whitespace, lowercased.
    static func acceptsBodyOfAnyType(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { String($0).trimmingWhitespace().lowercased() } ?? ""
        return mediaType == "application/json"
            || mediaType == "application/x-www-form-urlencoded"
            || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    /// `acceptsBody(ofType:)` on an ASCII value; nil when it holds other bytes or starts with `;`
    /// (the general path decides those).
    static func acceptsASCIIBody(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        var end = bytes.count
        for (index, byte) in bytes.enumerated() {
            if byte >= 0x80 { return nil }
            if byte == UInt8(ascii: ";"), end == bytes.count { end = index }
        }
        if end == 0 { return nil }
        // Unicode White_Space within ASCII: HT, LF, VT, FF, CR and space.
        func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var start = 0
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        let media = UnsafeBufferPointer(rebasing: bytes[start..<end])
        func matches(_ expected: StaticString, at offset: Int) -> Bool {
            guard offset >= 0, offset + expected.utf8CodeUnitCount <= media.count else { return false }
            for index in 0..<expected.utf8CodeUnitCount {
                let byte = media[offset + index]
                let folded = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
                if folded != expected.utf8Start[index] { return false }
            }
            return true
        }
        if media.count == 16, matches("application/json", at: 0) { return true }
        if media.count == 33, matches("application/x-www-form-urlencoded", at: 0) { return true }
        return matches("application/", at: 0) && matches("+json", at: media.count - 5)
    }
}
