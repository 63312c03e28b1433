import Glibc
import Logging

extension StdoutLogHandler {
    /// The parts of an access-log line, as `AccessLog` has them.
    struct AccessEntry {
        var method: String
        var path: String
        var query: String?
        var status: Int
        var bodyBytes: Int
        /// The request's duration in microseconds, 0 or more.
        var microseconds: Int64
        /// A 4xx's or 5xx's problem detail.
        var detail: String?
        var requestID: String
        var client: String
    }

    /// Writes `entry` as the line `log(event:)` would for `logger.info(message, metadata:
    /// ["request_id": …, "client": …])` when the handler has no metadata of its own, without
    /// building the message, the metadata dictionaries or the sorted key list.
    func logAccess(_ entry: AccessEntry) {
        guard logLevel <= .info else { return }
        emit(Self.accessLine(entry, label: label, format: format, time: Self.now()))
    }

    /// The access line at `time`, newline included.
    static func accessLine(_ entry: AccessEntry, label: String, format: LogFormat, time: Timestamp) -> [UInt8] {
        switch format {
        case .text:
            // `<time> info <label>: client=<client> request_id=<id> <message>`: keys in sorted order.
            var line: [UInt8] = []
            line.reserveCapacity(96 + label.utf8.count + entry.path.utf8.count + (entry.query?.utf8.count ?? 0)
                + entry.client.utf8.count + entry.requestID.utf8.count + (entry.detail?.utf8.count ?? 0))
            time.appendRFC3339(to: &line)
            line.append(contentsOf: " info ".utf8)
            line.append(contentsOf: label.utf8)
            line.append(contentsOf: ": client=".utf8)
            line.append(contentsOf: entry.client.utf8)
            line.append(contentsOf: " request_id=".utf8)
            line.append(contentsOf: entry.requestID.utf8)
            line.append(UInt8(ascii: " "))
            appendMessage(of: entry, to: &line)
            line.append(UInt8(ascii: "\n"))
            return line
        case .json:
            var message: [UInt8] = []
            message.reserveCapacity(64 + entry.path.utf8.count + (entry.query?.utf8.count ?? 0) + (entry.detail?.utf8.count ?? 0))
            appendMessage(of: entry, to: &message)
            var writer = JSONWriter(capacity: 160 + label.utf8.count + message.count + entry.client.utf8.count + entry.requestID.utf8.count)
            writer.beginObject()
            writer.key("time")
            writer.timestamp(time)
            writer.key("level")
            writer.string("info")
            writer.key("label")
            writer.string(label)
            writer.key("message")
            message.withUnsafeBufferPointer { writer.string(utf8: $0) }
            writer.key("client")
            writer.string(entry.client)
            writer.key("request_id")
            writer.string(entry.requestID)
            writer.endObject()
            var line = writer.finish()
            line.append(UInt8(ascii: "\n"))
            return line
        }
    }

    /// `GET /todos?limit=2 200 517 0.123ms`, then ` — <detail>` when there is one.
    private static func appendMessage(of entry: AccessEntry, to line: inout [UInt8]) {
        line.append(contentsOf: entry.method.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: entry.path.utf8)
        if let query = entry.query {
            line.append(UInt8(ascii: "?"))
            line.append(contentsOf: query.utf8)
        }
        line.append(UInt8(ascii: " "))
        DecimalText.appendDecimal(Int64(entry.status), to: &line)
        line.append(UInt8(ascii: " "))
        DecimalText.appendDecimal(Int64(entry.bodyBytes), to: &line)
        line.append(UInt8(ascii: " "))
        DecimalText.appendMilliseconds(microseconds: entry.microseconds, to: &line)
        line.append(contentsOf: "ms".utf8)
        if let detail = entry.detail {
            line.append(contentsOf: " — ".utf8)
            line.append(contentsOf: detail.utf8)
        }
    }


    /// The wall-clock time, as `line(level:…)` takes it.
    public static func now() -> Timestamp {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Timestamp(millisecondsSinceEpoch: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec / 1_000_000))
    }
}
