import Dispatch
import Glibc
import Logging

/// SIGHUP, which would end the process without draining (its default action), is ignored with a
/// log line: the server has nothing to reload (its configuration is read once, at start), and a
/// closed terminal or a `kill -HUP` meant as "reload" must not drop requests in flight.
enum HangUpSignal {
    /// Ignores SIGHUP from now on, logging each one; cancel the returned source to stop logging.
    static func ignore(logger: Logger) -> any DispatchSourceSignal {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler {
            logger.notice(
                "SIGHUP ignored: the configuration is read at start only; restart to change it",
                metadata: ["signal": "\(SIGHUP)"])
        }
        source.resume()
        return source
    }
}
