import Dispatch
import LockTracing
import Logging
import Synchronization
import TodoData

/// The JWK Set at `jwtJwksUrl`: fetched at start and again when `JWKSRefreshStateMachine` says
/// (the provider's `Cache-Control`, every 10 minutes, after a failure, on a `kid` the set does not
/// know), each fetch by `JWKSDownload` on a serial queue of its own, never on an event loop. A
/// fetch that brings a usable set that differs from the last hands it to `onKeys`; any other
/// outcome (the provider down, a status other than 200, a document that is not a usable JWK Set)
/// keeps the set in effect and is logged. Requests waiting on a fetch (`awaitFetch`) go on when
/// it ends, after the new keys are in effect.
final class JWKSURLSource: Sendable {
    /// `jwtJwksUrl` and what goes with it.
    struct Settings: Sendable, Equatable {
        var url: String
        /// `jwtJwksCaFile`: the certificate authorities to trust (nil: the system's).
        var caFile: String?
        /// `jwtJwksMinRefreshSeconds`.
        var minRefreshSeconds: Int = 30
        /// `jwtJwksTimeoutSeconds`: the longest one fetch takes, connection and TLS included.
        var timeoutSeconds: Int = 10
        var limits = JWKSet.Limits()
    }

    private let settings: Settings
    private let download: JWKSDownload
    private let clock: any TodoClock
    private let logger: Logger
    private let queue = DispatchQueue(label: "todo-server.jwks-fetch")
    private let state: Mutex<State>

    private struct State {
        var machine: JWKSRefreshStateMachine
        var waiters: [@Sendable () -> Void] = []
        /// The document of the set in effect (a fetch of the same bytes changes nothing).
        var document: [UInt8]?
        var onKeys: (@Sendable (JWKSet) -> Void)?
        var timer: DispatchSourceTimer?
        var stopped = false
    }

    /// `clock`: the one the refresh is paced by (a monotonic one in a server: a wall clock
    /// stepped back would hold the refresh back).
    init(settings: Settings, clock: any TodoClock = MonotonicClock(), logger: Logger) {
        self.settings = settings
        self.clock = clock
        self.logger = logger
        download = JWKSDownload(
            url: settings.url, caFile: settings.caFile, timeoutMilliseconds: settings.timeoutSeconds * 1000,
            maxBytes: settings.limits.maxBytes)
        let policy = JWKSRefreshStateMachine.Policy(minRefresh: Int64(settings.minRefreshSeconds) * 1000)
        state = Mutex(State(machine: JWKSRefreshStateMachine(policy: policy)))
    }

    /// Fetches the set now, and from then on as the machine says; each usable new set goes to
    /// `onKeys` (on the source's queue). Once.
    func start(onKeys: @escaping @Sendable (JWKSet) -> Void) {
        let actions = state.withTracedLock { [queue] state -> [JWKSRefreshStateMachine.Action] in
            guard !state.stopped, state.timer == nil else { return [] }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.setEventHandler { [weak self] in self?.timerFired() }
            timer.resume()
            state.onKeys = onKeys
            state.timer = timer
            return state.machine.start(now: now)
        }
        run(actions, releasing: [])
    }

    /// No fetch starts after this one; requests waiting on a fetch under way still go on when it ends.
    func stop() {
        state.withTracedLock { state in
            state.stopped = true
            state.timer?.cancel()
            state.timer = nil
        }
    }

    /// A token named a `kid` the set does not have: true when a fetch (under way, or started now)
    /// may bring it, and `resume` is called once that fetch has ended (on the source's queue);
    /// false when none may (one started less than `jwtJwksMinRefreshSeconds` ago), and `resume` is
    /// dropped.
    func awaitFetch(_ resume: @escaping @Sendable () -> Void) -> Bool {
        let (decision, actions) = state.withTracedLock {
            state -> (JWKSRefreshStateMachine.UnknownKeyAction, [JWKSRefreshStateMachine.Action]) in
            guard !state.stopped, state.timer != nil else { return (.refuse, []) }
            let (decision, actions) = state.machine.unknownKey(now: now)
            if decision != .refuse { state.waiters.append(resume) }
            return (decision, actions)
        }
        run(actions, releasing: [])
        return decision != .refuse
    }

