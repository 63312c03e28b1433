import Foundation
import Glibc
import LockTracing
import Logging
import TestSupport
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("Access log, trace and debug lines, and the banner")
struct AccessLogAndBannerTests {
    /// A live server configured by `configure`, logging at `logLevel` into the storage answered.
    private func loggingServer(
        logLevel: Logger.Level = .info, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> (LiveServer, CapturingLogHandler.Storage) {
        let storage = CapturingLogHandler.Storage()
        return (try LiveServer(configure: configure, logHandler: CapturingLogHandler(storage: storage), logLevel: logLevel), storage)
    }

    @Test("access lines carry the query string, the client address and a 4xx's detail")
    func accessLines() throws {
        let (server, storage) = try loggingServer()
        _ = try server.request("GET", "/todos?limit=2&sort=title", headers: [("X-Request-ID", "q-1")])
        let missing = try server.request("GET", "/todos/nope", headers: [("X-Request-ID", "q-2")])
        let lines = storage.lines.withTracedLock { $0 }
        let first = try #require(lines.first { $0.metadata["request_id"] == "q-1" })
        #expect(first.message.hasPrefix("GET /todos?limit=2&sort=title 200 "))
        let client = try #require(first.metadata["client"])
        #expect(client.hasPrefix("127.0.0.1:") && Int(client.dropFirst(10)).map { $0 > 0 } == true, "\(client)")
        let second = try #require(lines.first { $0.metadata["request_id"] == "q-2" })
        let detail = try #require(missing.object["detail"] as? String)
        #expect(second.message.hasPrefix("GET /todos/nope 404 "))
        #expect(second.message.hasSuffix("ms — \(detail)"))
    }

    @Test("trace lists request headers without credentials; debug says what screening and tokens decided")
    func traceAndDebug() throws {
        let (server, storage) = try loggingServer(logLevel: .trace) {
            $0.readTokens = ["reader-9"]
            $0.maxURIBytes = 64
        }
        _ = try server.request(
            "GET", "/todos",
            headers: [
                ("X-Request-ID", "t-1"), ("Authorization", "Bearer reader-9"), ("Cookie", "s=1"), ("Proxy-Authorization", "Basic eDp5"),
            ])
        _ = try server.request("POST", "/todos", headers: [("Authorization", "Bearer reader-9")], body: "{}")
        _ = try server.request("GET", "/todos/" + String(repeating: "a", count: 100), headers: [("Authorization", "Bearer reader-9")])
        let lines = storage.lines.withTracedLock { $0 }
        let headers = try #require(lines.first { $0.level == .trace && $0.metadata["request_id"] == "t-1" })
        #expect(
            headers.message
                == "request headers: Host: 127.0.0.1 | X-Request-ID: t-1 | Authorization: (redacted) | Cookie: (redacted) | Proxy-Authorization: (redacted)"
        )
        let decisions = lines.filter { $0.level == .debug && $0.message == "token check" }.map { $0.metadata["decision"] }
        #expect(decisions.contains("readOnly") && decisions.contains("writeWithReadToken"))
        let screening = try #require(lines.first { $0.message == "screening refused the request" })
        #expect(screening.metadata["status"] == "414")
        #expect(screening.metadata["reason"] == "The request target is longer than the limit of 64 bytes.")
    }

    @Test("at info, no trace or debug lines")
    func infoIsQuiet() throws {
        let (server, storage) = try loggingServer { $0.readTokens = ["reader-9"] }
        _ = try server.request("GET", "/todos", headers: [("Authorization", "Bearer reader-9")])
        #expect(storage.lines.withTracedLock { $0 }.allSatisfy { $0.level >= .info })
    }

