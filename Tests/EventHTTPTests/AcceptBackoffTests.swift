import Glibc
import Testing

@testable import EventHTTP

@Suite("AcceptBackoff: pausing the listener at EMFILE")
struct AcceptBackoffTests {
    let start = ContinuousClock.now

    @Test("the first failure pauses and reports; failures while paused neither pause again nor report within the interval")
    func firstFailure() {
        var backoff = AcceptBackoff(retryInterval: .milliseconds(100), logInterval: .seconds(1))
        #expect(
            backoff.acceptFailed(error: EMFILE, now: start) == [
                .pause(retryAfter: .milliseconds(100)), .reportPaused(reason: EMFILE, failures: 1),
            ])
        #expect(backoff.isPaused)
        #expect(backoff.acceptFailed(error: EMFILE, now: start + .milliseconds(5)) == [])
    }

    @Test("retries resume; the next failures pause again and report once per log interval, with their count")
    func reportsOncePerInterval() {
        var backoff = AcceptBackoff(retryInterval: .milliseconds(100), logInterval: .seconds(1))
        _ = backoff.acceptFailed(error: ENFILE, now: start)
        var actions: [AcceptBackoff.Action] = []
        for step in 1...10 {
            #expect(backoff.retryDue() == [.resume])
            #expect(!backoff.isPaused)
            actions += backoff.acceptFailed(error: ENFILE, now: start + .milliseconds(100 * step))
        }
        let pauses = actions.filter { if case .pause = $0 { true } else { false } }
        #expect(pauses.count == 10)
        #expect(actions.filter { if case .reportPaused = $0 { true } else { false } } == [.reportPaused(reason: ENFILE, failures: 10)])
        #expect(backoff.episodeFailures == 11)
    }

    @Test("an accepted connection ends the episode with one report; without failures it reports nothing")
    func resumed() {
        var backoff = AcceptBackoff(retryInterval: .milliseconds(100), logInterval: .seconds(1))
        #expect(backoff.accepted() == [])
        _ = backoff.acceptFailed(error: EMFILE, now: start)
        _ = backoff.acceptFailed(error: EMFILE, now: start + .milliseconds(1))
        #expect(backoff.retryDue() == [.resume])
        #expect(backoff.accepted() == [.reportResumed(failures: 2)])
        #expect(backoff.accepted() == [])
        // A new episode reports its first failure at once.
        #expect(
            backoff.acceptFailed(error: EMFILE, now: start + .milliseconds(2)) == [
                .pause(retryAfter: .milliseconds(100)), .reportPaused(reason: EMFILE, failures: 1),
            ])
    }

    @Test("a retry after stop does nothing")
    func stopped() {
        var backoff = AcceptBackoff(retryInterval: .milliseconds(100), logInterval: .seconds(1))
        _ = backoff.acceptFailed(error: EMFILE, now: start)
        backoff.stop()
        #expect(backoff.retryDue() == [])
    }
}
