import HTTPValues
import TodoData

/// The request id and base URL of a request, from its headers or made up.
struct RequestIdentity: Sendable {
    /// Configured scheme, host and port, if any; it wins over `Host`.
    let publicURL: String?
    /// Where new request ids come from: the kernel's generator unless a test injects another.
    let random: any RandomSource

    init(publicURL: String?, random: any RandomSource = SystemRandom()) {
        self.publicURL = publicURL
        self.random = random
    }

    /// The client's `X-Request-ID` when it is 1 to 128 visible ASCII characters, else a new one.
    func requestID(for request: HTTPRequest) -> String {
        if let given = request.headers["X-Request-ID"], (1...128).contains(given.utf8.count),
            given.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        {
            return given
        }
        return newRequestID()
    }

    /// A fresh id: 16 lowercase hex digits.
    func newRequestID() -> String {
        let value = random.next64()
        return String(unsafeUninitializedCapacity: 16) { buffer in
            Hex.write(value, digits: 16, to: buffer.baseAddress!)
            return 16
        }
    }

    /// `publicURL`, else `http://` and the request's host (an absolute-form target's authority, or
    /// `Host`), else `fallback` (HTTP/1.0 without `Host`). `RequestScreening` answers 400 to an invalid `Host` before any module reads this.
    func baseURL(for request: HTTPRequest, fallback: @autoclosure () -> String) -> String {
        if let publicURL { return publicURL }
        if let host = request.host { return baseURL(host: host) }
        return fallback()
    }

    /// The base URL from a `Host` value.
    func baseURL(host: String) -> String {
        "http://" + host
    }
}
