import Glibc
import Logging
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("Access lines written without swift-log's message and metadata")
struct AccessLineTests {
    typealias Entry = StdoutLogHandler.AccessEntry

    static let time = Timestamp(millisecondsSinceEpoch: 1_795_341_600_123)

    /// Entries and the message `AccessLog` built for them with string interpolation.
    static let cases: [(Entry, String)] = [
        (
            Entry(
                method: "GET", path: "/todos", query: "limit=2&sort=title", status: 200, bodyBytes: 517, microseconds: 1_234,
                detail: nil, requestID: "q-1", client: "127.0.0.1:5000"),
            "GET /todos?limit=2&sort=title 200 517 1.234ms"
        ),
        (
            Entry(
                method: "POST", path: "/todos", query: nil, status: 201, bodyBytes: 0, microseconds: 0,
                detail: nil, requestID: "0123456789abcdef", client: "[::1]:80"),
            "POST /todos 201 0 0.000ms"
        ),
        (
            Entry(
                method: "GET", path: "/todos/\"x\\", query: "", status: 404, bodyBytes: 190, microseconds: 12_345_007,
                detail: "No to-do has the id \"x\\\".\n", requestID: "r\"1", client: "10.0.0.2:1"),
            "GET /todos/\"x\\? 404 190 12345.007ms — No to-do has the id \"x\\\".\n"
        ),
        (
            Entry(
                method: "PATCH", path: "/todos/é", query: nil, status: 500, bodyBytes: 9_999_999_999, microseconds: 999,
                detail: "", requestID: "z", client: ""),
            "PATCH /todos/é 500 9999999999 0.999ms — "
        ),
        (
            Entry(
                method: "GET", path: "/todos", query: nil, status: 200, bodyBytes: 2, microseconds: 10, detail: nil, requestID: "o-1",
                client: "127.0.0.1:9", owner: "alice@example.com"),
            "GET /todos 200 2 0.010ms"
        ),
    ]