    /// Whether a token with an unknown `kid` would wait for a fetch now (see `awaitFetch`), asking
    /// for none.
    var wouldAwaitFetch: Bool {
        state.withTracedLock { state in !state.stopped && state.timer != nil && state.machine.wouldWait(now: now) }
    }

    /// Fetches done and failed so far, and whether one is under way (for the tests).
    var machine: JWKSRefreshStateMachine { state.withTracedLock { $0.machine } }

    private var now: Int64 { clock.now().millisecondsSinceEpoch }

    private func timerFired() {
        let actions = state.withTracedLock { state in state.stopped ? [] : state.machine.timerFired(now: now) }
        run(actions, releasing: [])
    }

    private func run(_ actions: [JWKSRefreshStateMachine.Action], releasing waiters: [@Sendable () -> Void]) {
        for action in actions {
            switch action {
            case .fetch: queue.async { self.fetch() }
            case .wake(let at):
                let delay = max(0, at - now)
                state.withTracedLock { $0.timer?.schedule(deadline: .now() + .milliseconds(Int(min(delay, Int64(Int32.max))))) }
            case .releaseWaiters:
                for resume in waiters { resume() }
            }
        }
    }

    /// One fetch, on the queue: the outcome goes to the machine, and the waiters go on.
    private func fetch() {
        let outcome = fetchOnce()
        var waiters: [@Sendable () -> Void] = []
        let actions = state.withTracedLock { state in
            let actions = state.machine.fetchEnded(outcome, now: now)
            if actions.contains(.releaseWaiters) { swap(&waiters, &state.waiters) }
            return actions
        }
        run(actions, releasing: waiters)
    }

    private func fetchOnce() -> JWKSRefreshStateMachine.Outcome {
        let metadata: Logger.Metadata = ["url": "\(settings.url)"]
        let response: JWKSDownload.Response
        switch download.get() {
        case .failure(let failure):
            logger.error(
                "JWT keys could not be fetched: the keys in effect stay", metadata: metadata.merging(["reason": "\(failure)"]) { $1 })
            return .failed
        case .success(let answer): response = answer
        }
        guard response.status == 200 else {
            logger.error(
                "JWT keys could not be fetched: the keys in effect stay",
                metadata: metadata.merging(["reason": "the provider answered \(response.status)"]) { $1 })
            return .failed
        }
        let maxAge = CacheControl.maxAge(response.cacheControl)
        let (unchanged, onKeys) = state.withTracedLock { ($0.document == response.body, $0.onKeys) }
        if unchanged { return .fetched(maxAge: maxAge) }
        switch JWKSet.parse(response.body, limits: settings.limits) {
        case .failure(let failure):
            logger.error(
                "JWT keys fetched are not a usable JWK Set: the keys in effect stay",
                metadata: metadata.merging(["reason": "\(failure.description)"]) { $1 })
            return .failed
        case .success(let keys):
            onKeys?(keys)
            state.withTracedLock { $0.document = response.body }
            logger.notice("JWT keys fetched", metadata: metadata.merging(["keys": "\(keys.summary)"]) { $1 })
            return .fetched(maxAge: maxAge)
        }
    }

    /// Whether `text` may be `jwtJwksUrl`: an `https://` URL with a host, or an `http://` one on a
    /// loopback host (a provider on the same machine, in development); printable ASCII without
    /// spaces, no user info (a password in a URL ends up in logs), at most 2,048 bytes.
    static func isAcceptableURL(_ text: String) -> Bool {
        guard text.utf8.count <= 2048, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        let lowercased = text.lowercased()
        let secure = lowercased.hasPrefix("https://")
        guard secure || lowercased.hasPrefix("http://") else { return false }
        let authority = lowercased.dropFirst(secure ? 8 : 7).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return false }
        let host = authority.hasPrefix("[") ? authority.prefix { $0 != "]" } + "]" : String(authority.prefix { $0 != ":" })
        guard host != "", host != "[]" else { return false }
        return secure || ["127.0.0.1", "localhost", "[::1]"].contains(host)
    }
}
