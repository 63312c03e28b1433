import EventHTTP
import Glibc
import Logging

extension TodoApplication {
    /// The loops' reports about themselves, as log lines.
    public func serverEvent(_ event: HTTPServerEvent) {
        switch event {
        case .acceptPaused(let loop, let reason, let failures, let retryMilliseconds):
            logger.warning(
                "accept paused",
                metadata: [
                    "loop": "\(loop)", "reason": "\(String(cString: strerror(reason)))", "errno": "\(reason)",
                    "failures": "\(failures)", "retry_ms": "\(retryMilliseconds)",
                ])
        case .acceptResumed(let loop, let failures):
            logger.notice("accepting again", metadata: ["loop": "\(loop)", "failures": "\(failures)"])
        case .libeventMessage(let loop, let severity, let message):
            let level: Logger.Level =
                switch severity {
                case 0: .debug
                case 1: .info
                case 2: .warning
                default: .error
                }
            logger.log(level: level, "libevent", metadata: ["loop": "\(loop)", "message": "\(message)"])
        }
    }
}
