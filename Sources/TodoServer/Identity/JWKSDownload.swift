import CLibcurl
import TodoData

/// One GET of a JWK Set document over HTTPS, by libcurl (`CLibcurl`: certificate and host name
/// checks against the system's certificate authorities or `caFile`, redirects to `https` only,
/// one time-out for the whole exchange, content decoding). Blocking: `JWKSURLSource` calls it on
/// its own queue, never on an event loop. The only Swift file that imports `CLibcurl`.
struct JWKSDownload: Sendable {
    /// What the provider answered.
    struct Response: Sendable, Equatable {
        /// The final response's status.
        var status: Int
        var body: [UInt8]
        /// The final response's `Cache-Control` values, joined; nil when it had none.
        var cacheControl: String?
    }

    /// Why there was no response (libcurl's words: `SSL certificate problem: unable to get local
    /// issuer certificate`, `Connection refused`, …).
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        let description: String
    }

    let url: String
    /// A PEM file of the certificate authorities to trust; nil: the system's.
    let caFile: String?
    let timeoutMilliseconds: Int
    /// The largest body read; more is a failure.
    let maxBytes: Int

    func get() -> Result<Response, Failure> {
        var answer = clibcurl_response()
        defer { clibcurl_response_free(&answer) }
        let outcome = caFile.withOptionalCString { caFile in
            clibcurl_get(url, caFile, timeoutMilliseconds, maxBytes, &answer)
        }
        guard outcome == 0 else {
            let reason = withUnsafeBytes(of: answer.error) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            return .failure(Failure(description: reason))
        }
        let body = answer.body.map { [UInt8](UnsafeBufferPointer(start: $0, count: answer.length)) } ?? []
        return .success(Response(status: answer.status, body: body, cacheControl: answer.cache_control.map { String(cString: $0) }))
    }
}

extension String? {
    /// `body` with a C string of the value, or with nil.
    fileprivate func withOptionalCString<Result>(_ body: (UnsafePointer<CChar>?) -> Result) -> Result {
        switch self {
        case .some(let text): text.withCString { body($0) }
        case .none: body(nil)
        }
    }
}
