import Glibc
import Logging
import TodoData

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
        /// The owner the request acted for (not the shared list's).
        var owner: String? = nil
    }

    /// Writes `entry` as the line `log(event:)` would for `logger.info(message, metadata:
    /// ["request_id": …, "client": …])` when the handler has no metadata of its own, without
    /// building the message, the metadata dictionaries or the sorted key list.
    func logAccess(_ entry: AccessEntry) {
        guard logLevel <= .info else { return }
        switch format {
        case .text: Self.withTextAccessLine(entry, label: label, time: Self.now()) { emit(bytes: $0) }
        case .json: emit(Self.accessLine(entry, label: label, format: format, time: Self.now()))
        }
    }

    /// The access line at `time`, newline included.
    static func accessLine(_ entry: AccessEntry, label: String, format: LogFormat, time: Timestamp) -> [UInt8] {
        switch format {
        case .text:
            return withTextAccessLine(entry, label: label, time: time) { [UInt8]($0) }
        case .json:
            var verbatim = VerbatimBytes()
            verbatim.bytes.reserveCapacity(
                64 + entry.path.utf8.count + (entry.query?.utf8.count ?? 0) + (entry.detail?.utf8.count ?? 0))
            writeMessage(of: entry, to: &verbatim)
            let message = verbatim.bytes
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
            if let owner = entry.owner {
                writer.key("owner")
                writer.string(owner)
            }
            writer.key("request_id")
            writer.string(entry.requestID)
            writer.endObject()
            var line = writer.finish()
            line.append(UInt8(ascii: "\n"))
            return line
        }
    }

    /// The most bytes `writeMessage` writes for `entry`.
    private static func messageCapacity(of entry: AccessEntry) -> Int {
        LineBytes.capacity(of: entry.method) + 1 + LineBytes.capacity(of: entry.path) + 1 + (entry.query.map(LineBytes.capacity) ?? 0) + 1
            + 2 * LineBytes.decimalCapacity + 2 + LineBytes.decimalCapacity + 4 + 2 + 5 + (entry.detail.map(LineBytes.capacity) ?? 0)
    }

    /// `GET /todos?limit=2 200 517 0.123ms`, then ` — <detail>` when there is one: into the text
    /// line (`LineBytes`, control characters escaped) or the JSON line's message (`VerbatimBytes`,
    /// which `JSONWriter` escapes).
    private static func writeMessage(of entry: AccessEntry, to line: inout some AccessMessageOutput) {
        line.text(entry.method)
        line.byte(UInt8(ascii: " "))
        line.text(entry.path)
        if let query = entry.query {
            line.byte(UInt8(ascii: "?"))
            line.text(query)
        }
        line.byte(UInt8(ascii: " "))
        line.decimal(Int64(entry.status))
        line.byte(UInt8(ascii: " "))
        line.decimal(Int64(entry.bodyBytes))
        line.byte(UInt8(ascii: " "))
        line.milliseconds(microseconds: entry.microseconds)
        line.raw("ms")
        if let detail = entry.detail {
            line.raw(" — ")
            line.text(detail)
        }
    }

    /// The wall-clock time, as `line(level:…)` takes it.
    public static func now() -> Timestamp {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Timestamp(millisecondsSinceEpoch: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec / 1_000_000))
    }

    /// Calls `body` with the text access line at `time`, newline included, written into temporary
    /// storage: the server hands it straight to the log writer, without an array per line (an
    /// allocation, and a run-time look-up of the array type's metadata).
    static func withTextAccessLine<Result>(
        _ entry: AccessEntry, label: String, time: Timestamp, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        // `<time> info <label>: client=<client> [owner=<owner>] request_id=<id> <message>`: keys in sorted order.
        // One reservation for the whole line, stored through a pointer (`LineBytes`).
        let capacity =
            LineBytes.timeCapacity + 6 + LineBytes.capacity(of: label) + 9 + LineBytes.capacity(of: entry.client)
            + (entry.owner.map { 7 + LineBytes.capacity(of: $0) } ?? 0) + 12
            + LineBytes.capacity(of: entry.requestID) + 1 + messageCapacity(of: entry) + 1
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            let start = buffer.baseAddress!
            var line = LineBytes(start)
            line.time(time)
            line.raw(" info ")
            line.text(label)
            line.raw(": client=")
            line.text(entry.client)
            if let owner = entry.owner {
                line.raw(" owner=")
                line.text(owner)
            }
            line.raw(" request_id=")
            line.text(entry.requestID)
            line.byte(UInt8(ascii: " "))
            writeMessage(of: entry, to: &line)
            line.byte(UInt8(ascii: "\n"))
            return body(UnsafeRawBufferPointer(start: start, count: start.distance(to: line.pointer)))
        }
    }
}

/// Where an access message is written (`writeMessage`): the one layout of the message for the
/// text line and the JSON line.
private protocol AccessMessageOutput {
    mutating func byte(_ value: UInt8)
    mutating func raw(_ text: StaticString)
    mutating func text(_ text: String)
    mutating func decimal(_ value: Int64)
    mutating func milliseconds(microseconds: Int64)
}

extension LineBytes: AccessMessageOutput {}

/// The JSON line's message: the bytes as they are, appended (the writer escapes them after).
private struct VerbatimBytes: AccessMessageOutput {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }
    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
    mutating func text(_ text: String) { bytes.append(contentsOf: text.utf8) }
    mutating func decimal(_ value: Int64) { DecimalText.appendDecimal(value, to: &bytes) }
    mutating func milliseconds(microseconds: Int64) { DecimalText.appendMilliseconds(microseconds: microseconds, to: &bytes) }
}
