import Dispatch
import LockTracing
import Logging
import Synchronization
import TodoData

/// JSON Web Tokens on the request path: the verifier, the JWK Set in effect and the tokens
/// verified so far. The set comes from `jwtJwksFile` (looked at again every second by
/// `refreshKeys` once `startKeyRefresh` ran) or from `jwtJwksUrl` (`JWKSURLSource`: fetched at
/// start and refreshed; until the first fetch ends the set is empty, and a token waits for it).
///
/// A token is verified once (a signature costs 25–130 µs, a request a few): the verified token is
/// kept, keyed by its exact bytes, until it expires or the key set changes, so a client that
/// sends one token on every request pays for one verification. At most `cacheLimit` tokens are
/// kept (the cache starts over when full: a flood of fresh tokens costs what it costs without a
/// cache, never more memory). A hit is checked against the clock like a first sight: an expired
/// token is refused whenever it comes.
public final class JWTAuthentication: Sendable {
    public let verifier: JWTVerifier
    private let clock: any TodoClock
    /// The clock the key file's looks and the key URL's fetches are paced by (a monotonic one: the
    /// request clock may be a test's, standing still, and a wall clock may step back).
    private let refreshClock: any TodoClock
    /// The key file, with `jwtJwksFile`.
    private let file: Mutex<JWKSFile?>
    /// The key set's URL, with `jwtJwksUrl`.
    private let remote: JWKSURLSource?
    /// The key file's timer, while it runs.
    private let fileTimer = Mutex<DispatchSourceTimer?>(nil)
    private let state: Mutex<State>
    private let cacheLimit: Int
    private let logger: Logger

    private struct State {
        var keys: JWKSet
        /// Counts key sets taken: a verification against an older set is not kept.
        var generation = 0
        var verified: [[UInt8]: VerifiedToken] = [:]
        /// Verifications done (first sights and refusals), for the tests and the metrics.
        var verifications = 0
    }

    /// Reads `jwksFile` now; fails with its reason when it is not a usable JWK Set (start-up stops).
    public init(
        verifier: JWTVerifier, jwksFile: String, clock: any TodoClock, refreshClock: any TodoClock = MonotonicClock(),
        cacheLimit: Int = 10_000,
        logger: Logger
    ) throws(JWKSet.Failure) {
        let file = try JWKSFile.load(path: jwksFile, now: refreshClock.now()).get()
        self.refreshClock = refreshClock
        self.verifier = verifier
        self.clock = clock
        self.cacheLimit = max(1, cacheLimit)
        self.logger = logger
        state = Mutex(State(keys: file.keys))
        self.file = Mutex(file)
        remote = nil
    }

    /// Keys from `jwksURL`, fetched once `startKeyRefresh` runs (start-up does not wait for it).
    init(
        verifier: JWTVerifier, jwksURL: JWKSURLSource.Settings, clock: any TodoClock, refreshClock: any TodoClock = MonotonicClock(),
        cacheLimit: Int = 10_000, logger: Logger
    ) {
        self.refreshClock = refreshClock
        self.verifier = verifier
        self.clock = clock
        self.cacheLimit = max(1, cacheLimit)
        self.logger = logger
        state = Mutex(State(keys: JWKSet(keys: [])))
        file = Mutex(nil)
        remote = JWKSURLSource(settings: jwksURL, clock: refreshClock, logger: logger)
    }

    /// Starts keeping the keys current: the file looked at every second, or the URL fetched now
    /// and then as its source says.
    public func startKeyRefresh() {
        if let remote {
            remote.start { [weak self] keys in self?.take(keys) }
            return
        }
        fileTimer.withTracedLock { running in
            guard running == nil else { return }
            let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
            timer.schedule(deadline: .now() + 1, repeating: 1)
            timer.setEventHandler { [weak self] in self?.refreshKeys() }
            timer.resume()
            running = timer
        }
    }

    /// Stops what `startKeyRefresh` started (at a stop; safe from any thread).
    public func stopKeyRefresh() {
        remote?.stop()
        fileTimer.withTracedLock { timer in
            timer?.cancel()
            timer = nil
        }
    }

    /// Whether a token refused for an unknown `kid` would now wait for a fetch of the key set
    /// (`awaitNewerKeys` would not refuse it): a request whose head alone is judged (`Expect:
    /// 100-continue`) is then judged whole, after the fetch.
    public var wouldAwaitNewerKeys: Bool { remote?.wouldAwaitFetch ?? false }

    /// For a token refused as `unknownKey`: true when a fetch of the key set (under way, or started
    /// now) may bring its key, and then `resume` runs (on another thread) once that fetch has
    /// ended, the new keys in effect; false (and `resume` dropped) when keys come from a file or a
    /// fetch started less than `jwtJwksMinRefreshSeconds` ago.
    public func awaitNewerKeys(_ resume: @escaping @Sendable () -> Void) -> Bool {
        remote?.awaitFetch(resume) ?? false
    }

    /// The source's refresh machine, for the tests.
    var remoteMachine: JWKSRefreshStateMachine? { remote?.machine }

    /// Takes `keys` as the set in effect: verified tokens are forgotten (a key taken out of the set
    /// stops working at once).
    private func take(_ keys: JWKSet) {
        state.withTracedLock { state in
            state.keys = keys
            state.generation += 1
            state.verified.removeAll()
        }
    }

    /// The keys in effect, as a start-up line says them.
    public var keysSummary: String { state.withTracedLock { $0.keys.summary } }

    /// Verifications done so far (cache misses).
    var verificationCount: Int { state.withTracedLock { $0.verifications } }

    /// The verified token `token` is, or why it is refused.
    public func verify(_ token: [UInt8]) -> Result<VerifiedToken, TokenRefusal> {
        // Before the cache hashes it: a token past the bound costs nothing but this comparison.
        guard token.count <= verifier.configuration.maxTokenBytes else {
            return .failure(.malformed("longer than \(verifier.configuration.maxTokenBytes) bytes"))
        }
        let now = clock.now()
        let (cached, keys, generation) = state.withTracedLock { state in (state.verified[token], state.keys, state.generation) }
        if let cached {
            // Refused once expired, as a first sight would be (the leeway as the verifier's).
            let end = (cached.expiresAt + Int64(verifier.configuration.leewaySeconds)) * 1000
            return now.millisecondsSinceEpoch < end ? .success(cached) : .failure(.expired)
        }
        let result = verifier.verify(token, keys: keys, now: now)
        state.withTracedLock { state in
            state.verifications += 1
            guard case .success(let verified) = result, state.generation == generation else { return }
            if state.verified.count >= cacheLimit { state.verified.removeAll(keepingCapacity: true) }
            state.verified[token] = verified
        }
        return result
    }

    /// With a key file: looks at it (at most once a second) and takes a new set when it changed; a
    /// changed file that is not usable keeps the set in effect and is logged once. Verified tokens
    /// are forgotten when the set changes: a key taken out of the set stops working at once.
    public func refreshKeys() {
        let looked = file.withTracedLock { file in file.map { _ in (file!.refresh(now: refreshClock.now()), file!.path) } }
        guard let (refresh, path) = looked else { return }
        switch refresh {
        case .unchanged: return
        case .reloaded(let keys):
            take(keys)
            logger.notice("JWT keys reloaded", metadata: ["file": "\(path)", "keys": "\(keys.summary)"])
        case .kept(let reason):
            logger.error(
                "JWT key file changed but is not a usable JWK Set: the keys in effect stay",
                metadata: ["file": "\(path)", "reason": "\(reason)"])
        }
    }
}
