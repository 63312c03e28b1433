import Dispatch
import Foundation
import Logging
import TestSupport
import Testing

@testable import TodoDataTestSupport
@testable import TodoServer

/// JWT keys from a URL (`jwtJwksUrl`) against a real HTTPS provider (`JWKSProvider`: Python's
/// `ssl` with a certificate authority of its own), fetched by libcurl: the set taken at start,
/// a rotated key fetched once for the token that names it, the provider's failures keeping the
/// keys in effect, the certificate checked, the answer's size bounded. The refresh is paced by a
/// fake clock that the tests move; each waits for the fetch's end, never for time.
@Suite("JWT keys from a URL: fetched over HTTPS, refetched on an unknown kid, kept while the provider fails")
struct JWKSURLSourceTests {
    typealias F = IdentityFixture

    /// An authentication on `provider`'s URL (trusting its authority unless `trusted` is false),
    /// paced by `pace`, its requests' clock at the fixture's instant.
    private static func authentication(
        _ provider: JWKSProvider, pace: FakeClock, trusted: Bool = true, maxBytes: Int = 256 << 10, logs: CapturingLogHandler.Storage
    ) -> JWTAuthentication {
        var settings = JWKSURLSource.Settings(url: provider.url, caFile: trusted ? provider.caFile : nil, minRefreshSeconds: 30)
        settings.limits.maxBytes = maxBytes
        return JWTAuthentication(
            verifier: JWTVerifierTests.verifier, jwksURL: settings, clock: FakeClock(millisecondsSinceEpoch: F.now * 1000),
            refreshClock: pace, logger: Logger(label: "test") { _ in CapturingLogHandler(storage: logs) })
    }

    /// A provider serving set A, and an authentication on it (at most `maxBytes` an answer) whose
    /// refresh is paced by a clock at 0, its log lines captured.
    private static func served(maxBytes: Int = 256 << 10) throws -> (
        provider: JWKSProvider, logs: CapturingLogHandler.Storage, pace: FakeClock, authentication: JWTAuthentication
    ) {
        let provider = try JWKSProvider(serving: try F.get().setA)
        let logs = CapturingLogHandler.Storage()
        let pace = FakeClock(millisecondsSinceEpoch: 0)
        return (provider, logs, pace, authentication(provider, pace: pace, maxBytes: maxBytes, logs: logs))
    }

    /// Waits until a fetch has started and none is under way.
    private static func settled(_ authentication: JWTAuthentication) -> Bool {
        eventually {
            guard let machine = authentication.remoteMachine, machine.lastStart != nil else { return false }
            return !machine.fetching
        }
    }

    /// Asks for a fetch as a token with an unknown `kid` does, and waits for its end: true when
    /// one was allowed (and ended), false when it was refused (rate limit).
    private static func refetch(_ authentication: JWTAuthentication) throws -> Bool {
        let ended = DispatchSemaphore(value: 0)
        guard authentication.awaitNewerKeys({ ended.signal() }) else { return false }
        guard ended.wait(timeout: .now() + 30) == .success else {
            Issue.record("the fetch did not end within 30 s")
            return true
        }
        return true
    }

    private static func outcome(_ authentication: JWTAuthentication, _ name: String) throws -> JWTVerifierTests.Outcome {
        let token = try #require(try F.get().tokens[name])
        return JWTVerifierTests.outcome(authentication.verify(Array(token.utf8)))
    }

    private static func messages(_ logs: CapturingLogHandler.Storage) -> [String] {
        logs.lines.withTracedLock { lines in lines.map { "\($0.message) \($0.metadata["reason"] ?? "")" } }
    }

    @Test("fetched at start over HTTPS, trusting jwtJwksCaFile; before that nothing is accepted, and nothing waits")
    func fetchedAtStart() throws {
        let (provider, logs, _, authentication) = try Self.served()
        defer { authentication.stopKeyRefresh() }
        #expect(try Self.outcome(authentication, "e2e alice") == .refused("unknown key"))
        #expect(try !Self.refetch(authentication), "not started: no fetch to wait for")
        authentication.startKeyRefresh()
        #expect(Self.settled(authentication))
        #expect(try Self.outcome(authentication, "e2e alice") == .accepted(owner: "alice", expiresAt: F.now + 3600, grants: "read, write"))
        #expect(try Self.outcome(authentication, "e2e bob") == .accepted(owner: "bob", expiresAt: F.now + 3600, grants: "read, write"))
        #expect(provider.requests == 1)
        #expect(Self.messages(logs).contains { $0.hasPrefix("JWT keys fetched") })
        #expect(authentication.remoteMachine?.due == 600_000, "no Cache-Control: 10 minutes")
    }

