import Dispatch
import Glibc
import Logging
import Synchronization

/// Signals whose default action would end the process without draining, ignored with a log line:
/// SIGHUP (the configuration is read once, at start: a closed terminal or a `kill -HUP` meant as
/// "reload" must not drop requests in flight), SIGUSR1 and SIGUSR2 (the server has no use for
/// them; a monitoring agent or a mistyped `kill` must not stop it).
enum IgnoredSignals {
    static let reasons: [(signal: Int32, name: String, reason: String)] = [
        (SIGHUP, "SIGHUP", "the configuration is read at start only; restart to change it"),
        (SIGUSR1, "SIGUSR1", "the server has no use for it"),
        (SIGUSR2, "SIGUSR2", "the server has no use for it"),
    ]

    /// Ignores each from now on, logging each arrival; cancel the returned sources to stop logging.
    static func ignore(logger: Logger) -> [any DispatchSourceSignal] {
        reasons.map { number, name, reason in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                logger.notice("\(name) ignored: \(reason)", metadata: ["signal": "\(number)"])
            }
            source.resume()
            return source
        }
    }
}

/// SIGTERM and SIGINT: the first starts the graceful shutdown (the drain), a second one ends the
/// process at once, since an operator who sends another does not want to wait for the drain.
/// Answers in flight are then cut off; every change already answered is in the journal file
/// (written before it was answered) or in the database.
///
/// One source per signal for both (libdispatch on Linux delivers a signal to one source only, so
/// the service group is not given these signals: `first` triggers its graceful shutdown).
enum StopSignals {
    /// Watches SIGTERM and SIGINT from now on: `first` runs at the first; at the second, one line
    /// goes to standard error and the process exits with 128 + the signal's number (what a shell
    /// reports for a process the signal ended).
    static func watch(first: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        let count = StopCount()
        return [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                guard count.increment() >= 2 else { return first() }
                let line = "todo-server: \(name) again while draining: exiting at once\n"
                _ = line.withCString { write(2, $0, strlen($0)) }
                _exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    private final class StopCount: Sendable {
        private let value = Atomic<Int>(0)

        func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    }
}
