import Foundation
import HTTPValues
import TestSupport
import Testing

@testable import EventHTTP

/// Answers by path with header fields that go on the wire as one joined entry, or that must not.
private struct HeadHandler: HTTPHandler {
    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        var headers = HTTPHeaders()
        var status = 200
        switch request.path {
        case "/plain":
            headers.add("ETag", "\"7\"")
            headers.add("Content-Type", "application/json")
            headers.add("X-Request-ID", "abc123")
        case "/crlf":
            headers.add("X-A", "one")
            headers.add("X-Bad", "x\r\nSet-Cookie: evil=1")
            headers.add("X-C", "three")
        case "/nul":
            headers.add("X-N", "a\u{0}b")
            headers.add("X-After", "z")
        case "/own-date":
            headers.add("X-A", "one")
            headers.add("Date", "Tue, 01 Jan 2030 00:00:00 GMT")
        case "/no-content":
            status = 204
            headers.add("X-A", "one")
        case "/many":
            for field in ResponseHeadTests.manyFields { headers.add(field.name, field.value) }
        case "/bare":
            break
        case "/empty", "/big":
            headers.add("X-A", "one")
        default:
            status = 404
        }
        let body: [UInt8] =
            switch request.path {
            case "/empty": []
            case "/big": Array(repeating: UInt8(ascii: "x"), count: 12_345)
            default: status == 204 ? [] : Array("{}".utf8)
            }
        responder.send(HTTPResponse(status: status, headers: headers, body: body))
    }
}

@Suite("EventHTTP: the response head on the wire")
struct ResponseHeadTests {
    /// 72 fields (the writer keeps the verdicts of the first 64 and checks the rest again), with
    /// unsendable ones on both sides of the 64th: line breaks, the writer's own fields, no name.
    static let manyFields: [(name: String, value: String)] = (0..<72).map { index in
        switch index {
        case 5, 66: ("X-\(index)", "v\r\nSet-Cookie: evil=\(index)")
        case 10: ("Content-Length", "99")
        case 63: ("x-63", "a\u{0}")
        case 64: ("connection", "keep-alive")
        case 65: ("TRANSFER-ENCODING", "chunked")
        case 68: ("", "nameless")
        default: ("X-\(index)", String(repeating: "v", count: index))
        }
    }

    /// The raw answers to `requests` (the last one asks to close), split into head lines and the rest.
    private func exchange(_ requests: [String]) throws -> String {
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, loopCount: 1), handler: HeadHandler())
        let port = try server.start()
        defer {
            server.shutdown(gracePeriodSeconds: 0)
            server.waitUntilStopped()
        }
        let client = try TestHTTPClient(port: port, recordsResponses: false)
        try client.send(requests.joined())
        return String(decoding: client.readToEnd(), as: UTF8.self)
    }

    /// `raw` with every IMF-fixdate `Date` value replaced by `<date>`, after checking its form.
    private func maskingDates(_ raw: String) -> String {
        raw.replacing(/Date: [A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT\r\n/, with: "Date: <date>\r\n")
    }

    @Test("Date, then the handler's fields in order, then Content-Length; Connection: close last when the client asked")
    func orderOfFields() throws {
        let raw = try exchange([
            "GET /plain HTTP/1.1\r\nHost: h\r\n\r\n",
            "GET /plain HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        ])
        let head =
            "HTTP/1.1 200 OK\r\nDate: <date>\r\nETag: \"7\"\r\nContent-Type: application/json\r\nX-Request-ID: abc123\r\nContent-Length: 2\r\n"
        #expect(maskingDates(raw) == head + "\r\n{}" + head + "Connection: close\r\n\r\n{}")
    }

    @Test("a field value holding CR LF is dropped, never split into another line; the other fields stay")
    func injectedLineIsDropped() throws {
        let raw = try exchange(["GET /crlf HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"])
        #expect(
            maskingDates(raw)
                == "HTTP/1.1 200 OK\r\nDate: <date>\r\nX-A: one\r\nX-C: three\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
    }

    @Test("a field value holding a NUL is dropped, and the fields after it are still sent")
    func nulDropsTheField() throws {
        let raw = try exchange(["GET /nul HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"])
        #expect(maskingDates(raw) == "HTTP/1.1 200 OK\r\nDate: <date>\r\nX-After: z\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
    }

    @Test("a handler's own Date is the only one sent")
    func ownDate() throws {
        let raw = try exchange(["GET /own-date HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"])
        #expect(
            raw == "HTTP/1.1 200 OK\r\nX-A: one\r\nDate: Tue, 01 Jan 2030 00:00:00 GMT\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
    }

    @Test("204 has no Content-Length; HEAD has the GET's; an answer without fields still gets Date and Content-Length")
    func bodilessAndBare() throws {
        let raw = try exchange([
            "GET /no-content HTTP/1.1\r\nHost: h\r\n\r\n",
            "HEAD /plain HTTP/1.1\r\nHost: h\r\n\r\n",
            "GET /bare HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        ])
        #expect(
            maskingDates(raw) == "HTTP/1.1 204 No Content\r\nDate: <date>\r\nX-A: one\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nDate: <date>\r\nETag: \"7\"\r\nContent-Type: application/json\r\nX-Request-ID: abc123\r\nContent-Length: 2\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nDate: <date>\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
    }

    @Test("Content-Length of an empty and a five-digit body; once, with the body's length")
    func contentLengthDigits() throws {
        let raw = try exchange([
            "GET /empty HTTP/1.1\r\nHost: h\r\n\r\n",
            "GET /big HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        ])
        #expect(
            maskingDates(raw) == "HTTP/1.1 200 OK\r\nDate: <date>\r\nX-A: one\r\nContent-Length: 0\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nDate: <date>\r\nX-A: one\r\nContent-Length: 12345\r\nConnection: close\r\n\r\n"
                + String(repeating: "x", count: 12_345))
    }

    @Test("HTTP/1.0: answered as HTTP/1.1 (RFC 9110 §6.2) with Content-Length; kept alive only when asked, and said so")
    func http10() throws {
        let kept = try exchange([
            "GET /plain HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
            "GET /plain HTTP/1.0\r\n\r\n",
        ])
        let fields = "Date: <date>\r\nETag: \"7\"\r\nContent-Type: application/json\r\nX-Request-ID: abc123\r\nContent-Length: 2\r\n"
        #expect(
            maskingDates(kept) == "HTTP/1.1 200 OK\r\n" + fields + "Connection: keep-alive\r\n\r\n{}"
                + "HTTP/1.1 200 OK\r\n" + fields + "Connection: close\r\n\r\n{}")
    }

    @Test(
        "72 fields: the sendable ones in order, on both sides of the 64th; line breaks, NULs, the writer's own fields and an empty name dropped"
    )
    func manyFields() throws {
        let raw = try exchange(["GET /many HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"])
        let kept = Self.manyFields.enumerated().filter { ![5, 10, 63, 64, 65, 66, 68].contains($0.offset) }.map(\.element)
        #expect(kept.count == 65)
        let fields = kept.map { "\($0.name): \($0.value)\r\n" }.joined()
        #expect(
            maskingDates(raw) == "HTTP/1.1 200 OK\r\nDate: <date>\r\n" + fields + "Content-Length: 2\r\nConnection: close\r\n\r\n{}")
    }
}
