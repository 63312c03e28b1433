import Logging
import Testing

@testable import TodoData
@testable import TodoServer

@Suite("StdoutLogHandler")
struct StdoutLogHandlerTests {
    /// What a `StdoutLogHandler` at info, for a logger labelled todo-server, writes in `format` for
    /// what `log` logs with it.
    static func written(format: LogFormat = .text, _ log: (inout Logger) -> Void) throws -> String {
        let pipe = try NonBlockingPipe()
        defer { pipe.close() }
        var logger = Logger(label: "todo-server") {
            StdoutLogHandler(label: $0, logLevel: .info, descriptor: pipe.writeEnd, format: format)
        }
        log(&logger)
        return String(decoding: pipe.read(), as: UTF8.self)
    }

    @Test("one line per event: time, level, label, sorted metadata, message")
    func line() throws {
        let text = try Self.written { logger in
            logger[metadataKey: "zone"] = "a"
            logger.info("GET /todos 200 2 0.100ms", metadata: ["request_id": "abc"])
            logger.debug("not written")
            logger.warning("second")
        }
        let lines = text.split(separator: "\n")
        #expect(lines.count == 2)
        let first = lines[0].split(separator: " ", maxSplits: 1)
        #expect(first[0].count == 24)
        #expect(first[0].hasSuffix("Z"))
        #expect(first[1] == "info todo-server: request_id=abc zone=a GET /todos 200 2 0.100ms")
        #expect(lines[1].hasSuffix(" warning todo-server: zone=a second"))
    }

    @Test(
        "zero-padding of dates and times",
        arguments: [
            (0, "1970-01-01T00:00:00.000Z"), (1_795_341_600_123, "2026-11-22T10:00:00.123Z"),
            (-62_135_596_800_000, "0001-01-01T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"), (1_000_000_009, "1970-01-12T13:46:40.009Z"),
        ])
    func padding(milliseconds: Int64, text: String) {
        #expect(Timestamp(millisecondsSinceEpoch: milliseconds).description == text)
    }
}
