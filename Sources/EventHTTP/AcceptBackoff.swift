import Glibc

/// When a listener pauses and resumes accepting after `accept(2)` fails for want of descriptors
/// (EMFILE, ENFILE) or memory (ENOBUFS, ENOMEM), and when that is worth a log line.
///
/// A listening socket stays readable while connections wait in its backlog, so a loop that keeps
/// trying to accept at the descriptor limit spins. Instead the listener pauses for `retryInterval`
/// and tries again; the first failure of an episode is reported, then at most one report per
/// `logInterval` with the failures since the last one. Pure: the loop passes in the time and
/// carries out the actions.
struct AcceptBackoff {
    enum Action: Equatable {
        /// Stop accepting; call `retryDue` after `retryAfter`.
        case pause(retryAfter: Duration)
        /// Accept again.
        case resume
        /// Report: accepting is paused by `reason`, `failures` times since the last report.
        case reportPaused(reason: Int32, failures: Int)
        /// Report: a connection was accepted again after `failures` failed attempts in the episode.
        case reportResumed(failures: Int)
    }

    let retryInterval: Duration
    let logInterval: Duration
    private(set) var isPaused = false
    /// Failures since an accept last succeeded.
    private(set) var episodeFailures = 0
    /// Failures since the last report.
    private var unreported = 0
    private var lastReport: ContinuousClock.Instant?

    init(retryInterval: Duration, logInterval: Duration) {
        self.retryInterval = retryInterval
        self.logInterval = logInterval
    }

    /// `accept(2)` failed with `error`, which libevent does not retry by itself (it retries EINTR,
    /// EAGAIN and ECONNABORTED). Any such error pauses: retrying at once would fail the same way.
    mutating func acceptFailed(error: Int32, now: ContinuousClock.Instant) -> [Action] {
        episodeFailures += 1
        unreported += 1
        var actions: [Action] = []
        if !isPaused {
            isPaused = true
            actions.append(.pause(retryAfter: retryInterval))
        }
        if lastReport.map({ now - $0 >= logInterval }) ?? true {
            actions.append(.reportPaused(reason: error, failures: unreported))
            unreported = 0
            lastReport = now
        }
        return actions
    }

    /// The pause is over: try accepting again.
    mutating func retryDue() -> [Action] {
        guard isPaused else { return [] }
        isPaused = false
        return [.resume]
    }

    /// A connection was accepted: ends an episode of failures.
    mutating func accepted() -> [Action] {
        guard episodeFailures > 0 else { return [] }
        defer {
            episodeFailures = 0
            unreported = 0
            lastReport = nil
        }
        return [.reportResumed(failures: episodeFailures)]
    }

    /// The listener is going away (shutdown): nothing to resume.
    mutating func stop() {
        isPaused = false
    }
}