    @Test("the banner: URL, store, access, loops; debug dumps each setting with its source")
    func banner() throws {
        let (server, storage) = try loggingServer(logLevel: .debug) {
            $0.authTokens = ["w-secret"]
            $0.logLevel = .debug
            $0.provenance.sources["authTokens"] = .environment("TODO_AUTH_TOKENS")
        }
        let messages = storage.lines.withTracedLock { $0 }.map(\.message)
        #expect(messages.contains("listening on http://127.0.0.1:\(server.port)/"))
        #expect(messages.contains("store: in memory — set TODO_DATA_DIR or TODO_DATABASE_URL to keep to-dos"))
        #expect(messages.contains("access: bearer tokens required (1 read-write, 0 read-only); /metrics needs a token"))
        #expect(messages.contains("loops: 2 event-loop threads on one port; log level debug, format text"))
        #expect(messages.contains("setting authTokens = 1 tokens (TODO_AUTH_TOKENS)"))
        #expect(messages.contains("setting port = 0 (default)"))
        #expect(!messages.joined().contains("w-secret"))
        var wildcard = ServerConfiguration()
        wildcard.host = "0.0.0.0"
        wildcard.dataDirectory = "/var/lib/todo"
        #expect(StartupBanner(configuration: wildcard, port: 8080).url == "http://localhost:8080/")
        #expect(StartupBanner(configuration: wildcard, port: 8080).storeLine == "store: journal in /var/lib/todo (fsync interval)")
    }

    @Test("json log lines: one object per line with time, level, label, message and metadata")
    func jsonFormat() throws {
        let text = try StdoutLogHandlerTests.written(format: .json) { logger in
            logger.info("GET /todos 200 2 0.100ms — \"quoted\"\n", metadata: ["request_id": "abc", "message": "clash"])
        }
        #expect(text.hasSuffix("}\n"))
        #expect(text.dropLast().split(separator: "\n").count == 1, "a newline in the message stays escaped")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(object["message"] == "GET /todos 200 2 0.100ms — \"quoted\"\n")
        #expect(object["level"] == "info")
        #expect(object["label"] == "todo-server")
        #expect(object["request_id"] == "abc")
        #expect(object["metadata.message"] == "clash")
        #expect(object["time"]?.count == 24)
    }
}

@Suite("LogWriter")
struct LogWriterTests {
    @Test("a stalled reader never blocks enqueue: lines past the bound are dropped, counted and reported")
    func stalledReader() throws {
        let pipe = try NonBlockingPipe()
        defer { pipe.close() }
        // Fill the pipe first (newlines only, which the checks below skip), as a reader that has
        // stopped would leave it: the writer's first write blocks.
        let writeFlags = fcntl(pipe.writeEnd, F_GETFL)
        _ = fcntl(pipe.writeEnd, F_SETFL, writeFlags | O_NONBLOCK)
        let filler = [UInt8](repeating: UInt8(ascii: "\n"), count: 4096)
        while write(pipe.writeEnd, filler, filler.count) > 0 {}
        _ = fcntl(pipe.writeEnd, F_SETFL, writeFlags)
        let writer = LogWriter(descriptor: pipe.writeEnd, capacityBytes: 4096) { count in Array("dropped \(count)\n".utf8) }
        let line = Array((String(repeating: "x", count: 99) + "\n").utf8)
        // 20,000 lines of 100 bytes: far more than the pipe (64 KiB) and the buffer hold.
        for _ in 0..<20_000 { writer.enqueue(line) }
        let dropped = writer.droppedLines
        #expect(dropped > 10_000)
        #expect(!writer.flush(timeout: .milliseconds(50)), "nothing drains while nobody reads")
        // Read everything until the writer has drained; the notices add up to what was dropped.
        let drained = eventually(timeout: .seconds(20)) {
            let received = pipe.read()
            return writer.flush(timeout: .zero) && String(decoding: received, as: UTF8.self).contains("dropped")
        }
        #expect(drained)
        let text = String(decoding: pipe.read(), as: UTF8.self)
        let lines = text.split(separator: "\n")
        let notices = lines.filter { $0.hasPrefix("dropped ") }.compactMap { Int($0.dropFirst(8)) }
        #expect(notices.reduce(0, +) == dropped)
        #expect(lines.count - notices.count == 20_000 - dropped, "every line not dropped arrives whole")
        writer.close(timeout: .seconds(1))
    }
}
