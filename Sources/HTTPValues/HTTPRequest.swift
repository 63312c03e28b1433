/// One HTTP request as a value: what the transport read (it copies it out of the connection's
/// input, so that nothing outside the transport touches C memory), or what a test or fuzzer built.
/// Facts about the connection it came on (which loop, whether over the connection limit) are not
/// in it: the transport hands them beside it.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request target exactly as sent (`/todos?completed=true`).
    public var uri: String
    /// The path part of the target, still percent-encoded.
    public var path: String
    /// The query part of the target without `?`, if any.
    public var query: String?
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The HTTP version as (major, minor).
    public var version: (major: Int, minor: Int)
    /// The authority (`host[:port]`) of an absolute-form target (`http://host/todos`), which the
    /// transport routes by its path: it names the host the request is for, not `Host` (RFC 9112 §3.2.2).
    public var targetAuthority: String?
    /// The host the request is for: the target's authority, else `Host`.
    public var host: String? { targetAuthority ?? headers["Host"] }
    /// The peer's address and port (`127.0.0.1:50312`, `[::1]:50312`), for the access log.
    public var clientAddress = ""

    public init(
        method: HTTPMethod,
        uri: String,
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        version: (major: Int, minor: Int) = (1, 1),
        targetAuthority: String? = nil,
        clientAddress: String = ""
    ) {
        self.method = method
        self.targetAuthority = targetAuthority
        self.clientAddress = clientAddress
        self.uri = uri
        // The mark's offset on the contiguous bytes first, a plain loop; the UTF8View's generic
        // `firstIndex(of:)` steps through string indices.
        let offset = uri.utf8.withContiguousStorageIfAvailable { bytes in bytes.firstIndex(of: UInt8(ascii: "?")) }
        let found =
            offset.map { $0.map { uri.utf8.index(uri.utf8.startIndex, offsetBy: $0) } } ?? uri.utf8.firstIndex(of: UInt8(ascii: "?"))
        if let mark = found {
            path = String(Substring(uri.utf8[..<mark]))
            query = String(Substring(uri.utf8[uri.utf8.index(after: mark)...]))
        } else {
            path = uri
            query = nil
        }
        self.headers = headers
        self.body = body
        self.version = version
    }
}
