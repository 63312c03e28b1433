import Testing

@testable import TodoServer

/// When a JWK Set fetched from a URL is fetched again: the pure machine, driven with times in
/// milliseconds; nothing runs, nothing sleeps.
@Suite("JWKSRefreshStateMachine: when the key set's URL is fetched again")
struct JWKSRefreshStateMachineTests {
    typealias Machine = JWKSRefreshStateMachine

    /// A machine with `jwtJwksMinRefreshSeconds` 30, started at 1,000 ms.
    private static func started() -> Machine {
        var machine = Machine(policy: .init(minRefresh: 30_000))
        #expect(machine.start(now: 1_000) == [.fetch])
        return machine
    }

    @Test("the first fetch starts at once; a token with an unknown kid meanwhile waits for it")
    func first() {
        var machine = Self.started()
        #expect(machine.fetching)
        #expect(machine.lastStart == 1_000)
        let (decision, actions) = machine.unknownKey(now: 1_500)
        #expect(decision == .wait)
        #expect(actions.isEmpty)
        #expect(machine.timerFired(now: 900_000).isEmpty, "no second fetch while one is under way")
    }

    @Test(
        "after a good fetch: again after max-age, 10 minutes without one, within [minRefresh, 24 h]",
        arguments: [
            (Int64?.none, Int64(600_000)), (3600, 3_600_000), (0, 30_000), (5, 30_000), (31, 31_000), (604_800, 86_400_000),
        ])
    func goodFetch(maxAge: Int64?, wait: Int64) {
        var machine = Self.started()
        #expect(machine.fetchEnded(.fetched(maxAge: maxAge), now: 2_000) == [.wake(at: 2_000 + wait), .releaseWaiters])
        #expect(machine.due == 2_000 + wait)
        #expect(machine.timerFired(now: 2_000 + wait - 1) == [.wake(at: 2_000 + wait)], "woken early: the timer set again")
        #expect(machine.timerFired(now: 2_000 + wait) == [.fetch])
        #expect(machine.lastStart == 2_000 + wait)
    }

    @Test("failures in a row wait minRefresh, doubling, up to 10 minutes; a good fetch starts over")
    func failures() {
        var machine = Self.started()
        var now: Int64 = 1_000
        var waits: [Int64] = []
        for _ in 0..<8 {
            let actions = machine.fetchEnded(.failed, now: now)
            guard case .wake(let at) = actions.first else {
                Issue.record("no wake after a failure: \(actions)")
                return
            }
            #expect(actions.last == .releaseWaiters)
            waits.append(at - now)
            now = at
            #expect(machine.timerFired(now: now) == [.fetch])
        }
        #expect(waits == [30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000, 600_000])
        #expect(machine.failures == 8)
        #expect(machine.fetchEnded(.fetched(maxAge: nil), now: now) == [.wake(at: now + 600_000), .releaseWaiters])
        #expect(machine.failures == 0)
    }

    @Test("an unknown kid fetches again at most once per minRefresh; made-up kids make no more fetches")
    func unknownKeyRateLimit() {
        var machine = Self.started()
        _ = machine.fetchEnded(.fetched(maxAge: 3600), now: 2_000)
        // Within 30 s of the last start (1,000): refused at once, nothing fetched.
        for now in stride(from: Int64(2_000), to: 31_000, by: 1_000) {
            let (decision, actions) = machine.unknownKey(now: now)
            #expect(decision == .refuse)
            #expect(actions.isEmpty)
        }
        let (decision, actions) = machine.unknownKey(now: 31_000)
        #expect(decision == .fetchAndWait)
        #expect(actions == [.fetch])
        #expect(machine.due == nil, "the planned refresh gives way to the fetch under way")
        // Others arriving during that fetch wait for it, and start nothing.
        #expect(machine.unknownKey(now: 31_200) == (.wait, []))
        #expect(machine.fetchEnded(.fetched(maxAge: 3600), now: 31_400) == [.wake(at: 31_400 + 3_600_000), .releaseWaiters])
        #expect(machine.unknownKey(now: 31_500) == (.refuse, []))
    }

    @Test("minRefresh of 1 s lets every second's unknown kid fetch; a provider's max-age of 0 means 1 s")
    func shortest() {
        var machine = Machine(policy: .init(minRefresh: 1_000))
        _ = machine.start(now: 0)
        #expect(machine.fetchEnded(.fetched(maxAge: 0), now: 10) == [.wake(at: 1_010), .releaseWaiters])
        #expect(machine.unknownKey(now: 999) == (.refuse, []))
        #expect(machine.unknownKey(now: 1_000) == (.fetchAndWait, [.fetch]))
    }

    @Test(
        "Cache-Control: max-age (first, quoted too), no-cache and no-store are 0, others nil",
        arguments: [
            ("max-age=300", Int64?.some(300)), ("public, max-age=3600, must-revalidate", 3600), ("MAX-AGE = 60", 60),
            ("Max-Age=60", 60), (#"max-age="120""#, 120), ("max-age=1, max-age=9", 1), ("no-cache", 0), ("public, no-store", 0),
            ("max-age=-5", nil), ("max-age=", nil), ("max-age=1e3", nil), ("private", nil), ("", nil),
            ("max-age=99999999999999999999", 31_536_000), ("max-age=40000000", 31_536_000), ("s-maxage=10", nil),
        ])
    func cacheControl(value: String, maxAge: Int64?) {
        #expect(CacheControl.maxAge(value) == maxAge)
    }

    @Test("no Cache-Control: nil")
    func noCacheControl() {
        #expect(CacheControl.maxAge(nil) == nil)
    }

    @Test(
        "jwtJwksUrl: https with a host, http only on loopback, nothing else",
        arguments: [
            ("https://id.example.com/realms/todo/protocol/openid-connect/certs", true), ("HTTPS://ID.EXAMPLE.COM/certs", true),
            ("https://id.example.com:8443/jwks.json", true), ("https://[2001:db8::1]/jwks", true),
            ("http://127.0.0.1:8080/jwks.json", true), ("http://localhost/jwks", true), ("http://[::1]:9000/jwks", true),
            ("http://id.example.com/jwks", false), ("http://127.0.0.1.example.com/jwks", false), ("http://localhost.evil/x", false),
            ("ftp://id.example.com/jwks", false), ("https://", false), ("https:///jwks", false), ("id.example.com/jwks", false),
            ("https://user:secret@id.example.com/jwks", false), ("https://id.example.com/jw ks", false),
            ("https://id.example.com/\u{7}", false), ("https://id.example.com/é", false), ("https://[]/x", false),
            ("https://id.example.com/" + String(repeating: "a", count: 2048), false),
        ])
    func acceptableURL(url: String, accepted: Bool) {
        #expect(JWKSURLSource.isAcceptableURL(url) == accepted)
    }
}