    /// The metadata `AccessLog` gives the general path for `entry`.
    static func metadata(_ entry: Entry) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["request_id": "\(entry.requestID)", "client": "\(entry.client)"]
        if let owner = entry.owner { metadata["owner"] = "\(owner)" }
        return metadata
    }

    /// `entry`'s access line in `format` at `time`, and the line the general path writes for it
    /// (with `message` and `AccessLog`'s metadata), as text: the two must be the same bytes.
    static func lines(_ entry: Entry, _ message: String, format: LogFormat, time: Timestamp = Self.time) -> (fast: String, general: String)
    {
        let fast = StdoutLogHandler.accessLine(entry, label: "todo-server", format: format, time: time)
        let general = StdoutLogHandler.line(
            level: .info, label: "todo-server", metadata: metadata(entry), message: message, format: format, time: time)
        return (String(decoding: fast, as: UTF8.self), String(decoding: general, as: UTF8.self))
    }

    @Test(
        "text and JSON lines: the same bytes as the general path (metadata keys in order, escapes included)",
        arguments: [
            (
                LogFormat.text, 0,
                "2026-11-22T10:00:00.123Z info todo-server: client=127.0.0.1:5000 request_id=q-1 GET /todos?limit=2&sort=title 200 517 1.234ms\n"
            ),
            (
                LogFormat.json, 2,
                #"{"time":"2026-11-22T10:00:00.123Z","level":"info","label":"todo-server","message":"GET /todos/\"x\\? 404 190 12345.007ms — No to-do has the id \"x\\\".\n","client":"10.0.0.2:1","request_id":"r\"1"}"#
                    + "\n"
            ),
        ])
    func sameBytesAsTheGeneralPath(format: LogFormat, pinned: Int, line: String) {
        for (entry, message) in Self.cases {
            let lines = Self.lines(entry, message, format: format)
            #expect(lines.fast == lines.general)
        }
        let written = StdoutLogHandler.accessLine(Self.cases[pinned].0, label: "todo-server", format: format, time: Self.time)
        #expect(String(decoding: written, as: UTF8.self) == line)
    }

    @Test("issue 35 round 3: a client's control characters in a detail or message are escaped: one line per request, no forged line")
    func controlCharactersAreEscaped() {
        let forged = "1\n2026-01-01T00:00:00.000Z info todo-server: client=10.9.9.9:1 request_id=forged DELETE /todos 204 0 0.100ms"
        let detail = "'limit' is '\(forged)\r\u{1B}[31mRED\u{1B}[0m\u{0}\u{7F}\t'; expected an integer from 1 to 1000."
        let entry = Entry(
            method: "GET", path: "/todos", query: "limit=1%0A2026", status: 400, bodyBytes: 10, microseconds: 1, detail: detail,
            requestID: "q", client: "127.0.0.1:1")
        let escaped =
            "'limit' is '1\\n2026-01-01T00:00:00.000Z info todo-server: client=10.9.9.9:1 request_id=forged DELETE /todos 204 0 0.100ms"
            + "\\r\\x1B[31mRED\\x1B[0m\\x00\\x7F\\t'; expected an integer from 1 to 1000."
        let fast = StdoutLogHandler.accessLine(entry, label: "todo-server", format: .text, time: Self.time)
        let general = StdoutLogHandler.line(
            level: .info, label: "todo-server", metadata: ["request_id": "q", "client": "127.0.0.1:1"],
            message: "GET /todos?limit=1%0A2026 400 10 0.001ms — \(detail)", format: .text, time: Self.time)
        for line in [fast, general] {
            let text = String(decoding: line, as: UTF8.self)
            #expect(
                text
                    == "2026-11-22T10:00:00.123Z info todo-server: client=127.0.0.1:1 request_id=q GET /todos?limit=1%0A2026 400 10 0.001ms — \(escaped)\n"
            )
            #expect(line.filter { $0 < 0x20 || $0 == 0x7F } == [0x0A], "one line feed, at the end; no other control byte")
        }
        // Metadata values too.
        let metadata = StdoutLogHandler.line(
            level: .warning, label: "l", metadata: ["k": "a\nb\u{1B}"], message: "m", format: .text, time: Self.time)
        #expect(String(decoding: metadata, as: UTF8.self) == "2026-11-22T10:00:00.123Z warning l: k=a\\nb\\x1B m\n")
    }

    @Test("text lines at times the line writer formats itself or hands on: midnight, 1969, year 9999, year 10000")
    func textTimes() {
        let entry = Self.cases[0].0
        let instants: [Int64] = [0, -1, 86_400_000, 1_795_391_999_999, 253_402_300_799_999, 253_402_300_800_000]
        for instant in instants {
            let lines = Self.lines(entry, Self.cases[0].1, format: .text, time: Timestamp(millisecondsSinceEpoch: instant))
            #expect(lines.fast == lines.general, "at \(instant)")
        }
        let midnight = StdoutLogHandler.accessLine(
            entry, label: "l", format: .text, time: Timestamp(millisecondsSinceEpoch: 1_795_392_000_000))
        #expect(String(decoding: midnight, as: UTF8.self).hasPrefix("2026-11-23T00:00:00.000Z info l: client=127.0.0.1:5000 "))
    }

    @Test("a live server's access lines through StdoutLogHandler: one per request, query, client and detail")
    func live() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        let server = try LiveServer(logHandler: StdoutLogHandler(label: "todo-server", logLevel: .info, descriptor: fds[1]))
        _ = try server.request("GET", "/todos?limit=2", headers: [("X-Request-ID", "a-1")])
        let missing = try server.request("GET", "/todos/nope", headers: [("X-Request-ID", "a-2")])
        let detail = try #require(missing.object["detail"] as? String)
        var text = ""
        let arrived = eventually(timeout: .seconds(20), interval: .milliseconds(20)) {
            var bytes = [UInt8](repeating: 0, count: 65536)
            let count = read(fds[0], &bytes, bytes.count)
            if count > 0 { text += String(decoding: bytes[..<count], as: UTF8.self) }
            return text.contains("request_id=a-2 ")
        }
        #expect(arrived, "\(text)")
        let lines = text.split(separator: "\n").map(String.init)
        let first = try #require(lines.first { $0.contains("request_id=a-1 ") })
        #expect(first.dropFirst(25).hasPrefix("info todo-server: client=127.0.0.1:"))
        #expect(first.contains(" request_id=a-1 GET /todos?limit=2 200 "))
        #expect(first.hasSuffix("ms"))
        let second = try #require(lines.first { $0.contains("request_id=a-2 ") })
        #expect(second.contains(" request_id=a-2 GET /todos/nope 404 "))
        #expect(second.hasSuffix("ms — \(detail)"))
        #expect(lines.filter { $0.contains("request_id=a-1 ") }.count == 1)
    }
}
