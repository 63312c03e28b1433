import Glibc
import Logging

/// A swift-log handler that writes each event as one line on standard output with one `write(2)`:
/// time (RFC 3339, UTC), level, label, metadata, message.
///
/// swift-log's `StreamLogHandler` cost ~18k instructions per access-log line here (a lock, a
/// `strftime` time, string building); this one formats bytes directly.
public struct StdoutLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let descriptor: Int32

    /// `descriptor` is where lines go: standard output unless a test says otherwise.
    public init(label: String, logLevel: Logger.Level = .info, descriptor: Int32 = STDOUT_FILENO) {
        self.label = label
        self.logLevel = logLevel
        self.descriptor = descriptor
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line: [UInt8] = []
        line.reserveCapacity(192)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        Timestamp(millisecondsSinceEpoch: Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec / 1_000_000)).appendRFC3339(to: &line)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: event.level.rawValue.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: label.utf8)
        line.append(UInt8(ascii: ":"))
        let merged = event.metadata.map { metadata.merging($0) { $1 } } ?? metadata
        for key in merged.keys.sorted() {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: key.utf8)
            line.append(UInt8(ascii: "="))
            line.append(contentsOf: merged[key]!.description.utf8)
        }
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: event.message.description.utf8)
        line.append(UInt8(ascii: "\n"))
        line.withUnsafeBytes { buffer in
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
    }
}
