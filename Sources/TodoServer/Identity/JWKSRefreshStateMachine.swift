/// When a JWK Set fetched from a URL (`jwtJwksUrl`) is fetched again: a pure machine, fed events
/// with the time, returning what to do (`JWKSURLSource` carries it out).
///
/// - At start: fetch.
/// - After a good fetch: again when its `Cache-Control: max-age` says (`no-cache`, `no-store`:
///   soon), else after `Policy.defaultRefresh` (10 minutes), never sooner than `minRefresh` nor
///   later than `maxRefresh`.
/// - After a failed one (the provider down, a bad answer, not a JWK Set): the set in effect stays
///   and the fetch is tried again after `minRefresh`, doubling with each failure in a row up to
///   `defaultRefresh`.
/// - A token whose `kid` the set does not know (a key the provider has just rotated in) waits for
///   a fetch: the one under way, else a new one when the last started at least `minRefresh` ago.
///   Otherwise it is refused at once: a stream of made-up `kid`s makes at most one fetch per
///   `minRefresh`.
struct JWKSRefreshStateMachine: Sendable, Equatable {
    struct Policy: Sendable, Equatable {
        /// The least time between the starts of two fetches, in milliseconds
        /// (`jwtJwksMinRefreshSeconds`).
        var minRefresh: Int64
        /// The time between fetches when the provider says nothing, and the longest wait after
        /// failures.
        var defaultRefresh: Int64 = 600_000
        /// The longest a fetched set is kept without asking again, whatever `max-age` says.
        var maxRefresh: Int64 = 86_400_000
    }

    /// What the shell does.
    enum Action: Sendable, Equatable {
        /// Start a fetch now.
        case fetch
        /// Be woken (`timerFired`) at this time, in milliseconds since the epoch.
        case wake(at: Int64)
        /// Let every request waiting for a fetch go on.
        case releaseWaiters
    }

    /// What a request holding a token with an unknown `kid` does.
    enum UnknownKeyAction: Sendable, Equatable {
        /// Wait for the fetch under way.
        case wait
        /// Start a fetch and wait for it.
        case fetchAndWait
        /// Refuse the token now: a fetch started less than `minRefresh` ago.
        case refuse
    }

    /// How a fetch ended.
    enum Outcome: Sendable, Equatable {
        /// A usable set, kept for `maxAge` seconds if the provider said (`CacheControl.maxAge`).
        case fetched(maxAge: Int64?)
        case failed
    }

    let policy: Policy
    private(set) var fetching = false
    /// When the last fetch started; nil before the first.
    private(set) var lastStart: Int64?
    /// When the next planned fetch is due; nil while one is under way.
    private(set) var due: Int64?
    /// Failed fetches in a row.
    private(set) var failures = 0

    init(policy: Policy) {
        self.policy = policy
    }

    /// The source starts: its first fetch.
    mutating func start(now: Int64) -> [Action] {
        begin(now: now)
    }

    /// The timer woke the shell. Woken before `due` by this clock (a stale wake, or a wall clock
    /// that went back after the timer was set): the timer is set again for `due`, as nothing else
    /// would wake the shell. A clock behind the last start went back: the timer, which measured the
    /// wait itself, is believed.
    mutating func timerFired(now: Int64) -> [Action] {
        guard !fetching, let due else { return [] }
        if now >= due || wentBack(now) { return begin(now: now) }
        return [.wake(at: due)]
    }

    /// A token names a `kid` the set does not have.
    mutating func unknownKey(now: Int64) -> (UnknownKeyAction, [Action]) {
        if fetching { return (.wait, []) }
        guard mayFetch(now: now) else { return (.refuse, []) }
        return (.fetchAndWait, begin(now: now))
    }

    /// Whether a token with an unknown `kid` would wait for a fetch now (`unknownKey` would not
    /// refuse it), without asking for one: a request's head is judged by it.
    func wouldWait(now: Int64) -> Bool {
        fetching || mayFetch(now: now)
    }

    /// No fetch yet, or the last started at least `minRefresh` ago (or the clock went back).
    private func mayFetch(now: Int64) -> Bool {
        guard let lastStart, !wentBack(now) else { return true }
        return now - lastStart >= policy.minRefresh
    }

    /// Whether `now` is before the last start: the clock went back (then the pacing starts over
    /// from `now`, not from a start in its future).
    private func wentBack(_ now: Int64) -> Bool {
        lastStart.map { now < $0 } ?? false
    }

    /// The fetch under way ended.
    mutating func fetchEnded(_ outcome: Outcome, now: Int64) -> [Action] {
        precondition(fetching, "a fetch ended that was not started")
        fetching = false
        let wait: Int64
        switch outcome {
        case .fetched(let maxAge):
            failures = 0
            wait = min(max((maxAge ?? policy.defaultRefresh / 1000) * 1000, policy.minRefresh), policy.maxRefresh)
        case .failed:
            failures += 1
            let doubled = policy.minRefresh << min(failures - 1, 20)
            wait = max(policy.minRefresh, min(doubled, policy.defaultRefresh))
        }
        due = now + wait
        return [.wake(at: now + wait), .releaseWaiters]
    }

    private mutating func begin(now: Int64) -> [Action] {
        fetching = true
        lastStart = now
        due = nil
        return [.fetch]
    }
}

/// The one directive of `Cache-Control` a JWK Set's refresh follows (RFC 9111 §5.2.2).
enum CacheControl {
    /// Seconds the response may be kept: `max-age=N` (the first one; a quoted value too), 0 for
    /// `no-cache` or `no-store`, nil when it says neither or is not understood. Values past a
    /// year are a year.
    static func maxAge(_ value: String?) -> Int64? {
        guard let value else { return nil }
        var maxAge: Int64?
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = parts[0].trimmingSpaces.lowercased()
            if name == "no-cache" || name == "no-store" { return 0 }
            guard name == "max-age", maxAge == nil, parts.count == 2 else { continue }
            var digits = parts[1].trimmingSpaces
            if digits.count >= 2, digits.hasPrefix("\""), digits.hasSuffix("\"") { digits = digits.dropFirst().dropLast() }
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { continue }
            maxAge = digits.utf8.count > 9 ? 31_536_000 : min(Int64(digits)!, 31_536_000)
        }
        return maxAge
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
