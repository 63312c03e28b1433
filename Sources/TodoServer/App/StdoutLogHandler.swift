import Glibc
import Logging
import TodoData

/// A swift-log handler that writes each event as one line: as text (time in RFC 3339 UTC, level,
/// label, metadata, message) or as one JSON object per line (`logFormat: json`).
///
/// With a `LogWriter` (the server's standard output) the line is queued and the calling loop never
/// waits for the reader; without one it is written to `descriptor` at once, with one `write(2)`.
/// Where swift-log's `StreamLogHandler` takes a lock, formats the time with `strftime` and builds
/// strings for every line, this one formats bytes directly.
public struct StdoutLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    let label: String
    private let descriptor: Int32
    let format: LogFormat
    private let writer: LogWriter?

    /// `descriptor` is where lines go: standard output unless a test says otherwise.
    public init(label: String, logLevel: Logger.Level = .info, descriptor: Int32 = STDOUT_FILENO, format: LogFormat = .text) {
        self.label = label
        self.logLevel = logLevel
        self.descriptor = descriptor
        self.format = format
        writer = nil
    }

    /// Lines go through `writer`, which never blocks the caller.
    public init(label: String, logLevel: Logger.Level, format: LogFormat, writer: LogWriter) {
        self.label = label
        self.logLevel = logLevel
        descriptor = -1
        self.format = format
        self.writer = writer
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        let line = Self.line(level: event.level, label: label, metadata: merged, message: event.message.description, format: format)
        emit(line)
    }

    /// Queues `line` with the writer, or writes it to the descriptor.
    func emit(_ line: [UInt8]) {
        line.withUnsafeBytes { emit(bytes: $0) }
    }

    /// `emit(_:)` for a line in borrowed memory (copied before this returns).
    func emit(bytes buffer: UnsafeRawBufferPointer) {
        if let writer {
            writer.enqueue(buffer)
            return
        }
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// One event as a line at `time` (now unless a test says otherwise), newline included.
    public static func line(
        level: Logger.Level, label: String, metadata: Logger.Metadata, message: String, format: LogFormat,
        time: Timestamp = StdoutLogHandler.now()
    ) -> [UInt8] {
        switch format {
        case .text: return textLine(time: time, level: level, label: label, metadata: metadata, message: message)
        case .json: return jsonLine(time: time, level: level, label: label, metadata: metadata, message: message)
        }
    }

    private static func textLine(time: Timestamp, level: Logger.Level, label: String, metadata: Logger.Metadata, message: String) -> [UInt8]
    {
        var line: [UInt8] = []
        line.reserveCapacity(192)
        time.appendRFC3339(to: &line)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: level.rawValue.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: label.utf8)
        line.append(UInt8(ascii: ":"))
        for key in metadata.keys.sorted() {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: key.utf8)
            line.append(UInt8(ascii: "="))
            LogText.append(metadata[key]!.description, to: &line)
        }
        line.append(UInt8(ascii: " "))
        LogText.append(message, to: &line)
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// `{"time":…,"level":…,"label":…,"message":…, metadata…}`: metadata keys sit beside the fixed
    /// ones (a key that would collide gets a `metadata.` prefix), every value a string.
    private static func jsonLine(time: Timestamp, level: Logger.Level, label: String, metadata: Logger.Metadata, message: String) -> [UInt8]
    {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("time")
        writer.timestamp(time)
        writer.key("level")
        writer.string(level.rawValue)
        writer.key("label")
        writer.string(label)
        writer.key("message")
        writer.string(message)
        for key in metadata.keys.sorted() {
            writer.key(["time", "level", "label", "message"].contains(key) ? "metadata." + key : key)
            writer.string(metadata[key]!.description)
        }
        writer.endObject()
        var line = writer.finish()
        line.append(UInt8(ascii: "\n"))
        return line
    }
}
