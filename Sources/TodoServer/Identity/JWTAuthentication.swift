import Logging
import Synchronization

/// JSON Web Tokens on the request path: the verifier, the JWK Set in effect (from `jwtJwksFile`,
/// looked at again by `refreshKeys`) and the tokens verified so far.
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
    /// The clock the key file's looks are paced by (the system's: the request clock may be a
    /// test's, standing still).
    private let fileClock: any TodoClock
    private let file: Mutex<JWKSFile>
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
        verifier: JWTVerifier, jwksFile: String, clock: any TodoClock, fileClock: any TodoClock = SystemClock(), cacheLimit: Int = 10_000,
        logger: Logger
    ) throws(JWKSet.Failure) {
        let file = try JWKSFile.load(path: jwksFile, now: fileClock.now()).get()
        self.fileClock = fileClock
        self.verifier = verifier
        self.clock = clock
        self.cacheLimit = max(1, cacheLimit)
        self.logger = logger
        state = Mutex(State(keys: file.keys))
        self.file = Mutex(file)
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

    /// Looks at the key file (at most once a second) and takes a new set when it changed; a
    /// changed file that is not usable keeps the set in effect and is logged once. Verified tokens
    /// are forgotten when the set changes: a key taken out of the set stops working at once.
    public func refreshKeys() {
        let refresh = file.withTracedLock { $0.refresh(now: fileClock.now()) }
        switch refresh {
        case .unchanged: return
        case .reloaded(let keys):
            state.withTracedLock { state in
                state.keys = keys
                state.generation += 1
                state.verified.removeAll()
            }
            logger.notice("JWT keys reloaded", metadata: ["file": "\(file.withTracedLock { $0.path })", "keys": "\(keys.summary)"])
        case .kept(let reason):
            logger.error(
                "JWT key file changed but is not a usable JWK Set: the keys in effect stay",
                metadata: ["file": "\(file.withTracedLock { $0.path })", "reason": "\(reason)"])
        }
    }
}