    @Test("a key the provider rotates in: its token waits for one fetch and is accepted; more unknown kids within 30 s fetch nothing")
    func rotation() throws {
        let fixture = try F.get()
        let (provider, _, pace, authentication) = try Self.served()
        defer { authentication.stopKeyRefresh() }
        authentication.startKeyRefresh()
        #expect(Self.settled(authentication))
        try provider.serve(try JWKSProvider.union(fixture.setA, fixture.setB))
        #expect(try Self.outcome(authentication, "e2e alice rotated") == .refused("unknown key"))
        #expect(try !Self.refetch(authentication), "within 30 s of the start's fetch")
        #expect(provider.requests == 1)
        pace.advance(milliseconds: 30_000)
        #expect(try Self.refetch(authentication))
        #expect(provider.requests == 2)
        #expect(
            try Self.outcome(authentication, "e2e alice rotated")
                == .accepted(owner: "alice", expiresAt: F.now + 3600, grants: "read, write"))
        #expect(try Self.outcome(authentication, "e2e alice") == .accepted(owner: "alice", expiresAt: F.now + 3600, grants: "read, write"))
        // A stream of made-up kids: refused at once, no fetch.
        for _ in 0..<50 { #expect(try !Self.refetch(authentication)) }
        #expect(provider.requests == 2)
        // The provider retires key A: gone at the next fetch, its tokens refused from then on.
        try provider.serve(fixture.setB)
        pace.advance(milliseconds: 30_000)
        #expect(try Self.refetch(authentication))
        #expect(try Self.outcome(authentication, "e2e alice") == .refused("unknown key"))
        #expect(
            try Self.outcome(authentication, "e2e alice rotated")
                == .accepted(owner: "alice", expiresAt: F.now + 3600, grants: "read, write"))
    }

    @Test("the provider failing (503, not a JWK Set, too large): the keys in effect stay, each failure logged, retried later")
    func providerFailing() throws {
        let fixture = try F.get()
        let (provider, logs, pace, authentication) = try Self.served(maxBytes: 4096)
        defer { authentication.stopKeyRefresh() }
        authentication.startKeyRefresh()
        #expect(Self.settled(authentication))
        let alice = JWTVerifierTests.Outcome.accepted(owner: "alice", expiresAt: F.now + 3600, grants: "read, write")

        try provider.answer(status: 503)
        pace.advance(milliseconds: 30_000)
        #expect(try Self.refetch(authentication))
        #expect(try Self.outcome(authentication, "e2e alice") == alice)
        #expect(authentication.remoteMachine?.failures == 1)
        #expect(Self.messages(logs).contains("JWT keys could not be fetched: the keys in effect stay the provider answered 503"))
        #expect(authentication.remoteMachine?.due == Int64(60_000), "retried after minRefresh")

        try provider.answer(status: nil)
        try provider.serve(Array(#"{"keys": "none"}"#.utf8))
        pace.advance(milliseconds: 60_000)
        #expect(try Self.refetch(authentication))
        #expect(try Self.outcome(authentication, "e2e alice") == alice)
        #expect(authentication.remoteMachine?.failures == 2)
        #expect(Self.messages(logs).contains { $0.hasPrefix("JWT keys fetched are not a usable JWK Set") && $0.contains("not an array") })
        #expect(authentication.remoteMachine?.due == Int64(150_000), "the wait doubles")

        try provider.serve(Array((#"{"keys":[], "padding": ""# + String(repeating: "x", count: 5000) + #""}"#).utf8))
        pace.advance(milliseconds: 120_000)
        #expect(try Self.refetch(authentication))
        #expect(try Self.outcome(authentication, "e2e alice") == alice)
        #expect(
            Self.messages(logs).contains("JWT keys could not be fetched: the keys in effect stay the response is larger than 4096 bytes"))

        try provider.serve(fixture.setB)
        pace.advance(milliseconds: 240_000)
        #expect(try Self.refetch(authentication))
        #expect(try Self.outcome(authentication, "e2e alice") == .refused("unknown key"))
        #expect(try Self.outcome(authentication, "e2e alice rotated") == alice)
        #expect(authentication.remoteMachine?.failures == 0)
        #expect(provider.requests == 5)
    }

    @Test("a provider whose certificate the trusted authorities do not vouch for: no keys, the reason logged")
    func untrustedCertificate() throws {
        let fixture = try F.get()
        let provider = try JWKSProvider(serving: fixture.setA)
        let logs = CapturingLogHandler.Storage()
        let authentication = Self.authentication(provider, pace: FakeClock(millisecondsSinceEpoch: 0), trusted: false, logs: logs)
        defer { authentication.stopKeyRefresh() }
        authentication.startKeyRefresh()
        #expect(Self.settled(authentication))
        #expect(authentication.remoteMachine?.failures == 1)
        #expect(try Self.outcome(authentication, "e2e alice") == .refused("unknown key"))
        #expect(provider.requests == 0, "refused in the TLS handshake, before any request")
        #expect(
            Self.messages(logs).contains { $0.hasPrefix("JWT keys could not be fetched") && $0.contains("certificate") },
            "\(Self.messages(logs))")
    }

    @Test("the provider's Cache-Control sets the next fetch: max-age, no-cache, within [minRefresh, 24 h]")
    func cacheControl() throws {
        let fixture = try F.get()
        for (value, wait) in [("public, max-age=120", Int64(120_000)), ("no-cache", 30_000), ("max-age=604800", 86_400_000)] {
            let provider = try JWKSProvider(serving: fixture.setA)
            try provider.cacheControl(value)
            let pace = FakeClock(millisecondsSinceEpoch: 5_000)
            let authentication = Self.authentication(provider, pace: pace, logs: CapturingLogHandler.Storage())
            defer { authentication.stopKeyRefresh() }
            authentication.startKeyRefresh()
            #expect(Self.settled(authentication))
            #expect(authentication.remoteMachine?.due == 5_000 + wait, "\(value)")
        }
    }
}
