import HTTPValues
import TestSupport
import Testing

@testable import EventHTTP

@Suite("EventHTTP: reading a head the framing accepted")
struct HTTPRequestHeadTests {
    private func read(_ head: String) -> HTTPRequest {
        var bytes = Array(head.utf8)
        return bytes.withUnsafeMutableBytes { HTTPRequest(acceptedHead: UnsafeRawBufferPointer($0), clientAddress: "127.0.0.1:9") }
    }

    @Test("method, target split into path and query, version, fields in order with their white space trimmed")
    func fields() {
        let request = read("PATCH /todos/1?x=1&y HTTP/1.1\r\nHost: h\r\nX-A:  one \t\r\nx-a:two\r\nEmpty:\r\n\r\n")
        #expect(request.method == .patch)
        #expect(request.uri == "/todos/1?x=1&y")
        #expect(request.path == "/todos/1")
        #expect(request.query == "x=1&y")
        #expect(request.version == (1, 1))
        #expect(request.headers.fields.map { "\($0.name)=\($0.value)" } == ["Host=h", "X-A=one", "x-a=two", "Empty="])
        #expect(request.headers.values(for: "X-A") == ["one", "two"])
        #expect(request.clientAddress == "127.0.0.1:9")
    }

    @Test("lines ended by LF alone, HTTP/1.0, a value with obs-text kept as UTF-8 where it is")
    func bareLineFeeds() {
        let request = read("GET / HTTP/1.0\nX-Name: caf\u{E9}\n\n")
        #expect(request.version == (1, 0))
        #expect(request.headers["X-Name"] == "café")
    }

    @Test(
        "every method this server knows by name, any other token unrecognized (case counts)",
        arguments: [
            ("GET", HTTPMethod.get), ("HEAD", .head), ("POST", .post), ("PUT", .put), ("PATCH", .patch), ("DELETE", .delete),
            ("OPTIONS", .options), ("TRACE", .trace), ("CONNECT", .connect), ("get", .unrecognized), ("QUERY", .unrecognized),
            ("PROPFIND", .unrecognized), ("G", .unrecognized),
        ])
    func methods(token: String, method: HTTPMethod) {
        #expect(read("\(token) / HTTP/1.1\r\nHost: h\r\n\r\n").method == method)
    }

    @Test(
        "absolute form routes by path and query; no path is /; origin form and * as they are",
        arguments: [
            ("http://example.com/todos?limit=2", "/todos?limit=2"), ("HTTPS://example.com:8443/a/b", "/a/b"),
            ("http://example.com", "/"), ("http://example.com?x=1", "/?x=1"), ("http://u@h:1/p#f", "/p#f"),
            ("/plain", "/plain"), ("*", "*"),
        ])
    func targets(target: String, routed: String) {
        #expect(read("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n").uri == routed)
    }

    @Test("keep-alive: HTTP/1.1 unless Connection lists close; HTTP/1.0 only with keep-alive; tokens in any case and list")
    func keepAlive() {
        #expect(read("GET / HTTP/1.1\r\nHost: h\r\n\r\n").wantsKeepAlive)
        #expect(!read("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").wantsKeepAlive)
        #expect(!read("GET / HTTP/1.1\r\nHost: h\r\nConnection: Keep-Alive, CLOSE\r\n\r\n").wantsKeepAlive)
        #expect(!read("GET / HTTP/1.1\r\nHost: h\r\nconnection: upgrade\r\nConnection: close\r\n\r\n").wantsKeepAlive)
        #expect(!read("GET / HTTP/1.0\r\n\r\n").wantsKeepAlive)
        #expect(read("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").wantsKeepAlive)
        #expect(read("GET / HTTP/1.0\r\nConnection: te , Keep-Alive\r\n\r\n").wantsKeepAlive)
    }

    @Test("Expect: 100-continue only on HTTP/1.1, in any case, with white space")
    func expectContinue() {
        #expect(read("PUT / HTTP/1.1\r\nHost: h\r\nExpect:  100-Continue \r\n\r\n").expectsContinue)
        #expect(!read("PUT / HTTP/1.0\r\nExpect: 100-continue\r\n\r\n").expectsContinue)
        #expect(!read("PUT / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok\r\n\r\n").expectsContinue)
        #expect(!read("PUT / HTTP/1.1\r\nHost: h\r\n\r\n").expectsContinue)
    }

    @Test("bytes the framing would never accept (cut anywhere, random) are split without trapping")
    func neverTraps() {
        let head = Array("POST http://h/t?q=1 HTTP/1.1\r\nHost: h\r\nX: y\r\n\r\n".utf8)
        for end in 0...head.count {
            var bytes = Array(head[..<end])
            _ = bytes.withUnsafeMutableBytes { HTTPRequest(acceptedHead: UnsafeRawBufferPointer($0), clientAddress: "") }
        }
        var random = SplitMix64(seed: 42)
        for _ in 0..<2000 {
            var bytes = (0..<Int(random.next() % 64)).map { _ in [UInt8(ascii: " "), UInt8(ascii: ":"), 10, 13, 65][Int(random.next() % 5)]
            }
            _ = bytes.withUnsafeMutableBytes { HTTPRequest(acceptedHead: UnsafeRawBufferPointer($0), clientAddress: "") }
        }
    }
}
