import Dispatch
import Foundation
import Logging
import TestSupport
import Testing

@testable import TodoDataTestSupport
@testable import TodoServer

/// Second reading of `jwtJwksUrl`: what the pacing does when the wall clock the machine reads does
/// not agree with the Dispatch timer that wakes it (a clock stepped back by NTP, a VM resumed).
@Suite("JWT keys from a URL: the refresh survives a wall clock that goes back")
struct JWKSReviewTests {
    typealias Machine = JWKSRefreshStateMachine
    typealias F = IdentityFixture

    @Test("a wake before the machine's time is due re-arms the timer instead of dropping it")
    func earlyWakeRearms() {
        var machine = Machine(policy: .init(minRefresh: 30_000))
        _ = machine.start(now: 1_000)
        _ = machine.fetchEnded(.fetched(maxAge: nil), now: 2_000)
        #expect(machine.timerFired(now: 601_999) == [.wake(at: 602_000)], "nothing would wake the machine again")
        #expect(machine.timerFired(now: 602_000) == [.fetch])
    }

    @Test("the wall clock stepped back past the last start: the timer's wake fetches, an unknown kid fetches")
    func clockSteppedBack() throws {
        var machine = Machine(policy: .init(minRefresh: 30_000))
        _ = machine.start(now: 10_000_000)
        _ = machine.fetchEnded(.fetched(maxAge: nil), now: 10_000_100)
        // One hour back, after the timer measured its 10 minutes.
        try #require(machine.timerFired(now: 10_000_100 + 600_000 - 3_600_000) == [.fetch])
        _ = machine.fetchEnded(.fetched(maxAge: nil), now: 7_000_200)
        // Another hour back: a token of a key just rotated in is not refused for an hour.
        try #require(machine.unknownKey(now: 7_000_300 - 3_600_000) == (.fetchAndWait, [.fetch]))
        _ = machine.fetchEnded(.fetched(maxAge: nil), now: 3_400_400)
        #expect(machine.unknownKey(now: 3_400_500) == (.refuse, []), "paced again from the new start")
    }

    @Test("over HTTPS: a timer that fires while the pacing clock is behind the plan still leads to the next fetch")
    func refreshNotLostWhenClockBehind() throws {
        let fixture = try F.get()
        let provider = try JWKSProvider(serving: fixture.setA)
        try provider.cacheControl("no-cache")  // next fetch after minRefresh, 1 s
        let pace = FakeClock(millisecondsSinceEpoch: 5_000)
        let settings = JWKSURLSource.Settings(url: provider.url, caFile: provider.caFile, minRefreshSeconds: 1)
        let authentication = JWTAuthentication(
            verifier: JWTVerifierTests.verifier, jwksURL: settings, clock: FakeClock(millisecondsSinceEpoch: F.now * 1000),
            refreshClock: pace, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        defer { authentication.stopKeyRefresh() }
        authentication.startKeyRefresh()
        #expect(eventually { authentication.remoteMachine?.due == 6_000 })
        // The timer fires about 1 s later, reading 5,000 (the wall clock was stepped back by 1 s).
        Thread.sleep(forTimeInterval: 2)
        pace.advance(milliseconds: 1_000)
        #expect(eventually(timeout: .seconds(10)) { provider.requests >= 2 }, "no fetch ever again: the timer was not re-armed")
    }
}
