import LockTracing
import Logging
import Synchronization

/// A log handler that keeps each line's message and metadata (the logger's, then the line's), to
/// check the access log and the per-request logger.
struct CapturingLogHandler: LogHandler {
    /// One logged line.
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    final class Storage: Sendable {
        let lines = Mutex<[Line]>([])
    }

    let storage: Storage
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    init(storage: Storage, logLevel: Logger.Level = .info) {
        self.storage = storage
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let line = Line(
            level: event.level, message: "\(event.message)",
            metadata: metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { "\($0)" })
        storage.lines.withTracedLock { $0.append(line) }
    }
}
