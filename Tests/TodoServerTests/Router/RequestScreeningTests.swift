import HTTPValues
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("RequestScreening: what is refused before routing")
struct RequestScreeningTests {
    let screening = RequestScreening(maxBodyBytes: 10, maxURIBytes: 20, maxHeaderBytes: 120, maxHeaderCount: 4, maxConnections: 7)

    private func request(_ uri: String = "/todos", _ headers: HTTPHeaders = ["Host": "h"], body: String = "") -> HTTPRequest {
        HTTPRequest(method: .post, uri: uri, headers: headers, body: Array(body.utf8))
    }

    @Test("a request within every limit passes")
    func passes() {
        #expect(screening.refusal(of: request("/todos?limit=5", ["Host": "h:80", "If-Match": "\"1\""], body: "0123456789")) == nil)
    }

    @Test("a connection over the limit (the transport's decision): 503 naming the limit, Retry-After 1, Connection close")
    func connectionOverLimit() throws {
        let refusal = screening.connectionLimitRefusal
        #expect(refusal.problem.status == 503)
        #expect(refusal.problem.detail == "The server holds its limit of 7 open connections; retry on a new connection shortly.")
        #expect(refusal.headers == ["Connection": "close", "Retry-After": "1"])
    }

    @Test(
        "smuggling shapes are refused with 400 and a close; two Origin or two Authorization headers are 400 and keep the connection",
        arguments: [
            (
                ["Host": "h", "Content-Length": "1", "content-length": "1"], "The request has 2 Content-Length headers; send exactly one.",
                connectionClose
            ),
            (
                ["Host": "h", "Content-Length": "1", "Transfer-Encoding": "chunked"],
                "The request has both Content-Length and Transfer-Encoding; send one.", connectionClose
            ),
            (["Host": "a", "HOST": "b"], "The request has 2 Host headers; send exactly one.", connectionClose),
            (["Host": "a b"], "The Host header is not a host name or address with an optional port.", connectionClose),
            (["Host": "h", "Origin": "http://a", "origin": "http://b"], "The request has 2 Origin headers; send at most one.", [:]),
            (
                ["Host": "h", "Authorization": "Bearer a", "AUTHORIZATION": "Bearer b"],
                "The request has 2 Authorization headers; send at most one.", [:]
            ),
        ] as [(HTTPHeaders, String, HTTPHeaders)])
    func refusedHeaders(headers: HTTPHeaders, detail: String, answerHeaders: HTTPHeaders) throws {
        let refusal = try #require(screening.refusal(of: request("/", headers)))
        #expect(refusal.problem.status == 400)
        #expect(refusal.problem.detail == detail)
        #expect(refusal.headers == answerHeaders)
    }

    static let connectionClose: HTTPHeaders = ["Connection": "close"]

    @Test("one Origin and one Authorization header pass")
    func singletons() {
        #expect(screening.refusal(of: request("/", ["Host": "h", "Origin": "http://a", "Authorization": "Bearer a"])) == nil)
    }

    @Test("an empty If-Match or If-None-Match is 400 and keeps the connection")
    func emptyCondition() throws {
        let refusal = try #require(screening.refusal(of: request("/", ["Host": "h", "If-None-Match": " \t"])))
        #expect(refusal.problem.status == 400)
        #expect(refusal.problem.detail == "The If-None-Match header is empty; send * or one or more entity tags, or leave it out.")
        #expect(refusal.headers == [:])
    }

    @Test("size limits: URI 414 (connection kept), header count and bytes 431, body 413 (closed)")
    func sizes() throws {
        let uri = try #require(screening.refusal(of: request("/" + String(repeating: "a", count: 20))))
        #expect(uri.problem.status == 414)
        #expect(uri.headers == [:])
        #expect(screening.refusal(of: request("/" + String(repeating: "a", count: 19))) == nil)

        let count = try #require(screening.refusal(of: request("/", ["Host": "h", "A": "1", "B": "2", "C": "3", "D": "4"])))
        #expect(count.problem.status == 431)
        #expect(count.problem.detail == "The request has 5 header fields; the limit is 4.")
        #expect(count.headers == ["Connection": "close"])

        // "POST" + "/" + 12 for the request line, then "Host: h\r\n" (9) and one long field.
        let long = String(repeating: "v", count: 120 - 17 - 9 - 4 - 1)
        #expect(screening.refusal(of: request("/", ["Host": "h", "X": long])) == nil)
        let bytes = try #require(screening.refusal(of: request("/", ["Host": "h", "X": long + "v"])))
        #expect(bytes.problem.status == 431)
        #expect(bytes.problem.detail == "The request line and header fields take 121 bytes; the limit is 120.")

        let body = try #require(screening.refusal(of: request(body: "01234567890")))
        #expect(body.problem.status == 413)
        #expect(body.headers == ["Connection": "close"])
    }

    @Test(
        "body media types: JSON, +json and the form type curl sends are read; others are not",
        arguments: [
            ("application/json", true), ("Application/JSON; charset=utf-8", true), ("application/merge-patch+json", true),
            (" application/x-www-form-urlencoded ", true), ("text/plain", false), ("application/xml", false),
            ("application/jsonx", false), ("", false),
        ])
    func bodyTypes(contentType: String, accepted: Bool) {
        #expect(RequestScreening.acceptsBody(ofType: contentType) == accepted)
    }

    @Test(
        "Host values: names, addresses and ports pass; anything RFC 9112 §3.2 / RFC 3986 does not allow does not",
        arguments: [
            ("example.com", true), ("example.com:8080", true), ("127.0.0.1", true), ("[::1]:80", true), ("my_host", true),
            ("localhost", true), ("example.com.", true), ("a-b.c", true), ("h:", true), ("h:0", true), ("h:65535", true),
            ("[::1]", true), ("[2001:db8::7]:443", true), ("[::ffff:192.0.2.1]", true), ("[FE80::1]", true),
            (String(repeating: "a", count: 63) + ".example", true),
            ("", false), ("a b", false), ("a/b", false), ("user@host", false), (String(repeating: "a", count: 256), false),
            ("[::1", false), ("::1", false), ("[::1]x", false), ("[::1]:", true), ("[::1]:99999", false), ("[]", false),
            ("[1:2:3]", false), ("[::1%25eth0]", false), ("[v1.x]", false), ("[::1]]", false),
            ("x:99999999", false), ("x:65536", false), ("x:8o", false), ("x:-1", false), ("x:80:80", false), ("x:+80", false),
            ("-", false), ("-a", false), ("a-", false), ("a.-b", false), (":80", false), (":", false), (".", false),
            (".example.com", false), ("a..b", false), ("example.com..", false), (String(repeating: "a", count: 64) + ".example", false),
            ("a%20b", false), ("caf\u{E9}.example", false), ("a\u{0}b", false), ("a,b", false), ("a;b", false), ("a\\b", false),
        ])
    func hosts(host: String, valid: Bool) {
        #expect(RequestScreening.isValidHost(host) == valid)
    }
}
